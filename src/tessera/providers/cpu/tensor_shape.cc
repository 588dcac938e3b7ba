// Kernels that create tensors (Constant, ConstantOfShape, Range, EyeLike),
// plus Expand and Dropout. The views and shape queries (Reshape, Shape...)
// are providers/common/view_kernels.h.
#include <cmath>
#include <limits>
#include <random>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

namespace {

// ---- Expand ------------------------------------------------------------------
class Expand final : public OpKernel {
 public:
  explicit Expand(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> shape = ReadShapeInput(ctx.input(1), "shape", ctx);
    for (int64_t d : shape)
      if (d < 0) ctx.Fail("shape ", ShapeToString(shape), " has a negative entry");
    Shape out_shape = BroadcastShapes({x.shape(), shape}, ctx);
    if (out_shape == x.shape()) {
      ctx.set_output(0, x);
      return;
    }
    const size_t r = out_shape.size();
    const size_t off = r - x.shape().size();
    std::vector<int64_t> in_strides = StridesOf(x.shape());
    std::vector<int64_t> st(r, 0);
    for (size_t i = 0; i < x.shape().size(); ++i) st[off + i] = x.shape()[i] == 1 ? 0 : in_strides[i];
    ctx.set_output(0, layout::WithUnpacked(x, [&](const Tensor& t) {
                     Tensor out(t.dtype(), out_shape);
                     if (out.numel() > 0)
                       layout::StridedCopy(t.raw_data(), out.raw_data(), out_shape, st, t.dtype(), ctx);
                     return out;
                   }));
  }
};

// ---- Constant ------------------------------------------------------------------
class Constant final : public OpKernel {
 public:
  explicit Constant(const KernelInfo& info) {
    static const char* kNames[] = {"value",      "sparse_value", "value_float",  "value_floats",
                                   "value_int",  "value_ints",   "value_string", "value_strings"};
    int found = 0;
    for (const char* n : kNames) found += info.has_attr(n) ? 1 : 0;
    if (found != 1) info.Fail("Constant needs exactly one value attribute, found ", found);
    if (info.has_attr("value")) {
      value_ = info.attr("value").t;
    } else if (info.has_attr("sparse_value")) {
      value_ = info.attr("sparse_value").t;
    } else if (info.has_attr("value_float")) {
      value_ = Tensor::Scalar<float>(info.attr_float("value_float"));
    } else if (info.has_attr("value_floats")) {
      auto v = info.attr_floats("value_floats");
      value_ = Tensor::FromVector<float>(v, {static_cast<int64_t>(v.size())});
    } else if (info.has_attr("value_int")) {
      value_ = Tensor::Scalar<int64_t>(info.attr_int("value_int"));
    } else if (info.has_attr("value_ints")) {
      auto v = info.attr_ints("value_ints");
      value_ = Tensor::FromVector<int64_t>(v, {static_cast<int64_t>(v.size())});
    } else if (info.has_attr("value_string")) {
      value_ = Tensor::Scalar<std::string>(info.attr_string("value_string"));
    } else {
      auto v = info.attr_strings("value_strings");
      value_ = Tensor::FromVector<std::string>(v, {static_cast<int64_t>(v.size())});
    }
    if (!value_.defined()) info.Fail("Constant's value attribute holds no tensor");
  }
  void Compute(KernelContext& ctx) const override { ctx.set_output(0, value_); }

