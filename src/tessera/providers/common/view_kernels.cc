#include "tessera/providers/common/view_kernels.h"

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/shape_rules.h"

namespace tessera::cpu {

namespace {

// ---- Reshape -----------------------------------------------------------------
class Reshape final : public OpKernel {
 public:
  explicit Reshape(const KernelInfo& info) : opset_(info.opset()) {
    allowzero_ = info.attr_int("allowzero", 0) != 0;
    if (opset_ < 5) shape_attr_ = info.attr_ints("shape", {});
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> req = opset_ < 5 ? shape_attr_ : ReadShapeInput(ctx.input(1), "shape", ctx);
    Shape out(req.size());
    int64_t unknown = -1;
    int64_t known = 1;
    bool has_zero_dim = false;
    for (size_t i = 0; i < req.size(); ++i) {
      int64_t v = req[i];
      if (v == 0 && !allowzero_) {
        if (static_cast<int64_t>(i) >= x.rank())
          ctx.Fail("shape entry ", i, " is 0 (copy the input dim) but the input ", x.Describe(), " has rank ",
                   x.rank());
        v = x.dim(static_cast<int64_t>(i));
      }
      if (v == -1) {
        if (unknown >= 0) ctx.Fail("shape ", ShapeToString(req), " has more than one -1");
        unknown = static_cast<int64_t>(i);
        out[i] = -1;
        continue;
      }
      if (v < -1) ctx.Fail("shape ", ShapeToString(req), " has an invalid entry ", v);
      if (v == 0) has_zero_dim = true;
      out[i] = v;
      if (v != 0) {
        if (known > std::numeric_limits<int64_t>::max() / v) ctx.Fail("shape ", ShapeToString(req), " is too large");
        known *= v;
      }
    }
    if (unknown >= 0) {
      if (has_zero_dim) {
        if (allowzero_) ctx.Fail("shape ", ShapeToString(req), " has both -1 and 0 with allowzero=1");
        // Zero-sized output: the -1 dim is ambiguous unless the input is empty.
        if (x.numel() != 0) ctx.Fail("cannot reshape ", x.Describe(), " to ", ShapeToString(req));
        out[static_cast<size_t>(unknown)] = 0;
      } else {
        if (x.numel() % known != 0) ctx.Fail("cannot reshape ", x.Describe(), " to ", ShapeToString(req));
        out[static_cast<size_t>(unknown)] = x.numel() / known;
      }
    } else {
      int64_t n = has_zero_dim ? 0 : known;
      if (n != x.numel()) ctx.Fail("cannot reshape ", x.Describe(), " to ", ShapeToString(out));
    }
    ctx.set_output(0, x.Reshaped(std::move(out)));
  }

 private:
  int64_t opset_;
  bool allowzero_ = false;
  std::vector<int64_t> shape_attr_;
};

// ---- Flatten -----------------------------------------------------------------
class Flatten final : public OpKernel {
 public:
  explicit Flatten(const KernelInfo& info) : axis_(info.attr_int("axis", 1)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    int64_t axis = axis_;
    if (axis < -r || axis > r) ctx.Fail("axis ", axis_, " is out of range for rank ", r);
    if (axis < 0) axis += r;
    const int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis));
    ctx.set_output(0, x.Reshaped({outer, inner}));
  }

 private:
  int64_t axis_;
};

