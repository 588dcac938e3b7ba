// Activation functions: Relu, LeakyRelu, Elu, Selu, Celu, Sigmoid,
// HardSigmoid, HardSwish, Tanh, Softplus, Softsign, ThresholdedRelu, PRelu,
// Gelu, Mish, Shrink, Swish.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/activation_impl.h"
#include "tessera/providers/cpu/elementwise_broadcast.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/vector_math.h"

namespace tessera::cpu {

namespace {

using elementwise::AddRows;
using elementwise::kUnaryInPlace;
using elementwise::BinaryLoop;
using elementwise::UnaryLoop;
namespace ts = elementwise::ts;

// log(1 + exp(x)) without overflow.
template <typename C>
inline C SoftplusValue(C x) {
  if (x > C(0)) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

// ---- functors: built from the node's attributes, applied in the compute type
struct ReluF {
  explicit ReluF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return x < C(0) ? C(0) : x; }  // NaN stays NaN
};
struct LeakyReluF {
  float alpha;
  explicit LeakyReluF(const KernelInfo& info) : alpha(info.attr_float("alpha", 0.01f)) {}
  template <typename C> C operator()(C x) const { return x < C(0) ? static_cast<C>(alpha) * x : x; }
};
struct EluF {
  float alpha;
  explicit EluF(const KernelInfo& info) : alpha(info.attr_float("alpha", 1.0f)) {}
  template <typename C> C operator()(C x) const { return x < C(0) ? static_cast<C>(alpha) * std::expm1(x) : x; }
};
struct SeluF {
  float alpha, gamma;
  explicit SeluF(const KernelInfo& info)
      : alpha(info.attr_float("alpha", 1.67326319217681884765625f)),
        gamma(info.attr_float("gamma", 1.05070102214813232421875f)) {}
  template <typename C>
  C operator()(C x) const {
    C g = static_cast<C>(gamma);
    return x > C(0) ? g * x : g * (static_cast<C>(alpha) * std::exp(x) - static_cast<C>(alpha));
  }
};
struct CeluF {
  float alpha;
  explicit CeluF(const KernelInfo& info) : alpha(info.attr_float("alpha", 1.0f)) {
    if (alpha == 0.0f) info.Fail("attribute alpha must not be 0");
  }
  template <typename C>
  C operator()(C x) const {
    C a = static_cast<C>(alpha);
    C neg = a * std::expm1(x / a);
    return (x > C(0) ? x : C(0)) + (neg < C(0) ? neg : C(0));
  }
};
struct SigmoidF {
  explicit SigmoidF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return Logistic(x); }
};
struct HardSigmoidF {
  float alpha, beta;
  explicit HardSigmoidF(const KernelInfo& info)
      : alpha(info.attr_float("alpha", 0.2f)), beta(info.attr_float("beta", 0.5f)) {}
  template <typename C>
  C operator()(C x) const {
    C v = static_cast<C>(alpha) * x + static_cast<C>(beta);
    return v < C(0) ? C(0) : (v > C(1) ? C(1) : v);
  }
};
struct HardSwishF {
  explicit HardSwishF(const KernelInfo&) {}
  template <typename C>
  C operator()(C x) const {
    C v = x / C(6) + C(0.5);
    return x * (v < C(0) ? C(0) : (v > C(1) ? C(1) : v));
  }
};
struct TanhF {
  explicit TanhF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return std::tanh(x); }
};
struct SoftplusF {
  explicit SoftplusF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return SoftplusValue(x); }
};
struct SoftsignF {
  explicit SoftsignF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return x / (C(1) + std::fabs(x)); }
};
struct ThresholdedReluF {
  float alpha;
  explicit ThresholdedReluF(const KernelInfo& info) : alpha(info.attr_float("alpha", 1.0f)) {}
  template <typename C> C operator()(C x) const { return x > static_cast<C>(alpha) ? x : C(0); }
};
struct GeluF {
  bool tanh_approx;
  explicit GeluF(const KernelInfo& info) {
    std::string a = info.attr_string("approximate", "none");
    if (a == "none") tanh_approx = false;
    else if (a == "tanh") tanh_approx = true;
    else info.Fail("attribute approximate must be \"none\" or \"tanh\", got \"", a, "\"");
  }
  template <typename C>
  C operator()(C x) const {
    return tanh_approx ? GeluTanh(x) : GeluErf(x);
  }
};
struct MishF {
  explicit MishF(const KernelInfo&) {}
  template <typename C> C operator()(C x) const { return x * std::tanh(SoftplusValue(x)); }
};
struct SwishF {
  float alpha;
  explicit SwishF(const KernelInfo& info) : alpha(info.attr_float("alpha", 1.0f)) {}
  template <typename C> C operator()(C x) const { return x * Logistic(static_cast<C>(alpha) * x); }
};

