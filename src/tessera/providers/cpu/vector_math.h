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
// y[i] = 0.5 y[i] (1 + erf(y[i] / sqrt 2)): Gelu.
void GeluErfInPlace(float* y, int64_t n);
// y[i] = 0.5 y[i] (1 + tanh(sqrt(2/pi) (y[i] + 0.044715 y[i]^3))): Gelu's tanh form.
void GeluTanhInPlace(float* y, int64_t n);

}  // namespace tessera::cpu
