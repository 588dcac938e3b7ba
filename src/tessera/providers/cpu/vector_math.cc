// The whole-array activations, on the Highway kernels (simd_elementwise.h).
#include "tessera/providers/cpu/vector_math.h"

#include <algorithm>

#include "tessera/providers/common/simd_elementwise.h"

namespace tessera::cpu {

void SigmoidInPlace(float* y, int64_t n) { SigmoidF32(y, y, n); }

void SiluInPlace(float* y, int64_t n) { SiluF32(y, y, n); }

void TanhInPlace(float* y, int64_t n) { TanhF32(y, y, n); }

namespace {

// 0.5 x (1 + f(inner(x))) in blocks that stay in L1: inner and the combine
// loop vectorize as they are, f is one of the SIMD kernels.
template <class Inner, class F>
void GeluInPlace(float* y, int64_t n, Inner inner, F f) {
  constexpr int64_t kBlock = 512;
  float t[kBlock];
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t len = std::min(kBlock, n - i0);
    float* x = y + i0;
    for (int64_t i = 0; i < len; ++i) t[i] = inner(x[i]);
    f(t, t, len);
    for (int64_t i = 0; i < len; ++i) x[i] = 0.5f * x[i] * (1.f + t[i]);
  }
}

}  // namespace

void GeluErfInPlace(float* y, int64_t n) {
  GeluInPlace(y, n, [](float x) { return x * 0.70710678118654752f; }, ErfF32);
}

void GeluTanhInPlace(float* y, int64_t n) {
  GeluInPlace(y, n, [](float x) { return 0.79788456080286535f * (x + 0.044715f * x * x * x); }, TanhF32);
}

}  // namespace tessera::cpu
