// Integer convolutions: ConvInteger (int32 sums) and QLinearConv
// (requantized bytes). 2-D int8/uint8 convolutions run on the int8 kernels
// (int8_conv.h); the others run the float ConvForward in double, which is
// exact for 8-bit operands.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/conv_impl.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/int8_conv.h"
#include "tessera/providers/cpu/quantized_operands.h"

namespace tessera::cpu {

namespace {

bool IsQ8(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

double Q8Value(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kInt8 ? static_cast<double>(t.data<int8_t>()[i])
                                      : static_cast<double>(t.data<uint8_t>()[i]);
}

double ScalarAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return t.data<float>()[i];
    case DataType::kDouble: return t.data<double>()[i];
    case DataType::kFloat16: return Load(t.data<Float16>()[i]);
    case DataType::kBFloat16: return Load(t.data<BFloat16>()[i]);
    default: return t.GetAsDouble(i);
  }
}

// Per-output-channel values (scalar or [M]) of a zero point / scale.
std::vector<double> PerChannel(const Tensor* t, int64_t m, double dflt, const char* what, const KernelContext& ctx) {
  if (!t) return std::vector<double>(static_cast<size_t>(m), dflt);
  if (t->numel() == 1) return std::vector<double>(static_cast<size_t>(m), ScalarAsDouble(*t, 0));
  if (t->rank() != 1 || t->dim(0) != m)
    ctx.Fail(what, " must be a scalar or have shape [", m, "], got ", t->Describe());
  std::vector<double> v(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) v[static_cast<size_t>(i)] = ScalarAsDouble(*t, i);
  return v;
}

// x - x_zero_point (per tensor) and w - w_zero_point (per output channel) as doubles.
void CenterQuantized(const Tensor& x, const Tensor* xz, const Tensor& w, const Tensor* wz, int64_t m,
                     std::vector<double>& xd, std::vector<double>& wd, const KernelContext& ctx) {
  if (!IsQ8(x.dtype()) || !IsQ8(w.dtype()))
    ctx.Fail("quantized inputs must be int8 or uint8, got ", DataTypeName(x.dtype()), " and ",
             DataTypeName(w.dtype()));
  if (xz) {
    if (xz->dtype() != x.dtype()) ctx.Fail("x_zero_point type does not match x");
    if (xz->numel() != 1) ctx.Fail("x_zero_point must be a scalar, got ", xz->Describe());
  }
  if (wz && wz->dtype() != w.dtype()) ctx.Fail("w_zero_point type does not match w");
  double zx = xz ? Q8Value(*xz, 0) : 0.0;
  xd.resize(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) xd[static_cast<size_t>(i)] = Q8Value(x, i) - zx;
  std::vector<double> zw(static_cast<size_t>(m), 0.0);
  if (wz) {
    if (wz->numel() == 1) {
      std::fill(zw.begin(), zw.end(), Q8Value(*wz, 0));
    } else {
      if (wz->rank() != 1 || wz->dim(0) != m)
        ctx.Fail("w_zero_point must be a scalar or have shape [", m, "], got ", wz->Describe());
      for (int64_t i = 0; i < m; ++i) zw[static_cast<size_t>(i)] = Q8Value(*wz, i);
    }
  }
  wd.resize(static_cast<size_t>(w.numel()));
  int64_t per = m > 0 ? w.numel() / m : 0;
  for (int64_t i = 0; i < w.numel(); ++i) wd[static_cast<size_t>(i)] = Q8Value(w, i) - zw[static_cast<size_t>(i / per)];
}

// ---- the int8 GEMM path of ConvInteger and QLinearConv ---------------------------
// 2-D convolutions of int8/uint8 data with at least 4 output channels per
// group, or depthwise, run on the int8 kernels (int8_conv.h); other
// groupings and ranks keep the double-precision path.

// Weights (input w_input) and their zero points (input zp_input) as the
// int8 path packs them; null when it does not take them. The zero points
// must be one or one per output channel, of the weights' type.
std::shared_ptr<const Int8ConvWeights> PackInt8Weights(const Tensor& w, const Tensor* wz, int64_t group,
                                                       bool constant = false) {
  // Groups of at least 4 output channels, or depthwise (one each).
  if (!IsQ8(w.dtype()) || w.rank() != 4 || group < 1 || w.dim(0) % group != 0) return nullptr;
  if (w.dim(0) / group < 4 && !(w.dim(0) == group && w.dim(1) == 1)) return nullptr;
  if (wz && (wz->dtype() != w.dtype() || (wz->numel() != 1 && (wz->rank() != 1 || wz->dim(0) != w.dim(0)))))
    return nullptr;
  std::vector<int32_t> z(wz ? static_cast<size_t>(wz->numel()) : 1, 0);
  for (size_t i = 0; wz && i < z.size(); ++i) z[i] = static_cast<int32_t>(Q8Value(*wz, static_cast<int64_t>(i)));
  return std::make_shared<const Int8ConvWeights>(w.dtype() == DataType::kInt8, w.dim(0), w.numel() / w.dim(0),
                                                 w.raw_data(), std::move(z), constant ? group : 0);
}

// The weights packed at kernel creation, when they and their zero points
// are constants.
std::shared_ptr<const Int8ConvWeights> PackConstantInt8Weights(const KernelInfo& info, size_t w_input, size_t zp_input,
                                                               int64_t group) {
  const auto w = ConstantWithZeroPointOf(info, w_input, zp_input);
  return w ? PackInt8Weights(*w->value, w->zero_point, group, true) : nullptr;
}

// The int32 sums of a 2-D convolution on the int8 path into y (NCHW), or
// with `requant` its requantized bytes (y then scratch); false when that
// path does not take this call.
bool RunInt8Conv(KernelContext& ctx, const ConvGeom& g, const Tensor& x, const Tensor* xz,
                 const std::shared_ptr<const Int8ConvWeights>& constant, size_t w_input, size_t zp_input, int32_t* y,
                 const Int8Requant* requant = nullptr) {
  if (g.nsp() != 2 || !IsQ8(x.dtype())) return false;
  std::shared_ptr<const Int8ConvWeights> w = constant;
  if (!w) w = PackInt8Weights(ctx.input(w_input), ctx.optional_input(zp_input), g.group);
  if (!w) return false;
  if (xz && (xz->dtype() != x.dtype() || xz->numel() != 1)) return false;  // the reference path says why
  Conv2DShape s;
  s.n = g.n, s.c = g.c, s.h = g.in[0], s.w = g.in[1], s.m = g.m, s.kh = g.kernel[0], s.kw = g.kernel[1];
  s.group = g.group, s.oh = g.out[0], s.ow = g.out[1], s.stride_h = g.stride[0], s.stride_w = g.stride[1];
  s.dil_h = g.dil[0], s.dil_w = g.dil[1], s.pad_t = g.pad[0], s.pad_l = g.pad[1];
  Int8Conv2D(ctx.thread_pool(), s, x.dtype() == DataType::kInt8, x.raw_data(),
             xz ? static_cast<int32_t>(Q8Value(*xz, 0)) : 0, *w, y, requant);
  return true;
}

class ConvInteger final : public OpKernel {
 public:
  explicit ConvInteger(const KernelInfo& info)
      : a_(ParseConvAttrs(info, false)), packed_(PackConstantInt8Weights(info, 1, 3, a_.group)) {
    if (packed_) w_shape_ = info.constant_input(1)->shape();
  }
  bool ReadsInput(size_t i) const override { return packed_ == nullptr || (i != 1 && i != 3); }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor* xz = ctx.optional_input(2);
    if (packed_) {
      ConvGeom g = ResolveConv(a_, x.shape(), w_shape_, ctx);
      Tensor& y = ctx.allocate_output(0, DataType::kInt32, OutputShape(g));
      if (!RunInt8Conv(ctx, g, x, xz, packed_, 1, 3, y.data<int32_t>()))
        ctx.Fail("input of type ", DataTypeName(x.dtype()), " rank ", x.rank(), " with x_zero_point ",
                 xz ? xz->Describe() : "none", " does not fit the packed int8 weights");
      return;
    }
    const Tensor& w = ctx.input(1);
    const Tensor* wz = ctx.optional_input(3);
    ConvGeom g = ResolveConv(a_, x.shape(), w.shape(), ctx);
    Tensor& y = ctx.allocate_output(0, DataType::kInt32, OutputShape(g));
    if (RunInt8Conv(ctx, g, x, xz, nullptr, 1, 3, y.data<int32_t>())) return;
    std::vector<double> xd, wd;
    CenterQuantized(x, xz, w, wz, g.m, xd, wd, ctx);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    ConvForward<double>(g, xd.data(), wd.data(), nullptr, acc.data(), ctx.thread_pool());
    int32_t* yo = y.data<int32_t>();
    for (int64_t i = 0; i < y.numel(); ++i) {
      double v = acc[static_cast<size_t>(i)];
      yo[i] = std::fabs(v) < 9.2e18
                  ? static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(v))))
                  : 0;
    }
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Int8ConvWeights> packed_;  // constant int8 weights
  Shape w_shape_;
};