 private:
  Tensor value_;
};

// ---- ConstantOfShape -------------------------------------------------------------
class ConstantOfShape final : public OpKernel {
 public:
  explicit ConstantOfShape(const KernelInfo& info) {
    if (info.has_attr("value")) {
      value_ = info.attr_tensor("value");
      if (value_.numel() != 1) info.Fail("value must hold exactly one element, got ", value_.Describe());
    } else {
      value_ = Tensor::Scalar<float>(0.0f);
    }
  }
  void Compute(KernelContext& ctx) const override {
    std::vector<int64_t> shape = ReadShapeInput(ctx.input(0), "shape", ctx);
    for (int64_t d : shape)
      if (d < 0) ctx.Fail("shape ", ShapeToString(shape), " has a negative entry");
    const DataType dt = value_.dtype();
    Tensor& out = ctx.allocate_output(0, dt, shape);
    const int64_t n = out.numel();
    if (n == 0) return;
    if (dt == DataType::kString) {
      const std::string& v = value_.data<std::string>()[0];
      std::string* o = out.data<std::string>();
      for (int64_t i = 0; i < n; ++i) o[i] = v;
      return;
    }
    if (IsSubByte(dt)) {
      int bits = ElementBits(dt);
      uint8_t v = static_cast<const uint8_t*>(value_.raw_data())[0] & static_cast<uint8_t>((1u << bits) - 1);
      uint8_t byte = 0;
      for (int k = 0; k < 8 / bits; ++k) byte = static_cast<uint8_t>(byte | (v << (k * bits)));
      std::memset(out.raw_data(), byte, out.nbytes());
      return;
    }
    const size_t es = ElementSize(out);
    const auto* src = static_cast<const unsigned char*>(value_.raw_data());
    bool all_zero = true;
    for (size_t i = 0; i < es; ++i) all_zero = all_zero && src[i] == 0;
    if (all_zero) {
      std::memset(out.raw_data(), 0, out.nbytes());
      return;
    }
    layout::DispatchWord(dt, ctx, [&]<typename W>() {
      if constexpr (!std::is_same_v<W, std::string>) {
        W v;
        std::memcpy(&v, src, sizeof(W));
        W* o = out.data<W>();
        ParallelFor(ctx.thread_pool(), n, 1 << 16, [&](int64_t b, int64_t e) { std::fill(o + b, o + e, v); });
      }
    });
  }

 private:
  Tensor value_;
};

// ---- Range -----------------------------------------------------------------------
class Range final : public OpKernel {
 public:
  // stash_type (opset 27): 1 computes float16/bfloat16 ranges in float; any
  // other value computes start + i * delta with each step rounded to T.
  explicit Range(const KernelInfo& info) : stash_float_(info.attr_int("stash_type", 1) == 1) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& ts = ctx.input(0);
    const Tensor& tl = ctx.input(1);
    const Tensor& td = ctx.input(2);
    if (ts.numel() != 1 || tl.numel() != 1 || td.numel() != 1)
      ctx.Fail("start, limit and delta must be scalars, got ", ts.Describe(), ", ", tl.Describe(), ", ",
               td.Describe());
    if (tl.dtype() != ts.dtype() || td.dtype() != ts.dtype())
      ctx.Fail("start, limit and delta must have the same type");
    const DataType dt = ts.dtype();
    if (IsInteger(dt)) {
      DispatchInt(dt, ctx, [&]<typename T>() {
        const int64_t s = static_cast<int64_t>(ts.data<T>()[0]);
        const int64_t l = static_cast<int64_t>(tl.data<T>()[0]);
        const int64_t d = static_cast<int64_t>(td.data<T>()[0]);
        if (d == 0) ctx.Fail("delta cannot be 0");
        // ceil((l - s) / d) in 128-bit-safe arithmetic.
        __int128 diff = static_cast<__int128>(l) - s;
        __int128 n = 0;
        if ((diff > 0 && d > 0) || (diff < 0 && d < 0)) {
          __int128 ad = d > 0 ? d : -static_cast<__int128>(d);
          __int128 adiff = diff > 0 ? diff : -diff;
          n = (adiff + ad - 1) / ad;
        }
        Tensor& out = ctx.allocate_output(0, dt, {static_cast<int64_t>(n)});
        T* o = out.data<T>();
        for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) o[i] = static_cast<T>(s + i * d);
      });
      return;
    }
    DispatchFloat(dt, ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      const C s = Load(ts.data<T>()[0]);
      const C l = Load(tl.data<T>()[0]);
      const C d = Load(td.data<T>()[0]);
      if (d == 0) ctx.Fail("delta cannot be 0");
      double nd = std::ceil((static_cast<double>(l) - static_cast<double>(s)) / static_cast<double>(d));
      if (!(nd >= 0)) nd = 0;  // also catches NaN
      if (nd > static_cast<double>(std::numeric_limits<int32_t>::max()) * 64)
        ctx.Fail("Range would produce ", nd, " elements");
      const int64_t n = static_cast<int64_t>(nd);
      Tensor& out = ctx.allocate_output(0, dt, {n});
      T* o = out.data<T>();
      if (std::is_same_v<C, T> || stash_float_) {
        for (int64_t i = 0; i < n; ++i) o[i] = StoreAs<T>(static_cast<C>(s + static_cast<C>(i) * d));
      } else {
        for (int64_t i = 0; i < n; ++i) {
          const C iv = Load(StoreAs<T>(static_cast<C>(i)));
          const C step = Load(StoreAs<T>(static_cast<C>(iv * d)));
          o[i] = StoreAs<T>(static_cast<C>(s + step));
        }
      }
    });
  }

 private:
  bool stash_float_ = true;
};

