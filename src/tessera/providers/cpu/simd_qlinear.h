// The rows of QLinearAdd and QLinearMul (com.microsoft), per SIMD target:
// 8-bit operands, one of them possibly a single broadcast value, to 8-bit
// results requantized in float.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Per node: zero points, and the scales folded so one row costs a multiply
// or two per element.
struct QLinearBinaryRow {
  int32_t za = 0, zb = 0, zc = 0;
  // Add: c = round((a - za) * ka + (b - zb) * kb) + zc, ka = a_scale / c_scale,
  // kb = b_scale / c_scale. Mul: c = round((a - za) * (b - zb) * ka) + zc,
  // ka = a_scale * b_scale / c_scale. Saturated to the 8-bit type.
  float ka = 1.0f, kb = 1.0f;
};

// c[i] for i < n, reading a[a_scalar ? 0 : i] and b[b_scalar ? 0 : i];
// operands and result int8 (is_signed) or uint8.
void QLinearAddRow(const void* a, bool a_scalar, const void* b, bool b_scalar, int64_t n, const QLinearBinaryRow& p,
                   bool is_signed, void* c);
void QLinearMulRow(const void* a, bool a_scalar, const void* b, bool b_scalar, int64_t n, const QLinearBinaryRow& p,
                   bool is_signed, void* c);

}  // namespace tessera::cpu
