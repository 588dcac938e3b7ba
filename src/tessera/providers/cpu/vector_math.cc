// The whole-array activations, on the Highway kernels (simd_elementwise.h).
#include "tessera/providers/cpu/vector_math.h"

#include "tessera/providers/cpu/simd_elementwise.h"

namespace tessera::cpu {

void SigmoidInPlace(float* y, int64_t n) { SigmoidF32(y, y, n); }

void SiluInPlace(float* y, int64_t n) { SiluF32(y, y, n); }

void TanhInPlace(float* y, int64_t n) { TanhF32(y, y, n); }

}  // namespace tessera::cpu
