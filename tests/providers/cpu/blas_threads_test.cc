// OpenBLAS follows the session's threads: it stays on one thread (the pool
// does the splitting), and the pooled GEMM gives the naive product for every
// shape class it splits differently (one row, wide, tall, transposed).
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/cpu/blas_threads.h"
#include "tessera/providers/cpu/matmul_gemm.h"

// What another library sharing libopenblas (numpy) would call.
extern "C" void openblas_set_num_threads(int num_threads);

namespace tessera::cpu {
namespace {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  float beta;
};

// C = A*B + beta*C with A, B stored transposed when asked; leading dimensions
// are padded so sub-block offsets are exercised.
void CheckGemm(const Case& c, ThreadPool* pool, bool inside_region) {
  std::mt19937 rng(static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int64_t lda = (c.ta ? c.m : c.k) + 3, ldb = (c.tb ? c.k : c.n) + 5, ldc = c.n + 2;
  std::vector<float> a(static_cast<size_t>((c.ta ? c.k : c.m) * lda)), b(static_cast<size_t>((c.tb ? c.n : c.k) * ldb));
  for (auto& v : a) v = dist(rng);
  for (auto& v : b) v = dist(rng);
  std::vector<float> out(static_cast<size_t>(c.m * ldc));
  for (auto& v : out) v = c.beta == 0.f ? std::numeric_limits<float>::quiet_NaN() : dist(rng);
  std::vector<float> want = out;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < c.k; ++p)
        acc += static_cast<double>(c.ta ? a[p * lda + i] : a[i * lda + p]) * (c.tb ? b[j * ldb + p] : b[p * ldb + j]);
      float prev = want[i * ldc + j];
      want[i * ldc + j] = static_cast<float>(acc + (c.beta == 0.f ? 0.0 : c.beta * prev));
    }
  auto run = [&] {
    GemmF32(c.ta, c.tb, c.m, c.n, c.k, 1.0f, a.data(), lda, b.data(), ldb, c.beta, out.data(), ldc);
    EXPECT_EQ(BlasLibraryThreads(), 1);
  };
  ThreadPool::CurrentScope scope(pool);
  if (inside_region)
    pool->ParallelFor(2, 1, [&](int64_t b0, int64_t) {
      if (b0 == 0) run();
    });
  else
    run();
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j)
      ASSERT_NEAR(out[i * ldc + j], want[i * ldc + j], 1e-3f * std::sqrt(static_cast<float>(c.k)))
          << "m=" << c.m << " n=" << c.n << " k=" << c.k << " ta=" << c.ta << " tb=" << c.tb << " at " << i << ","
          << j;
}

const Case kCases[] = {
    {false, false, 1, 700, 300, 0.f},   // one row: matrix-vector, split by columns
    {true, true, 1, 700, 300, 1.f},     // one row, both transposed, accumulate
    {false, true, 1, 513, 257, 0.f},
    {false, false, 64, 900, 64, 0.f},   // wide: column blocks
    {true, false, 900, 48, 80, 1.f},    // tall: row blocks
    {false, true, 700, 40, 100, 0.f},
    {true, true, 130, 250, 70, 0.5f},
    {false, false, 3, 5, 7, 0.f},       // too small to split
};

TEST(BlasThreads, PooledGemmMatchesNaiveProduct) {
  ThreadPool pool(3);
  for (const Case& c : kCases) CheckGemm(c, &pool, false);
}

TEST(BlasThreads, GemmInsideAPoolChunkStaysSingleThreaded) {
  ThreadPool pool(2);
  for (const Case& c : kCases) CheckGemm(c, &pool, true);
}

TEST(BlasThreads, OpenBlasIsRepinnedAfterAnotherLibraryRaisesIt) {
  std::vector<float> a(64 * 64, 1.f), b(64 * 64, 1.f), c(64 * 64);
  openblas_set_num_threads(2);
  ASSERT_EQ(BlasLibraryThreads(), 2);
  GemmF32(false, false, 64, 64, 64, 1.f, a.data(), 64, b.data(), 64, 0.f, c.data(), 64);
  EXPECT_EQ(BlasLibraryThreads(), 1);
  EXPECT_FLOAT_EQ(c[0], 64.f);
}

}  // namespace
}  // namespace tessera::cpu
