// Padding kernels: Pad (constant, reflect, edge, wrap) and CenterCropPad
// (crop or pad each axis about its centre).
#include <algorithm>
#include <optional>
#include <string>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

namespace {

using layout::DispatchWord;
using layout::WithUnpacked;

// ---- Pad ---------------------------------------------------------------------
enum class PadMode { kConstant, kReflect, kEdge, kWrap };

PadMode ParsePadMode(const std::string& m, const KernelInfo& info) {
  if (m == "constant") return PadMode::kConstant;
  if (m == "reflect") return PadMode::kReflect;
  if (m == "edge") return PadMode::kEdge;
  if (m == "wrap" && info.opset() >= 19) return PadMode::kWrap;
  info.Fail("unsupported pad mode '", m, "'");
}

// Maps an out-of-range coordinate c of an axis of size d (> 0).
inline int64_t MapPadIndex(int64_t c, int64_t d, PadMode mode) {
  if (c >= 0 && c < d) return c;
  switch (mode) {
    case PadMode::kEdge: return c < 0 ? 0 : d - 1;
    case PadMode::kReflect: {
      if (d == 1) return 0;
      int64_t p = 2 * (d - 1);
      c %= p;
      if (c < 0) c += p;
      return c < d ? c : p - c;
    }
    case PadMode::kWrap: {
      c %= d;
      if (c < 0) c += d;
      return c;
    }
    default: return -1;
  }
}

// Pads (or, with negative pads, crops) t; out coordinate o reads input
// coordinate o - pb. t is not sub-byte; value is a scalar of t's type or null.
Tensor PadTensor(const Tensor& t, const std::vector<int64_t>& pb, const std::vector<int64_t>& pe, PadMode mode,
                 const Tensor* value, const KernelContext& ctx) {
  const int64_t r = t.rank();
  if (r == 0) return t;
  Shape out_shape(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) {
    const int64_t d = t.dim(i);
    const int64_t o = d + pb[static_cast<size_t>(i)] + pe[static_cast<size_t>(i)];
    if (o < 0)
      ctx.Fail("pads ", pb[static_cast<size_t>(i)], " and ", pe[static_cast<size_t>(i)], " remove more than axis ", i,
               " of ", t.Describe(), " holds");
    if (mode != PadMode::kConstant && d == 0 && o > 0) ctx.Fail("cannot pad the empty axis ", i, " in this mode");
    out_shape[static_cast<size_t>(i)] = o;
  }
  Tensor out(t.dtype(), out_shape);
  if (out.numel() == 0) return out;
  const std::vector<int64_t> in_strides = StridesOf(t.shape());
  const int64_t L = out_shape[static_cast<size_t>(r - 1)];
  const int64_t d_last = t.dim(r - 1);
  const int64_t b_last = pb[static_cast<size_t>(r - 1)];
  const int64_t rows = out.numel() / L;
  const int64_t lo = std::clamp<int64_t>(b_last, 0, L);
  const int64_t hi = std::clamp<int64_t>(b_last + d_last, lo, L);
  DispatchWord(t.dtype(), ctx, [&]<typename W>() {
    W fill{};
    if (value != nullptr) fill = value->data<W>()[0];
    const W* src = t.data<W>();
    W* dst = out.data<W>();
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 16384 / L), [&](int64_t b, int64_t e) {
      for (int64_t row = b; row < e; ++row) {
        W* o = dst + row * L;
        int64_t rem = row;
        int64_t in_off = 0;
        bool blank = false;
        for (int64_t k = r - 2; k >= 0; --k) {
          const int64_t ok = rem % out_shape[static_cast<size_t>(k)];
          rem /= out_shape[static_cast<size_t>(k)];
          const int64_t dk = t.dim(k);
          int64_t c = ok - pb[static_cast<size_t>(k)];
          if (c < 0 || c >= dk) {
            if (mode == PadMode::kConstant) {
              blank = true;
              break;
            }
            c = MapPadIndex(c, dk, mode);
          }
          in_off += c * in_strides[static_cast<size_t>(k)];
        }
        if (blank) {
          for (int64_t j = 0; j < L; ++j) o[j] = fill;
          continue;
        }
        const W* s = src + in_off;
        if (mode == PadMode::kConstant) {
          for (int64_t j = 0; j < lo; ++j) o[j] = fill;
          for (int64_t j = hi; j < L; ++j) o[j] = fill;
        } else {
          for (int64_t j = 0; j < lo; ++j) o[j] = s[MapPadIndex(j - b_last, d_last, mode)];
          for (int64_t j = hi; j < L; ++j) o[j] = s[MapPadIndex(j - b_last, d_last, mode)];
        }
        if (hi > lo) layout::CopyN(s + (lo - b_last), hi - lo, o + lo);
      }
    });
  });
  return out;
}