// ---- Dropout -----------------------------------------------------------------------
class Dropout final : public OpKernel {
 public:
  explicit Dropout(const KernelInfo& info) : opset_(info.opset()) {
    ratio_ = info.attr_float("ratio", 0.5f);
    has_seed_ = info.has_attr("seed");
    seed_ = info.attr_int("seed", 0);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    bool training = false;
    float ratio = ratio_;
    if (opset_ >= 12) {
      if (ctx.has_input(1)) {
        const Tensor& r = ctx.input(1);
        if (r.numel() != 1) ctx.Fail("ratio must be a scalar, got ", r.Describe());
        ratio = static_cast<float>(r.GetAsDouble(0));
      }
      if (ctx.has_input(2)) {
        const Tensor& tm = ctx.input(2);
        if (tm.numel() != 1 || tm.dtype() != DataType::kBool)
          ctx.Fail("training_mode must be a bool scalar, got ", tm.Describe());
        training = tm.data<bool>()[0];
      }
    }
    // Opsets 1-6 carried is_test; as an inference runtime Tessera always runs
    // those in test mode (Y = X), as later opsets do without training_mode.
    if (training && ratio != 0.0f) {
      if (!(ratio >= 0.0f && ratio < 1.0f)) ctx.Fail("ratio must be in [0, 1), got ", ratio);
      // The mask draws u ~ U[0, 1) per element exactly as numpy's legacy
      // RandomState(seed).uniform does (MT19937, 53-bit doubles), which is how
      // the ONNX reference defines seeded Dropout: keep where u >= ratio.
      std::mt19937 rng(has_seed_ ? static_cast<uint32_t>(seed_) : std::random_device{}());
      const float scale = 1.0f / (1.0f - ratio);
      const int64_t n = x.numel();
      std::vector<uint8_t> keep(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t a = rng() >> 5, b = rng() >> 6;
        const double u = (a * 67108864.0 + b) / 9007199254740992.0;
        keep[static_cast<size_t>(i)] = u >= static_cast<double>(ratio) ? 1 : 0;
      }
      Tensor out(x.dtype(), x.shape());
      DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
        const T* a = x.data<T>();
        T* o = out.data<T>();
        for (int64_t i = 0; i < n; ++i)
          o[i] = StoreAs<T>(Load(a[i]) * static_cast<float>(keep[static_cast<size_t>(i)]) * scale);
      });
      ctx.set_output(0, out);
      if (ctx.output_requested(1)) {
        Tensor& m = ctx.allocate_output(1, DataType::kBool, x.shape());
        for (int64_t i = 0; i < n; ++i) m.data<bool>()[i] = keep[static_cast<size_t>(i)] != 0;
      }
      return;
    }
    ctx.set_output(0, x);
    if (ctx.output_requested(1)) {
      if (opset_ < 10) {
        // Mask of type T, all ones.
        Tensor& m = ctx.allocate_output(1, x.dtype(), x.shape());
        DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
          T* o = m.data<T>();
          for (int64_t i = 0; i < m.numel(); ++i) o[i] = StoreAs<T>(1.0f);
        });
      } else {
        Tensor& m = ctx.allocate_output(1, DataType::kBool, x.shape());
        bool* o = m.data<bool>();
        for (int64_t i = 0; i < m.numel(); ++i) o[i] = true;
      }
    }
  }

 private:
  int64_t opset_;
  float ratio_ = 0.5f;
  bool has_seed_ = false;
  int64_t seed_ = 0;
};

