// Compiled with -fno-trapping-math (CMake): without it GCC keeps the
// clamps in ExpFloat as branches and the loops stay scalar.
#include "tessera/providers/cpu/vector_math.h"

#include "tessera/providers/cpu/activation_impl.h"

namespace tessera::cpu {

void SigmoidInPlace(float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + ExpFloat(-y[i]));
}

void SiluInPlace(float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] / (1.0f + ExpFloat(-y[i]));
}

void TanhInPlace(float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = y[i];
    float a = __builtin_fabsf(v);
    float e = ExpFloat(-2.0f * a);
    float big = (1.0f - e) / (1.0f + e);
    float a2 = a * a;
    // The next term is below float precision for a < 1/16.
    float small = a * (1.0f + a2 * (-1.0f / 3.0f + a2 * (2.0f / 15.0f + a2 * (-17.0f / 315.0f))));
    y[i] = __builtin_copysignf(a < 0.0625f ? small : big, v);  // NaN passes through ExpFloat
  }
}

}  // namespace tessera::cpu
