// Row-major GEMM entry points shared by the matmul and conv families:
// C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C. float goes to Tessera's
// GEMM (sgemm.h) or OpenBLAS, whichever measured faster, double to OpenBLAS;
// integer types use a cache-friendly loop with wrap-around
// (two's complement) arithmetic.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tessera::cpu {

void GemmF32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
             const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
class PackedB;
// The same for float with B a constant packed at kernel creation (sgemm.h):
// C[m, b.n()] = alpha op(A) B + beta C, split over the pool like GemmF32.
void GemmPackedF32(bool trans_a, int64_t m, float alpha, const float* a, int64_t lda, const PackedB& b, float beta,
                   float* c, int64_t ldc);
void GemmF64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
             int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// Wrap-around multiply/add for integers (no signed-overflow UB).
template <typename T>
inline T WrapMulAdd(T acc, T x, T y) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(acc) + static_cast<U>(static_cast<U>(x) * static_cast<U>(y)));
  } else {
    return acc + x * y;
  }
}

// Integer (or any arithmetic type) GEMM: C = op(A) * op(B) (+ C when accumulate).
template <typename T>
void GemmLoop(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
              int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * ldc;
    if (!accumulate)
      for (int64_t j = 0; j < n; ++j) crow[j] = T{};
    for (int64_t p = 0; p < k; ++p) {
      T av = trans_a ? a[p * lda + i] : a[i * lda + p];
      if (av == T{}) continue;
      if (!trans_b) {
        const T* brow = b + p * ldb;
        for (int64_t j = 0; j < n; ++j) crow[j] = WrapMulAdd(crow[j], av, brow[j]);
      } else {
        for (int64_t j = 0; j < n; ++j) crow[j] = WrapMulAdd(crow[j], av, b[j * ldb + p]);
      }
    }
  }
}

// Dispatches on T: float/double use BLAS, others the loop (alpha=1, beta 0/1).
template <typename T>
inline void GemmAny(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                    const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  if constexpr (std::is_same_v<T, float>)
    GemmF32(trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, accumulate ? 1.0f : 0.0f, c, ldc);
  else if constexpr (std::is_same_v<T, double>)
    GemmF64(trans_a, trans_b, m, n, k, 1.0, a, lda, b, ldb, accumulate ? 1.0 : 0.0, c, ldc);
  else
    GemmLoop<T>(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

}  // namespace tessera::cpu
