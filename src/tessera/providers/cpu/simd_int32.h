// Vector arithmetic of the int8 kernels and the QDQ conversions, per SIMD
// target.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tessera::cpu {

// The input DepthwisePlaneI32 reads, from one h x w plane of int8
// (is_signed) or uint8 bytes: padded row r, column c (the input's row
// r - pad_t, column c - pad_l; r < rows, c < cols) goes to
// phases[((c % sw) * rows + r) * phase_w + c / sw] as its byte less `zero`,
// or 0 in the padding. The rest of each phase row is left as it is.
void PhasePlanesI32(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t,
                    int64_t pad_l, int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, int32_t* phases);

// One plane of a depthwise convolution, its input split by column phase so
// every tap reads contiguous values at any stride:
//   y[oy * ow + ox] = sum over ky < kh, kx < kw of taps[ky * kw + kx] *
//     phases[p][(oy * sh + ky * dh) * phase_w + ox + (kx * dw) / sw],
//   p = (kx * dw) % sw,
// phases holding sw planes of `rows` x phase_w values (centered, zero in the
// padding), phase_w >= ow + (kw - 1) * dw / sw + 64 (vector loads read past
// the last output). Wrapping 32-bit arithmetic.
void DepthwisePlaneI32(const int32_t* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                       int64_t dw, int64_t kh, int64_t kw, const int32_t* taps, int64_t oh, int64_t ow, int32_t* y);

// The same two in float, with fused multiply-adds: the values and taps as
// float (exact), the sums stored as int32. Exact while no sum can reach
// 2^24: with centered bytes (|x|, |tap| <= 255), kh * kw <= kDepthwiseF32MaxTaps.
constexpr int64_t kDepthwiseF32MaxTaps = (int64_t{1} << 24) / (255 * 255);
void PhasePlanesF32(const uint8_t* in, int64_t h, int64_t w, bool is_signed, int32_t zero, int64_t pad_t,
                    int64_t pad_l, int64_t rows, int64_t cols, int64_t sw, int64_t phase_w, float* phases);
// The requantization DepthwisePlaneF32 can do in its store, the plane's
// bytes RequantizeOne(sum, bias, scale, zero, out_signed) as the sums leave
// the registers (no int32 plane written). Float lanes requantize where
// float gives the double formula's result (as RequantizeI32's one-scale
// path decides: bias and sums within 2^23, no lane within 1e-4 of a half
// step); the other vectors take the formula itself. Only for kernels of at
// most kDepthwiseFusedMaxTaps taps, whose sums stay within 2^23.
struct DepthwiseRequant {
  int32_t bias = 0;
  double scale = 1.0;
  int32_t zero = 0;
  bool out_signed = false;
  uint8_t* out = nullptr;  // oh x ow bytes
};
constexpr int64_t kDepthwiseFusedMaxTaps = ((int64_t{1} << 23) - 1) / (255 * 255);
// Whether `rq` can be fused for a kernel of `taps` taps.
bool DepthwiseRequantFuses(const DepthwiseRequant& rq, int64_t taps);
// y (oh x ow int32 sums) is not written when `rq` is given; it must fuse.
void DepthwisePlaneF32(const float* phases, int64_t rows, int64_t phase_w, int64_t sh, int64_t sw, int64_t dh,
                       int64_t dw, int64_t kh, int64_t kw, const float* taps, int64_t oh, int64_t ow, int32_t* y,
                       const DepthwiseRequant* rq = nullptr);

// out[i] = saturate(round((acc[i] + add) * s) + zero) as int8 (out_signed)
// or uint8, s = per_column[i] when given, else scale; in double, rounding
// half to even: QLinearConv's and QLinearMatMul's last step. A NaN scale
// gives the zero point, as QuantizeLinear does.
void RequantizeI32(const int32_t* acc, int64_t n, int32_t add, double scale, const double* per_column, int32_t zero,
                   bool out_signed, void* out);

// One value of RequantizeI32, as the byte it stores.
inline uint8_t RequantizeOne(int32_t acc, int32_t add, double scale, int32_t zero, bool out_signed) {
  double v = (static_cast<double>(acc) + add) * scale;
  v = std::nearbyint(std::isnan(v) ? 0.0 : v) + zero;
  const double lo = out_signed ? -128.0 : 0.0, hi = out_signed ? 127.0 : 255.0;
  return static_cast<uint8_t>(static_cast<int32_t>(std::min(std::max(v, lo), hi)));
}

// QuantizeLinear per tensor from float: y = saturate(round_half_even(x /
// scale) + zero) as int8 (out_signed) or uint8, NaN to the zero point;
// the division in float, as ONNX specifies.
void QuantizeF32(const float* x, int64_t n, float scale, float zero, bool out_signed, void* y);
// The range DynamicQuantizeLinear quantizes over: *lo = min(0, x...) and
// *hi = max(0, x...), NaN values left out.
void RangeWithZeroF32(const float* x, int64_t n, float* lo, float* hi);
// DequantizeLinear per tensor to float: y = (x - zero) * scale.
void DequantizeToF32(const void* x, bool in_signed, int64_t n, float scale, float zero, float* y);

}  // namespace tessera::cpu
