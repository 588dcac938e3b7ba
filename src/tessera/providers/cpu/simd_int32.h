// Vector arithmetic of the int8 kernels and the QDQ conversions, per SIMD
// target.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// acc[i] += x[i] * w for i < n, in wrapping 32-bit arithmetic.
void MulAddI32(const int32_t* x, int32_t w, int32_t* acc, int64_t n);

// out[i] = saturate(round((acc[i] + add) * s) + zero) as int8 (out_signed)
// or uint8, s = per_column[i] when given, else scale; in double, rounding
// half to even: QLinearConv's and QLinearMatMul's last step. A NaN scale
// gives the zero point, as QuantizeLinear does.
void RequantizeI32(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                   bool out_signed, void* out);

// QuantizeLinear per tensor from float: y = saturate(round_half_even(x /
// scale) + zero) as int8 (out_signed) or uint8, NaN to the zero point;
// the division in float, as ONNX specifies.
void QuantizeF32(const float* x, int64_t n, float scale, float zero, bool out_signed, void* y);
// DequantizeLinear per tensor to float: y = (x - zero) * scale.
void DequantizeToF32(const void* x, bool in_signed, int64_t n, float scale, float zero, float* y);

}  // namespace tessera::cpu