// The vectorized whole-array form of F for float tensors, where there is one.
template <typename F>
struct FloatArray {
  static constexpr bool kHas = false;
  static void Run(const F&, const float*, float*, int64_t) {}
};
template <>
struct FloatArray<SigmoidF> {
  static constexpr bool kHas = true;
  static void Run(const SigmoidF&, const float* x, float* y, int64_t n) { SigmoidF32(x, y, n); }
};
template <>
struct FloatArray<TanhF> {
  static constexpr bool kHas = true;
  static void Run(const TanhF&, const float* x, float* y, int64_t n) { TanhF32(x, y, n); }
};
template <>
struct FloatArray<GeluF> {
  static constexpr bool kHas = true;
  static void Run(const GeluF& f, const float* x, float* y, int64_t n) {
    std::copy(x, x + n, y);
    (f.tanh_approx ? GeluTanhInPlace : GeluErfInPlace)(y, n);
  }
};
template <>
struct FloatArray<SwishF> {
  static constexpr bool kHas = true;
  static void Run(const SwishF& f, const float* x, float* y, int64_t n) { SwishF32(x, y, n, f.alpha); }
};

// Float activations: F applied elementwise, 16-bit floats through float.
template <typename F>
class FloatActivation final : public OpKernel {
 public:
  explicit FloatActivation(const KernelInfo& info) : f_(info) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if constexpr (FloatArray<F>::kHas) {
      if (x.dtype() == DataType::kFloat) {
        const float* in = x.data<float>();
        float* out = y.data<float>();
        ParallelFor(ctx.thread_pool(), x.numel(), 16384,
                    [&](int64_t begin, int64_t end) { FloatArray<F>::Run(f_, in + begin, out + begin, end - begin); });
        return;
      }
    }
    const F f = f_;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [f](const T& v) { return StoreAs<T>(f(Load(v))); });
    });
  }

 private:
  F f_;
};

// Relu also takes signed integers from opset 14.
class Relu final : public OpKernel {
 public:
  explicit Relu(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [](const T& v) {
        C c = Load(v);
        return StoreAs<T>(c < C(0) ? C(0) : c);
      });
    });
  }
};

// double -> T without undefined behaviour for integers (NaN -> 0, saturating).
template <typename T, typename C>
T ToElement(double v) {
  if constexpr (std::is_integral_v<C>) {
    if (std::isnan(v)) return T(0);
    if (v <= static_cast<double>(std::numeric_limits<C>::lowest())) return std::numeric_limits<C>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<C>::max())) return std::numeric_limits<C>::max();
    return static_cast<T>(v);
  } else {
    return StoreAs<T>(static_cast<C>(v));
  }
}

// Shrink: all numeric types; integers compute through double.
class Shrink final : public OpKernel {
 public:
  explicit Shrink(const KernelInfo& info)
      : bias_(info.attr_float("bias", 0.0f)), lambd_(info.attr_float("lambd", 0.5f)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      if constexpr (std::is_floating_point_v<C>) {
        C bias = static_cast<C>(bias_), lambd = static_cast<C>(lambd_);
        UnaryLoop<T, T>(x, y, ctx.thread_pool(), [bias, lambd](const T& v) {
          C c = Load(v);
          return StoreAs<T>(c < -lambd ? c + bias : (c > lambd ? c - bias : C(0)));
        });
      } else {
        double bias = bias_, lambd = lambd_;
        UnaryLoop<T, T>(x, y, ctx.thread_pool(), [bias, lambd](const T& v) {
          double c = static_cast<double>(v);
          return ToElement<T, C>(c < -lambd ? c + bias : (c > lambd ? c - bias : 0.0));
        });
      }
    });
  }

 private:
  float bias_, lambd_;
};

