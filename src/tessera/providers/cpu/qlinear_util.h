// What the com.microsoft QLinear element-wise, concat and pooling kernels
// share: per-tensor quantization parameters read from their inputs, the
// QuantizeLinear rounding of one value, and 256-entry tables that map every
// 8-bit input to its output (an exact form of any function of one value).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/simd_qlinear.h"

namespace tessera::cpu {

inline bool IsQuant8(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

// One tensor's per-tensor quantization: real = (q - zero) * scale.
struct QuantParams {
  float scale = 1.0f;
  int32_t zero = 0;
  bool operator==(const QuantParams&) const = default;
};

// The parameters in inputs (scale_input, zero_input) at run time: a float
// scale holding one value, and a zero point of `type` holding one value, or
// absent (0). Fails naming `what` and the reason otherwise.
QuantParams ReadQuantParams(const KernelContext& ctx, size_t scale_input, size_t zero_input, DataType type,
                            const char* what);
// The same at kernel creation when both are constants (or the zero point is
// omitted); nullopt when either can vary, or is malformed (the run then
// reports it).
std::optional<QuantParams> ConstantQuantParams(const KernelInfo& info, size_t scale_input, size_t zero_input);

// QuantizeLinear of one float: saturate(round_half_even(v / scale) + zero),
// a NaN quotient giving the zero point, as the per-tensor QuantizeLinear
// kernel computes it (in float).
inline int32_t QuantizeOne(float v, const QuantParams& p, bool out_signed) {
  float q = v / p.scale;
  q = q == q ? std::fmin(4194304.f, std::fmax(-4194304.f, q)) : 0.f;
  const float lo = out_signed ? -128.f : 0.f, hi = out_signed ? 127.f : 255.f;
  return static_cast<int32_t>(std::fmin(hi, std::fmax(lo, std::nearbyint(q) + static_cast<float>(p.zero))));
}
// DequantizeLinear of one 8-bit value, in float.
inline float DequantizeOne(int32_t q, const QuantParams& p) {
  return static_cast<float>(q - p.zero) * p.scale;
}

// QLinearMul's row parameters for operands at a and b, result at c: the
// one place the folded scale is rounded, so a table built from the Mul
// (QLinearSilu) gives the Mul's bytes.
inline QLinearBinaryRow QLinearMulRowParams(const QuantParams& a, const QuantParams& b, const QuantParams& c) {
  QLinearBinaryRow row;
  row.za = a.zero, row.zb = b.zero, row.zc = c.zero;
  row.ka = static_cast<float>(static_cast<double>(a.scale) * b.scale / c.scale);
  return row;
}

// Output byte per input byte (indexed by the input's bit pattern).
using ByteTable = std::array<uint8_t, 256>;

// table[b] = Q(f(DQ(b))): f applied to every dequantized 8-bit value, then
// quantized: the dequantize -> float op -> quantize of the unfused graph,
// computed once per possible input.
template <typename F>
ByteTable MakeByteTable(bool in_signed, const QuantParams& x, bool out_signed, const QuantParams& y, F&& f) {
  ByteTable t{};
  for (int b = 0; b < 256; ++b) {
    const int32_t q = in_signed ? static_cast<int8_t>(static_cast<uint8_t>(b)) : b;
    t[static_cast<size_t>(b)] = static_cast<uint8_t>(QuantizeOne(f(DequantizeOne(q, x)), y, out_signed));
  }
  return t;
}

// y[i] = table[x[i]] for n bytes, over the thread pool when large.
void ApplyByteTable(const ByteTable& table, const uint8_t* x, int64_t n, uint8_t* y, ThreadPool* pool);

}  // namespace tessera::cpu