// ---- Squeeze / Unsqueeze -------------------------------------------------------
class Squeeze final : public OpKernel {
 public:
  explicit Squeeze(const KernelInfo& info) : opset_(info.opset()) {
    if (opset_ < 13 && info.has_attr("axes")) {
      axes_ = info.attr_ints("axes");
      has_axes_ = true;
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> axes = axes_;
    bool has_axes = has_axes_;
    if (opset_ >= 13 && ctx.has_input(1)) {
      axes = ReadShapeInput(ctx.input(1), "axes", ctx);
      has_axes = true;
    }
    std::vector<bool> drop(static_cast<size_t>(r), false);
    if (has_axes) {
      for (int64_t a : axes) {
        int64_t n = NormalizeAxis(a, r, ctx);
        if (x.dim(n) != 1) ctx.Fail("cannot squeeze axis ", a, " of ", x.Describe(), ": its size is not 1");
        drop[static_cast<size_t>(n)] = true;
      }
    } else {
      for (int64_t i = 0; i < r; ++i) drop[static_cast<size_t>(i)] = x.dim(i) == 1;
    }
    Shape out;
    for (int64_t i = 0; i < r; ++i)
      if (!drop[static_cast<size_t>(i)]) out.push_back(x.dim(i));
    ctx.set_output(0, x.Reshaped(std::move(out)));
  }

 private:
  int64_t opset_;
  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

class Unsqueeze final : public OpKernel {
 public:
  explicit Unsqueeze(const KernelInfo& info) : opset_(info.opset()) {
    if (opset_ < 13) axes_ = info.attr_ints("axes");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes = opset_ < 13 ? axes_ : ReadShapeInput(ctx.input(1), "axes", ctx);
    const int64_t out_rank = x.rank() + static_cast<int64_t>(axes.size());
    std::vector<bool> ins(static_cast<size_t>(out_rank), false);
    for (int64_t a : axes) {
      int64_t n = NormalizeAxis(a, out_rank, ctx);
      if (ins[static_cast<size_t>(n)]) ctx.Fail("axes contains ", a, " more than once");
      ins[static_cast<size_t>(n)] = true;
    }
    Shape out(static_cast<size_t>(out_rank));
    int64_t j = 0;
    for (int64_t i = 0; i < out_rank; ++i) out[static_cast<size_t>(i)] = ins[static_cast<size_t>(i)] ? 1 : x.dim(j++);
    ctx.set_output(0, x.Reshaped(std::move(out)));
  }

 private:
  int64_t opset_;
  std::vector<int64_t> axes_;
};

// ---- Shape / Size --------------------------------------------------------------
class ShapeOp final : public OpKernel {
 public:
  explicit ShapeOp(const KernelInfo& info) {
    start_ = info.attr_int("start", 0);
    has_end_ = info.has_attr("end");
    end_ = info.attr_int("end", 0);
  }
  void Compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_tensor()) ctx.Fail("Shape expects a tensor input, got ", v.Describe());
    const Tensor& x = v.tensor();
    const int64_t r = x.rank();
    int64_t s = start_, e = has_end_ ? end_ : r;
    if (s < 0) s += r;
    if (e < 0) e += r;
    s = std::clamp<int64_t>(s, 0, r);
    e = std::clamp<int64_t>(e, 0, r);
    int64_t n = std::max<int64_t>(e - s, 0);
    Tensor& out = ctx.allocate_output(0, DataType::kInt64, {n});
    int64_t* o = out.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) o[i] = x.dim(s + i);
  }

 private:
  int64_t start_ = 0, end_ = 0;
  bool has_end_ = false;
};

class Size final : public OpKernel {
 public:
  explicit Size(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DataType::kInt64, {});
    out.data<int64_t>()[0] = x.numel();
  }
};

// ---- Identity ------------------------------------------------------------------
class Identity final : public OpKernel {
 public:
  explicit Identity(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input_value(0));
  }
};

}  // namespace

std::vector<KernelRow> ViewKernels() {
  auto all = types::All();
  return {
      {"ai.onnx", "Reshape", 1, 4, all, Make<Reshape>()},
      {"ai.onnx", "Reshape", 5, 13, all, Make<Reshape>()},
      {"ai.onnx", "Reshape", 14, kMaxOnnxOpset, all, Make<Reshape>()},
      {"ai.onnx", "Flatten", 1, kMaxOnnxOpset, all, Make<Flatten>()},
      {"ai.onnx", "Squeeze", 1, 12, all, Make<Squeeze>()},
      {"ai.onnx", "Squeeze", 13, kMaxOnnxOpset, all, Make<Squeeze>()},
      {"ai.onnx", "Unsqueeze", 1, 12, all, Make<Unsqueeze>()},
      {"ai.onnx", "Unsqueeze", 13, kMaxOnnxOpset, all, Make<Unsqueeze>()},
      {"ai.onnx", "Shape", 1, 14, all, Make<ShapeOp>()},
      {"ai.onnx", "Shape", 15, kMaxOnnxOpset, all, Make<ShapeOp>()},
      {"ai.onnx", "Size", 1, kMaxOnnxOpset, all, Make<Size>()},
      {"ai.onnx", "Identity", 1, kMaxOnnxOpset, {}, Make<Identity>()},
  };
}

}  // namespace tessera::cpu
