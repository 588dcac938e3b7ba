#include "tessera/quantization/quant_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tessera/base/status.h"

namespace tessera::quant {

IntRange IntRangeFor(DataType type, bool symmetric, bool reduce_range) {
  if (type == DataType::kInt8) {
    if (reduce_range) return symmetric ? IntRange{-64, 64} : IntRange{-64, 63};
    return symmetric ? IntRange{-127, 127} : IntRange{-128, 127};
  }
  if (type == DataType::kUInt8) return reduce_range ? IntRange{0, 127} : IntRange{0, 255};
  TS_THROW(kNotImplemented, "quantization to ", DataTypeName(type), " is not supported (int8 or uint8)");
}

QuantParams ComputeQuantParams(double rmin, double rmax, IntRange r, bool symmetric) {
  if (!std::isfinite(rmin)) rmin = 0;
  if (!std::isfinite(rmax)) rmax = 0;
  rmin = std::min(rmin, 0.0);
  rmax = std::max(rmax, 0.0);
  if (symmetric) {
    const double a = std::max(-rmin, rmax);
    rmin = -a;
    rmax = a;
  }
  QuantParams p;
  // The scale as the model stores it (float), so the zero point is computed
  // against the value DequantizeLinear will use.
  const float scale = static_cast<float>((rmax - rmin) / static_cast<double>(r.qmax - r.qmin));
  if (!(scale >= std::numeric_limits<float>::min())) {
    p.scale = 1.0f;
    p.zero_point = symmetric ? static_cast<int32_t>(std::nearbyint((r.qmin + r.qmax) / 2.0)) : r.qmin;
    if (p.zero_point < r.qmin || p.zero_point > r.qmax) p.zero_point = r.qmin;
    return p;
  }
  p.scale = scale;
  double zp = symmetric ? std::nearbyint((r.qmin + r.qmax) / 2.0) : std::nearbyint(r.qmin - rmin / scale);
  zp = std::clamp(zp, static_cast<double>(r.qmin), static_cast<double>(r.qmax));
  p.zero_point = static_cast<int32_t>(zp);
  return p;
}

namespace {

// Writes round(x / scale) + zp saturated to [lo, hi] as the integer type.
void QuantizeRun(const float* x, int64_t n, int64_t stride, float scale, int32_t zp, int lo, int hi, DataType type,
                 void* out, int64_t out_offset) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::nearbyint(static_cast<double>(x[i * stride]) / scale) + zp;
    const int q = static_cast<int>(std::clamp(v, static_cast<double>(lo), static_cast<double>(hi)));
    const int64_t at = out_offset + i * stride;
    if (type == DataType::kInt8) static_cast<int8_t*>(out)[at] = static_cast<int8_t>(q);
    else static_cast<uint8_t*>(out)[at] = static_cast<uint8_t>(q);
  }
}

}  // namespace

Tensor ScaleTensor(float scale) { return Tensor::Scalar<float>(scale); }

Tensor ZeroPointTensor(DataType type, int32_t zero_point) {
  if (type == DataType::kInt8) return Tensor::Scalar<int8_t>(static_cast<int8_t>(zero_point));
  if (type == DataType::kUInt8) return Tensor::Scalar<uint8_t>(static_cast<uint8_t>(zero_point));
  if (type == DataType::kInt32) return Tensor::Scalar<int32_t>(zero_point);
  TS_THROW(kNotImplemented, "zero point of type ", DataTypeName(type));
}

QuantizedWeight QuantizeWeight(const Tensor& w, DataType type, int64_t axis, bool symmetric, bool reduce_range) {
  TS_CHECK(w.dtype() == DataType::kFloat, kNotImplemented, "weights of type ", DataTypeName(w.dtype()),
           " are not quantized (float only)");
  const IntRange r = IntRangeFor(type, symmetric, reduce_range);
  QuantizedWeight q;
  q.values = Tensor(type, w.shape());
  q.axis = axis;
  const float* x = w.data<float>();
  if (axis < 0) {
    double lo = 0, hi = 0;
    for (int64_t i = 0; i < w.numel(); ++i) {
      lo = std::min(lo, static_cast<double>(x[i]));
      hi = std::max(hi, static_cast<double>(x[i]));
    }
    const QuantParams p = ComputeQuantParams(lo, hi, r, symmetric);
    QuantizeRun(x, w.numel(), 1, p.scale, p.zero_point, r.qmin, r.qmax, type, q.values.raw_data(), 0);
    q.scale = ScaleTensor(p.scale);
    q.zero_point = ZeroPointTensor(type, p.zero_point);
    return q;
  }
  TS_CHECK(axis < w.rank(), kInvalidArgument, "per-channel axis ", axis, " is outside weight ", w.Describe());
  // The weight as [outer, channels, inner]; one range per channel.
  const int64_t channels = w.dim(axis);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= w.dim(d);
  for (int64_t d = axis + 1; d < w.rank(); ++d) inner *= w.dim(d);
  q.scale = Tensor(DataType::kFloat, {channels});
  q.zero_point = Tensor(type, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    double lo = 0, hi = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const double v = x[(o * channels + c) * inner + i];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    const QuantParams p = ComputeQuantParams(lo, hi, r, symmetric);
    q.scale.data<float>()[c] = p.scale;
    if (type == DataType::kInt8) q.zero_point.data<int8_t>()[c] = static_cast<int8_t>(p.zero_point);
    else q.zero_point.data<uint8_t>()[c] = static_cast<uint8_t>(p.zero_point);
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t base = (o * channels + c) * inner;
      QuantizeRun(x + base, inner, 1, p.scale, p.zero_point, r.qmin, r.qmax, type, q.values.raw_data(), base);
    }
  }
  return q;
}

QuantizedBias QuantizeBias(const Tensor& bias, float input_scale, const Tensor& weight_scale) {
  TS_CHECK(bias.dtype() == DataType::kFloat && bias.rank() == 1, kInvalidArgument, "bias ", bias.Describe(),
           " is not a 1-D float tensor");
  const int64_t n = bias.numel(), channels = weight_scale.numel();
  TS_CHECK(channels == 1 || channels == n, kInvalidArgument, "bias ", bias.Describe(), " does not match ",
           channels, " weight scales");
  QuantizedBias q;
  q.values = Tensor(DataType::kInt32, bias.shape());
  q.scale = channels == 1 ? Tensor(DataType::kFloat, {}) : Tensor(DataType::kFloat, {channels});
  for (int64_t c = 0; c < channels; ++c) q.scale.data<float>()[c] = input_scale * weight_scale.data<float>()[c];
  for (int64_t i = 0; i < n; ++i) {
    const float s = q.scale.data<float>()[channels == 1 ? 0 : i];
    double v = s > 0 ? std::nearbyint(static_cast<double>(bias.data<float>()[i]) / s) : 0.0;
    v = std::clamp(v, -2147483647.0, 2147483647.0);
    q.values.data<int32_t>()[i] = static_cast<int32_t>(v);
  }
  return q;
}

}  // namespace tessera::quant
