// Tessera's own single-precision GEMM: row-major C = alpha op(A) op(B) +
// beta C, packed into panels and computed by a register-blocked kernel that
// Highway compiles per SIMD target (AVX-512, AVX2, SSE4, NEON, scalar) and
// picks at run time, under the instruction-set cap. One call runs on the
// calling thread; callers split C across the pool (matmul_gemm.cc).
#pragma once

#include <cstdint>

namespace tessera::cpu {

void SgemmF32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Whether SgemmF32 on the target dispatch picks now measured faster than
// OpenBLAS for this kind of product (docs/performance.md).
bool SgemmBeatsBlas(bool trans_b, int64_t m);

// The blocking of the target dispatch picks now: a kernel computes mr x nr
// of C over kc steps of K; A is packed mc rows and B nc columns at a time.
struct SgemmBlocking {
  int64_t mr, nr, kc, mc, nc;
};
SgemmBlocking SgemmBlockingInUse();

}  // namespace tessera::cpu