// PRelu: slope unidirectionally broadcast to X (opset 7+). Before opset 7 a
// slope of X's channel count (dim 1) applies per channel, as Caffe2 did.
class PRelu final : public OpKernel {
 public:
  explicit PRelu(const KernelInfo& info) : legacy_(info.opset() < 7) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& slope = ctx.input(1);
    if (slope.dtype() != x.dtype())
      ctx.Fail("slope has type ", DataTypeName(slope.dtype()), " but X is ", DataTypeName(x.dtype()));
    Tensor sv = slope;
    if (legacy_ && x.rank() >= 2 && slope.rank() == 1 && slope.dim(0) == x.dim(1)) {
      Shape s(static_cast<size_t>(x.rank() - 1), 1);
      s[0] = slope.dim(0);
      sv = slope.Reshaped(s);
    }
    if (sv.shape() != x.shape()) {
      Shape b = BroadcastShapes({x.shape(), sv.shape()}, ctx);
      if (b != x.shape())
        ctx.Fail("slope ", ShapeToString(slope.shape()), " is not unidirectionally broadcastable to X ",
                 ShapeToString(x.shape()));
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      BinaryLoop<T, T, T>(x, sv, y, ctx.thread_pool(), [](const T& a, const T& s) {
        C c = Load(a);
        if constexpr (std::is_integral_v<C>) {
          if constexpr (std::is_signed_v<C>) {
            using U = std::make_unsigned_t<C>;
            return c < 0 ? static_cast<T>(static_cast<U>(c) * static_cast<U>(Load(s))) : a;
          } else {
            return a;
          }
        } else {
          return c < C(0) ? StoreAs<T>(c * Load(s)) : a;
        }
      });
    });
  }

 private:
  bool legacy_;
};

template <typename F>
KernelFactory Act() { return Make<FloatActivation<F>>(); }

std::vector<DataType> ReluTypes14() {
  return {DataType::kFloat, DataType::kInt32, DataType::kInt8,   DataType::kInt16,
          DataType::kInt64, DataType::kFloat16, DataType::kDouble, DataType::kBFloat16};
}

std::vector<DataType> PReluInts() {
  return {DataType::kUInt32, DataType::kUInt64, DataType::kInt32, DataType::kInt64};
}

}  // namespace

std::vector<KernelRow> ActivationKernels() {
  std::vector<KernelRow> rows;
  AddRows(rows, "Relu", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}, {14, ReluTypes14()}}, Make<Relu>(),
          kUnaryInPlace);
  AddRows(rows, "LeakyRelu", {{1, ts::F3()}, {6, ts::F3()}, {16, ts::F4()}}, Act<LeakyReluF>(), kUnaryInPlace);
  AddRows(rows, "Elu", {{1, ts::F3()}, {6, ts::F3()}, {22, ts::F4()}}, Act<EluF>());
  AddRows(rows, "Selu", {{1, ts::F3()}, {6, ts::F3()}, {22, ts::F4()}}, Act<SeluF>());
  AddRows(rows, "Celu", {{12, {DataType::kFloat}}, {28, ts::F4()}}, Act<CeluF>());
  AddRows(rows, "Sigmoid", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, Act<SigmoidF>(), kUnaryInPlace);
  AddRows(rows, "HardSigmoid", {{1, ts::F3()}, {6, ts::F3()}, {22, ts::F4()}}, Act<HardSigmoidF>());
  AddRows(rows, "HardSwish", {{14, ts::F3()}, {22, ts::F4()}}, Act<HardSwishF>());
  AddRows(rows, "Tanh", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, Act<TanhF>(), kUnaryInPlace);
  AddRows(rows, "Softplus", {{1, ts::F3()}, {22, ts::F4()}}, Act<SoftplusF>());
  AddRows(rows, "Softsign", {{1, ts::F3()}, {22, ts::F4()}}, Act<SoftsignF>());
  AddRows(rows, "ThresholdedRelu", {{10, ts::F3()}, {22, ts::F4()}}, Act<ThresholdedReluF>());
  AddRows(rows, "PRelu",
          {{1, ts::F3()},
           {6, ts::F3()},
           {7, ts::F3()},
           {9, types::Join(ts::F3(), PReluInts())},
           {16, types::Join(ts::F4(), PReluInts())}},
          Make<PRelu>());
  AddRows(rows, "Gelu", {{20, ts::F4()}}, Act<GeluF>());
  AddRows(rows, "Mish", {{18, ts::F3()}, {22, ts::F4()}}, Act<MishF>());
  AddRows(rows, "Shrink", {{9, ts::Num12()}}, Make<Shrink>());
  AddRows(rows, "Swish", {{24, ts::F4()}}, Act<SwishF>());
  return rows;
}

}  // namespace tessera::cpu
