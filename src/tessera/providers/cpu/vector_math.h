// Whole-array float math for hot elementwise epilogues (in place), on the
// run-time dispatched kernels of simd_elementwise.h.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[i] = 1 / (1 + e^-y[i]).
void SigmoidInPlace(float* y, int64_t n);
// y[i] = y[i] / (1 + e^-y[i]) (SiLU / Swish with alpha 1).
void SiluInPlace(float* y, int64_t n);
// y[i] = tanh(y[i]).
void TanhInPlace(float* y, int64_t n);

}  // namespace tessera::cpu
