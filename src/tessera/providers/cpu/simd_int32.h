// Vector integer row arithmetic for the int8 kernels, per SIMD target.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// acc[i] += x[i] * w for i < n, in wrapping 32-bit arithmetic.
void MulAddI32(const int32_t* x, int32_t w, int32_t* acc, int64_t n);

// out[i] = saturate(round((acc[i] + add) * s) + zero) as int8 (out_signed)
// or uint8, s = per_column[i] when given, else scale; in double, rounding
// half to even. Scales must not be NaN (the caller maps those).
void RequantizeI32(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                   bool out_signed, void* out);

}  // namespace tessera::cpu
