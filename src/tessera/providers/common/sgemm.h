// Tessera's own single-precision GEMM: row-major C = alpha op(A) op(B) +
// beta C, packed into panels and computed by a register-blocked kernel that
// Highway compiles per SIMD target (AVX-512, AVX2, SSE4, NEON, scalar) and
// picks at run time, under the instruction-set cap. One call runs on the
// calling thread; callers split C across the pool (matmul_gemm.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

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

// op(B) [k x n] copied once into the panels of the SIMD target in use: a
// constant weight packed at session creation, so that every product with
// it skips the copy SgemmF32 makes of B on each call.
class PackedB {
 public:
  PackedB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb);
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  // Column ranges handed to SgemmPackedF32 start at multiples of this.
  int64_t panel_width() const { return nr_; }
  size_t bytes() const { return static_cast<size_t>(k_ * padded_n_) * sizeof(float); }

 private:
  friend void SgemmPackedF32(int64_t, int64_t, int64_t, float, const float*, int64_t, const PackedB&, float, float*,
                             int64_t, bool);
  struct Free {
    void operator()(float* p) const;
  };
  int64_t k_, n_, padded_n_, nr_, kc_;
  std::unique_ptr<float, Free> data_;
};

// Columns [j_begin, j_end) of C = alpha op(A) B + beta C, B packed; C points
// at column 0. j_begin is a multiple of b.panel_width(). trans_a as SgemmF32.
void SgemmPackedF32(int64_t m, int64_t j_begin, int64_t j_end, float alpha, const float* a, int64_t lda,
                    const PackedB& b, float beta, float* c, int64_t ldc, bool trans_a = false);

}  // namespace tessera::cpu