// ---- EyeLike ---------------------------------------------------------------------
class EyeLike final : public OpKernel {
 public:
  explicit EyeLike(const KernelInfo& info) {
    k_ = info.attr_int("k", 0);
    if (info.has_attr("dtype")) {
      int64_t d = info.attr_int("dtype");
      if (!IsKnownDataType(static_cast<int32_t>(d))) info.Fail("dtype ", d, " is not a known element type");
      dtype_ = static_cast<DataType>(d);
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 2) ctx.Fail("EyeLike needs a 2-D input, got ", x.Describe());
    const DataType dt = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    Tensor& out = ctx.allocate_output(0, dt, x.shape());
    const int64_t rows = x.dim(0), cols = x.dim(1);
    auto fill = [&]<typename T>(T one) {
      T* o = out.data<T>();
      if (out.nbytes() > 0) std::memset(static_cast<void*>(o), 0, out.nbytes());
      for (int64_t i = 0; i < rows; ++i) {
        int64_t j = i + k_;
        if (j >= 0 && j < cols) o[i * cols + j] = one;
      }
    };
    switch (dt) {
      case DataType::kBool: fill(true); return;
      case DataType::kString: ctx.Fail("EyeLike does not support string outputs");
      default: break;
    }
    DispatchNumeric(dt, ctx, [&]<typename T>() { fill(StoreAs<T>(1.0f)); });
  }

 private:
  int64_t k_ = 0;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

std::vector<KernelRow> ShapeKernels() {
  auto all = types::All();
  auto floats = types::Floats();
  return {
      {"ai.onnx", "Expand", 8, kMaxOnnxOpset, all, Make<Expand>()},
      {"ai.onnx", "Constant", 1, kMaxOnnxOpset, {}, Make<Constant>()},
      {"ai.onnx", "ConstantOfShape", 9, kMaxOnnxOpset, {DataType::kInt64}, Make<ConstantOfShape>()},
      {"ai.onnx", "Range", 11, 26,
       {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32, DataType::kInt64},
       Make<Range>()},
      {kMicrosoftDomain, "Range", 1, 1, {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32,
                                          DataType::kInt64}, Make<Range>()},  // ONNX Runtime's, before opset 11
      {"ai.onnx", "Range", 27, kMaxOnnxOpset,
       {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32, DataType::kInt64,
        DataType::kFloat16, DataType::kBFloat16},
       Make<Range>()},
      {"ai.onnx", "Dropout", 1, 9, floats, Make<Dropout>()},
      {"ai.onnx", "Dropout", 10, 11, floats, Make<Dropout>()},
      {"ai.onnx", "Dropout", 12, 21, floats, Make<Dropout>()},
      {"ai.onnx", "Dropout", 22, kMaxOnnxOpset,
       types::Join(floats, {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                            DataType::kFloat8E5M2FNUZ}),
       Make<Dropout>()},
      {"ai.onnx", "EyeLike", 9, kMaxOnnxOpset,
       types::Join(types::Numeric(), {DataType::kBool}), Make<EyeLike>()},
  };
}

}  // namespace tessera::cpu