class QLinearConv final : public OpKernel {
 public:
  explicit QLinearConv(const KernelInfo& info)
      : a_(ParseConvAttrs(info, false)), packed_(PackConstantInt8Weights(info, 3, 5, a_.group)) {
    if (packed_) w_shape_ = info.constant_input(3)->shape();
  }
  bool ReadsInput(size_t i) const override { return packed_ == nullptr || (i != 3 && i != 5); }

  void Compute(KernelContext& ctx) const override {
    const auto [x, x_scale, xz, w_scale, y_scale, yz] = ReadQLinearOperands(ctx);
    const Tensor* b = ctx.optional_input(8);
    ConvGeom g = ResolveConv(a_, x.shape(), packed_ ? w_shape_ : ctx.input(3).shape(), ctx);
    if (x_scale.numel() != 1) ctx.Fail("x_scale must be a scalar, got ", x_scale.Describe());
    if (y_scale.numel() != 1) ctx.Fail("y_scale must be a scalar, got ", y_scale.Describe());
    if (yz && (yz->numel() != 1 || !IsQ8(yz->dtype())))
      ctx.Fail("y_zero_point must be an int8/uint8 scalar, got ", yz->Describe());
    for (const Tensor* s : {&x_scale, &w_scale, &y_scale})
      if (s->dtype() != DataType::kFloat && s->dtype() != DataType::kFloat16 && s->dtype() != DataType::kBFloat16 &&
          s->dtype() != DataType::kDouble)
        ctx.Fail("scales must be float tensors, got ", DataTypeName(s->dtype()));
    std::vector<double> ws = PerChannel(&w_scale, g.m, 1.0, "w_scale", ctx);
    std::vector<int32_t> bias(static_cast<size_t>(g.m), 0);
    if (b) {
      if (b->dtype() != DataType::kInt32) ctx.Fail("B must be int32, got ", DataTypeName(b->dtype()));
      CheckBias(*b, g.m, ctx);
      for (int64_t i = 0; i < g.m; ++i) bias[static_cast<size_t>(i)] = b->data<int32_t>()[i];
    }
    DataType yt = yz ? yz->dtype() : x.dtype();
    Tensor& y = ctx.allocate_output(0, yt, OutputShape(g));
    const double xs = ScalarAsDouble(x_scale, 0), ys = ScalarAsDouble(y_scale, 0);
    const int32_t zy = yz ? static_cast<int32_t>(Q8Value(*yz, 0)) : 0;
    // The int8 path requantizes as it stores (int8_conv.h), per output
    // channel; the sums buffer is its scratch, untouched (never paged in)
    // where the kernel fuses. A buffer kept between runs measured slower at
    // 2 threads: squeezenet QDQ 8.9 -> 10.2 ms.
    std::vector<double> scales(static_cast<size_t>(g.m));
    for (size_t i = 0; i < scales.size(); ++i) scales[i] = xs * ws[i] / ys;
    Int8Requant rq;
    rq.bias = bias.data();
    rq.scale = scales.data();
    rq.zero = zy;
    rq.out_signed = yt == DataType::kInt8;
    rq.out = static_cast<uint8_t*>(y.raw_data());
    const auto sums = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(y.numel()));
    if (RunInt8Conv(ctx, g, x, xz, packed_, 3, 5, sums.get(), &rq)) return;
    if (packed_)
      ctx.Fail("input of type ", DataTypeName(x.dtype()), " with x_zero_point ", xz ? xz->Describe() : "none",
               " does not fit the packed int8 weights");
    // The reference: the sums in double.
    const Tensor& w = ctx.input(3);
    std::vector<double> xd, wd;
    CenterQuantized(x, xz, w, ctx.optional_input(5), g.m, xd, wd, ctx);
    std::vector<double> acc(static_cast<size_t>(y.numel()));
    ConvForward<double>(g, xd.data(), wd.data(), nullptr, acc.data(), ctx.thread_pool());
    const int64_t out_size = g.out_size();
    const double lo = yt == DataType::kInt8 ? -128.0 : 0.0, hi = yt == DataType::kInt8 ? 127.0 : 255.0;
    ParallelFor(ctx.thread_pool(), g.n * g.m, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t plane = p0; plane < p1; ++plane) {
        const size_t m = static_cast<size_t>(plane % g.m);
        for (int64_t i = plane * out_size; i < (plane + 1) * out_size; ++i) {
          double q = std::nearbyint((acc[static_cast<size_t>(i)] + bias[m]) * xs * ws[m] / ys);
          // NaN (a NaN or zero scale) quantizes to the zero point, as in
          // QuantizeLinear; casting NaN to an integer is undefined.
          if (std::isnan(q)) q = 0;
          q = std::clamp(q + zy, lo, hi);
          if (yt == DataType::kInt8) y.data<int8_t>()[i] = static_cast<int8_t>(q);
          else y.data<uint8_t>()[i] = static_cast<uint8_t>(q);
        }
      }
    });
  }

 private:
  ConvAttrs a_;
  std::shared_ptr<const Int8ConvWeights> packed_;  // constant int8 weights
  Shape w_shape_;
};

}  // namespace

std::vector<KernelRow> IntegerConvKernels() {
  std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {"ai.onnx", "ConvInteger", 10, kMaxOnnxOpset, q8, Make<ConvInteger>()},
      {"ai.onnx", "QLinearConv", 10, kMaxOnnxOpset, q8, Make<QLinearConv>()},
      // ONNX Runtime's com.microsoft form: the same op with a channels_last
      // attribute, which its own layout pass sets at run time, not in files.
      {kMicrosoftDomain, "QLinearConv", 1, 1, q8,
       [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
         if (info.attr_int("channels_last", 0) != 0)
           info.Fail("channels_last=1 (NHWC) is not supported; export the NCHW form");
         return std::make_unique<QLinearConv>(info);
       }},
  };
}

}  // namespace tessera::cpu
