#include "tessera/providers/cpu/matmul_gemm.h"

#include <cblas.h>

#include <climits>
#include <initializer_list>

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

}  // namespace

void GemmF32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    ScaleOrZero(m, n, beta, c, ldc);
    return;
  }
  if (!FitsBlas(m, n, k, lda, ldb, ldc)) return GemmFallback(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
              beta, c, static_cast<int>(ldc));
}

void GemmF64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
             const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    ScaleOrZero(m, n, beta, c, ldc);
    return;
  }
  if (!FitsBlas(m, n, k, lda, ldb, ldc)) return GemmFallback(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb),
              beta, c, static_cast<int>(ldc));
}

}  // namespace tessera::cpu
