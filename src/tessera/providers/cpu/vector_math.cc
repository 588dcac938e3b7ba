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

}  // namespace tessera::cpu
