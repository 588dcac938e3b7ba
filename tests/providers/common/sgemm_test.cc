// Tessera's GEMM (sgemm.cc) against a double-precision reference, on every
// SIMD target: shapes at and around each target's block edges, M = 1, K off
// the vector width, both transposes, alpha and beta.
#include "tessera/providers/common/sgemm.h"

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/simd_targets.h"

namespace tessera::cpu {
namespace {

struct Case {
  bool ta, tb;
  int64_t m, n, k;
  float alpha, beta;
};

// How the product is computed: SgemmF32, or with B packed first (whole, in
// column blocks of whole panels, or packed under the best target and
// computed under the current one, as when a test pins a target).
enum class Path { kPlain, kPacked, kPackedInBlocks, kPackedElsewhere };

// The target kPackedElsewhere packs under: the best one, read before any pin
// (under a pin, the supported targets are the pinned one alone).
int64_t g_pack_target = 0;

void Multiply(Path path, const Case& c, const float* a, int64_t lda, const float* b, int64_t ldb, float* cm,
              int64_t ldc) {
  if (path == Path::kPlain) return SgemmF32(c.ta, c.tb, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, cm, ldc);
  std::optional<PackedB> packed;
  if (path == Path::kPackedElsewhere) {
    test::ScopedSimdTarget pack_under(g_pack_target);
    packed.emplace(c.tb, c.k, c.n, b, ldb);
  } else {
    packed.emplace(c.tb, c.k, c.n, b, ldb);
  }
  ASSERT_EQ(packed->k(), c.k);
  ASSERT_EQ(packed->n(), c.n);
  const int64_t step = path == Path::kPackedInBlocks ? packed->panel_width() : c.n;
  for (int64_t j = 0; j < c.n; j += step)
    SgemmPackedF32(c.m, j, std::min(c.n, j + step), c.alpha, a, lda, *packed, c.beta, cm, ldc, c.ta);
}

std::string Describe(const Case& c) {
  return std::string(c.ta ? "A^T " : "A ") + (c.tb ? "B^T " : "B ") + std::to_string(c.m) + "x" + std::to_string(c.n) +
         "x" + std::to_string(c.k) + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta);
}

// Runs one case with padded leading dimensions (so strides differ from the
// widths) and checks every element of C, and that C's padding is untouched.
void Check(const Case& c, Path path = Path::kPlain) {
  SCOPED_TRACE(Describe(c) + " path " + std::to_string(static_cast<int>(path)));
  std::mt19937 rng(static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  const int64_t lda = a_cols + 3, ldb = b_cols + 5, ldc = c.n + 2;
  std::vector<float> a(static_cast<size_t>(a_rows * lda)), b(static_cast<size_t>(b_rows * ldb));
  std::vector<float> cm(static_cast<size_t>(c.m * ldc));
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (size_t i = 0; i < cm.size(); ++i) cm[i] = static_cast<int64_t>(i) % ldc >= c.n ? 777.f : dist(rng);
  // With beta = 0, C's old contents must not be read: NaN there stays out.
  if (c.beta == 0.f && !cm.empty()) cm[0] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> before = cm;
  Multiply(path, c, a.data(), lda, b.data(), ldb, cm.data(), ldc);
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      double want = 0, scale = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const double x = c.ta ? a[static_cast<size_t>(p * lda + i)] : a[static_cast<size_t>(i * lda + p)];
        const double y = c.tb ? b[static_cast<size_t>(j * ldb + p)] : b[static_cast<size_t>(p * ldb + j)];
        want += x * y;
        scale += std::abs(x * y);
      }
      want *= c.alpha;
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (c.beta != 0.f) want += static_cast<double>(c.beta) * before[at];
      // float accumulation over k terms: a few ulp of the sum of magnitudes
      const double old = c.beta != 0.f ? std::abs(c.beta * before[at]) : 0.0;
      const double tol = 4e-7 * (std::abs(c.alpha) * scale + old) + 1e-30;
      ASSERT_NEAR(cm[at], want, tol) << "C[" << i << "][" << j << "]";
    }
    for (int64_t j = c.n; j < ldc; ++j) ASSERT_EQ(cm[static_cast<size_t>(i * ldc + j)], 777.f) << "padding written";
  }
}

