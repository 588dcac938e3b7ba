#include "tessera/providers/cpu/matmul_gemm.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/common/sgemm.h"
#include "tessera/providers/cpu/blas_threads.h"

namespace tessera::cpu {

namespace {

bool FitsBlas(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc) {
  for (int64_t v : {m, n, k, lda, ldb, ldc})
    if (v > INT_MAX) return false;
  return true;
}

template <typename T>
void ScaleOrZero(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T{} ? T{} : c[i * ldc + j] * beta;
}

template <typename T>
void GemmFallback(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                  int64_t ldb, T beta, T* c, int64_t ldc) {
  ScaleOrZero(m, n, beta, c, ldc);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      T av = alpha * (ta ? a[p * lda + i] : a[i * lda + p]);
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] += av * (tb ? b[j * ldb + p] : b[p * ldb + j]);
    }
}

// Multiply-adds below which one more thread costs more (wake-up, a second
// packing of the shared operand) than it saves.
constexpr double kMinMacsPerThread = 1 << 18;

// The block (rows or columns, a multiple of `align`) that splits `extent`
// one block a thread; `extent` itself when the product of `macs`
// multiply-adds is too small to split.
int64_t SplitBlock(ThreadPool* pool, double macs, int64_t extent, int64_t align) {
  const int64_t tasks =
      pool ? std::min<int64_t>(pool->num_threads(), static_cast<int64_t>(macs / kMinMacsPerThread)) : 1;
  return tasks > 1 ? (extent / tasks + align - 1) / align * align : extent;
}

// One single-threaded GEMM on a block of C: Tessera's own where it measured
// faster (sgemm.h), else OpenBLAS. One row of C is a
// matrix-vector product: sgemv reads B once where sgemm would first copy
// (pack) all of it.
// The CBLAS entry points of element type T.
template <typename T> struct Cblas;
template <> struct Cblas<float> {
  static constexpr auto gemv = &cblas_sgemv;
  static constexpr auto gemm = &cblas_sgemm;
};
template <> struct Cblas<double> {
  static constexpr auto gemv = &cblas_dgemv;
  static constexpr auto gemm = &cblas_dgemm;
};

template <typename T>
void BlasCall(bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
              int ldc) {
  if constexpr (std::is_same_v<T, float>) {
    if (SgemmBeatsBlas(tb, m)) return SgemmF32(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  if (m == 1) {
    // OpenBLAS's scaling by beta = 0 multiplies (NaN * 0 stays NaN) and C may
    // be uninitialized: clear it instead.
    if (beta == T(0)) std::memset(c, 0, static_cast<size_t>(n) * sizeof(T));
    Cblas<T>::gemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, tb ? n : k, tb ? k : n, alpha, b, ldb, a,
                   ta ? lda : 1, beta == T(0) ? T(1) : beta, c, 1);
    return;
  }
  Cblas<T>::gemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
                 b, ldb, beta, c, ldc);
}

// Splits C into one block of columns (or, for tall C, rows) per thread of
// the current pool; each block is an independent single-threaded BLAS call.
// Inside a pool chunk, or without a pool, the whole GEMM is one call.
template <typename T>
void PooledGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                int64_t ldb, T beta, T* c, int64_t ldc) {
  PinBlasToOneThread();
  ThreadPool* pool = ThreadPool::InParallelRegion() ? nullptr : ThreadPool::Current();
  double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  bool by_cols = n >= m;
  // Blocks of whole SIMD panels (16 columns, 4 rows) keep BLAS on its fast path.
  int64_t extent = by_cols ? n : m;
  int64_t block = SplitBlock(pool, macs, extent, by_cols ? 16 : 4);
  if (block <= 0 || block >= extent) {
    BlasCall(ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b,
             static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
    return;
  }
  int64_t blocks = (extent + block - 1) / block;
  pool->ParallelFor(blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      int64_t lo = blk * block, len = std::min(extent, lo + block) - lo;
      if (by_cols) {
        const T* bb = tb ? b + lo * ldb : b + lo;
        BlasCall(ta, tb, static_cast<int>(m), static_cast<int>(len), static_cast<int>(k), alpha, a,
                 static_cast<int>(lda), bb, static_cast<int>(ldb), beta, c + lo, static_cast<int>(ldc));
      } else {
        const T* ab = ta ? a + lo : a + lo * lda;
        BlasCall(ta, tb, static_cast<int>(len), static_cast<int>(n), static_cast<int>(k), alpha, ab,
                 static_cast<int>(lda), b, static_cast<int>(ldb), beta, c + lo * ldc, static_cast<int>(ldc));
      }
    }
  });
}

// GemmF32 and GemmF64: empty and K = 0 products, shapes BLAS's int
// arguments cannot hold, then the pooled BLAS call.
template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
          int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    ScaleOrZero(m, n, beta, c, ldc);
    return;
  }
  if (!FitsBlas(m, n, k, lda, ldb, ldc)) return GemmFallback(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  PooledGemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

void GemmPackedF32(bool trans_a, int64_t m, float alpha, const float* a, int64_t lda, const PackedB& b, float beta,
                   float* c, int64_t ldc) {
  const int64_t n = b.n();
  if (m <= 0 || n <= 0) return;
  ThreadPool* pool = ThreadPool::InParallelRegion() ? nullptr : ThreadPool::Current();
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(b.k());
  // Columns in whole packed panels; rows when C is taller than wide.
  const bool by_cols = n >= m;
  const int64_t extent = by_cols ? n : m;
  const int64_t block = SplitBlock(pool, macs, extent, by_cols ? b.panel_width() : 4);
  if (block <= 0 || block >= extent) return SgemmPackedF32(m, 0, n, alpha, a, lda, b, beta, c, ldc, trans_a);
  pool->ParallelFor((extent + block - 1) / block, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t lo = blk * block, hi = std::min(extent, lo + block);
      if (by_cols) {
        SgemmPackedF32(m, lo, hi, alpha, a, lda, b, beta, c, ldc, trans_a);
      } else {
        const float* ab = trans_a ? a + lo : a + lo * lda;
        SgemmPackedF32(hi - lo, 0, n, alpha, ab, lda, b, beta, c + lo * ldc, ldc, trans_a);
      }
    }
  });
}

void GemmF32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void GemmF64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
             const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  Gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tessera::cpu