class Pad final : public OpKernel {
 public:
  explicit Pad(const KernelInfo& info) : opset_(info.opset()) {
    mode_ = ParsePadMode(info.attr_string("mode", "constant"), info);
    if (opset_ < 11) {
      pads_ = info.attr_ints(opset_ < 2 ? "paddings" : "pads");
      value_ = info.attr_float("value", 0.0f);
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> pads = opset_ < 11 ? pads_ : ReadInts(ctx.input(1));
    const bool has_axes = opset_ >= 18 && ctx.has_input(3);
    const std::vector<int64_t> axes = has_axes ? ReadInts(ctx.input(3)) : std::vector<int64_t>{};
    const PadAmounts amounts = ResolvePads(ctx, r, pads, has_axes ? &axes : nullptr);
    const std::vector<int64_t>& pb = amounts.begin;
    const std::vector<int64_t>& pe = amounts.end;
    // The constant value as a tensor of x's type.
    Tensor value;
    if (mode_ == PadMode::kConstant) {
      if (opset_ < 11) {
        value = Tensor(x.dtype(), {});
        DispatchFloat(x.dtype(), ctx, [&]<typename T>() { value.data<T>()[0] = StoreAs<T>(value_); });
      } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
        value = ctx.input(2);
        if (value.dtype() != x.dtype())
          ctx.Fail("constant_value ", value.Describe(), " must have the input's type ", DataTypeName(x.dtype()));
        if (value.numel() != 1) ctx.Fail("constant_value must be a scalar, got ", value.Describe());
      }
    }
    const bool sub = IsSubByte(x.dtype());
    if (sub && value.defined()) value = layout::UnpackSubByte(value);
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     return PadTensor(t, pb, pe, mode_, value.defined() ? &value : nullptr, ctx);
                   }));
  }

 private:
  int64_t opset_;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_;
  float value_ = 0.0f;
};

// ---- CenterCropPad -------------------------------------------------------------
class CenterCropPad final : public OpKernel {
 public:
  explicit CenterCropPad(const KernelInfo& info) : axes_(info.optional_attr_ints("axes")) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> shape = ReadInts(ctx.input(1));
    std::vector<int64_t> axes;
    if (axes_) {
      for (int64_t a : *axes_) axes.push_back(NormalizeAxis(a, r, ctx));
    } else {
      for (int64_t i = 0; i < r; ++i) axes.push_back(i);
    }
    if (shape.size() != axes.size())
      ctx.Fail("shape has ", shape.size(), " entries but there are ", axes.size(), " axes");
    std::vector<int64_t> pb(static_cast<size_t>(r), 0), pe(static_cast<size_t>(r), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t d = x.dim(axes[i]);
      const int64_t tgt = shape[i];
      if (tgt < 0) ctx.Fail("shape entries must be non-negative, got ", tgt);
      int64_t b = tgt >= d ? (tgt - d) / 2 : -((d - tgt) / 2);
      pb[static_cast<size_t>(axes[i])] = b;
      pe[static_cast<size_t>(axes[i])] = tgt - d - b;
    }
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     return PadTensor(t, pb, pe, PadMode::kConstant, nullptr, ctx);
                   }));
  }

 private:
  std::optional<std::vector<int64_t>> axes_;  // absent: every axis
};

}  // namespace

std::vector<KernelRow> PadKernels() {
  auto all = types::All();
  return {
      {"ai.onnx", "Pad", 1, 1, types::Floats(), Make<Pad>()},
      {"ai.onnx", "Pad", 2, 10, types::Floats(), Make<Pad>()},
      {"ai.onnx", "Pad", 11, 17, all, Make<Pad>()},
      {"ai.onnx", "Pad", 18, 18, all, Make<Pad>()},
      {"ai.onnx", "Pad", 19, kMaxOnnxOpset, all, Make<Pad>()},
      {"ai.onnx", "CenterCropPad", 18, kMaxOnnxOpset, all, Make<CenterCropPad>()},
  };
}

}  // namespace tessera::cpu