TEST(SgemmTest, MatchesDoubleAroundBlockEdgesOnEveryTarget) {
  test::OnEverySimdTarget([] {
    const SgemmBlocking blk = SgemmBlockingInUse();
    SCOPED_TRACE("mr " + std::to_string(blk.mr) + " nr " + std::to_string(blk.nr));
    const std::vector<int64_t> ms = {1, blk.mr - 1, blk.mr, blk.mr + 1, blk.mc + 1};
    const std::vector<int64_t> ns = {1, blk.nr - 1, blk.nr, blk.nr + 3, 2 * blk.nr + 1};
    const std::vector<int64_t> ks = {1, 3, 17, blk.kc + 5};
    for (int64_t m : ms)
      for (int64_t n : ns)
        for (int64_t k : ks) Check({false, false, m, n, k, 1.f, 0.f});
  });
}

TEST(SgemmTest, TransposesAlphaAndBetaOnEveryTarget) {
  test::OnEverySimdTarget([] {
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float alpha : {1.f, -0.5f})
          for (float beta : {0.f, 1.f, 0.25f}) {
            Check({ta, tb, 7, 19, 23, alpha, beta});
            Check({ta, tb, 1, 40, 9, alpha, beta});
          }
  });
}

TEST(SgemmTest, WideNAcrossThePackedBlockOnEveryTarget) {
  test::OnEverySimdTarget([] {
    const SgemmBlocking blk = SgemmBlockingInUse();
    Check({false, false, 3, blk.nc + blk.nr + 1, 9, 1.f, 0.f});
    Check({false, true, 2, blk.nc + 1, 5, 2.f, 1.f});
  });
}

TEST(SgemmTest, PackedBMatchesDoubleAroundBlockEdgesOnEveryTarget) {
  test::OnEverySimdTarget([] {
    const SgemmBlocking blk = SgemmBlockingInUse();
    for (int64_t m : {int64_t{1}, blk.mr - 1, blk.mr + 1, blk.mc + 1})
      for (int64_t n : {int64_t{1}, blk.nr - 1, blk.nr + 3, 2 * blk.nr + 1})
        for (int64_t k : {int64_t{1}, int64_t{17}, blk.kc + 5}) {
          Check({false, false, m, n, k, 1.f, 0.f}, Path::kPacked);
          Check({false, true, m, n, k, 1.f, 0.f}, Path::kPacked);
        }
    Check({false, false, 3, blk.nc + blk.nr + 1, 9, 1.f, 0.f}, Path::kPacked);
    Check({false, true, 5, 3 * blk.nr + 2, 2 * blk.kc + 1, 1.f, 0.f}, Path::kPackedInBlocks);
  });
}

TEST(SgemmTest, PackedBTransposesAlphaAndBetaOnEveryTarget) {
  test::OnEverySimdTarget([] {
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.f, 1.f, 0.25f}) {
          Check({ta, tb, 7, 19, 23, -0.5f, beta}, Path::kPacked);
          Check({ta, tb, 13, 45, 300, 2.f, beta}, Path::kPackedInBlocks);
        }
  });
}

// A weight packed for one target still multiplies right when dispatch then
// picks another (it is unpacked for the call).
TEST(SgemmTest, PackedBUnderAnotherTargetOnEveryTarget) {
  g_pack_target = test::SimdTargetsToTest().front();
  test::OnEverySimdTarget([] {
    Check({false, true, 9, 37, 270, 1.f, 0.f}, Path::kPackedElsewhere);
    Check({true, false, 4, 20, 5, 0.5f, 1.f}, Path::kPackedElsewhere);
  });
}

TEST(SgemmTest, EmptyShapes) {
  std::vector<float> c = {5.f, 6.f};
  SgemmF32(false, false, 0, 2, 3, 1.f, nullptr, 3, nullptr, 2, 0.f, c.data(), 2);  // m = 0: nothing
  EXPECT_EQ(c[1], 6.f);
  SgemmF32(false, false, 1, 2, 0, 1.f, nullptr, 1, nullptr, 2, 2.f, c.data(), 2);  // k = 0: C = beta C
  EXPECT_EQ(c[0], 10.f);
  EXPECT_EQ(c[1], 12.f);
  c[0] = std::numeric_limits<float>::quiet_NaN();
  SgemmF32(false, false, 1, 2, 0, 1.f, nullptr, 1, nullptr, 2, 0.f, c.data(), 2);  // beta 0 clears, NaN too
  EXPECT_EQ(c[0], 0.f);
}

}  // namespace
}  // namespace tessera::cpu
