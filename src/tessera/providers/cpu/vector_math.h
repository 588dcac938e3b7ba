// Whole-array float math for hot elementwise epilogues, written so the
// compiler vectorizes it (4 floats at a time on the baseline x86-64 ISA).
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[i] = 1 / (1 + e^-y[i]), with ExpFloat (activation_impl.h).
void SigmoidInPlace(float* y, int64_t n);
// y[i] = y[i] / (1 + e^-y[i]) (SiLU / Swish with alpha 1).
void SiluInPlace(float* y, int64_t n);
// y[i] = tanh(y[i]): (1 - e^-2a) / (1 + e^-2a) with ExpFloat, and the odd
// Taylor series below |y| = 1/16, where that form would cancel.
void TanhInPlace(float* y, int64_t n);

}  // namespace tessera::cpu
