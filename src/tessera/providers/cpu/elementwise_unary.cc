// Elementwise unary math: Abs, Neg, Exp, Log, Sqrt, Reciprocal, Floor, Ceil,
// Round, Sign, trigonometric and hyperbolic functions, Erf, IsNaN, IsInf.
#include <cmath>
#include <limits>
#include <type_traits>

#include "tessera/ir/float_formats.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/elementwise_broadcast.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

using elementwise::AddRows;
using elementwise::kUnaryInPlace;
using elementwise::UnaryLoop;
namespace ts = elementwise::ts;

// ---- functors on the compute type (float/double/integers) -----------------
struct ExpF { template <typename C> C operator()(C x) const { return std::exp(x); } };
struct LogF { template <typename C> C operator()(C x) const { return std::log(x); } };
struct SqrtF { template <typename C> C operator()(C x) const { return std::sqrt(x); } };
struct ReciprocalF { template <typename C> C operator()(C x) const { return C(1) / x; } };
struct FloorF { template <typename C> C operator()(C x) const { return std::floor(x); } };
struct CeilF { template <typename C> C operator()(C x) const { return std::ceil(x); } };
// Half to even under the default rounding mode; integral values, +-0, NaN and
// infinities come back unchanged.
struct RoundF { template <typename C> C operator()(C x) const { return std::nearbyint(x); } };
struct SinF { template <typename C> C operator()(C x) const { return std::sin(x); } };
struct CosF { template <typename C> C operator()(C x) const { return std::cos(x); } };
struct TanF { template <typename C> C operator()(C x) const { return std::tan(x); } };
struct AsinF { template <typename C> C operator()(C x) const { return std::asin(x); } };
struct AcosF { template <typename C> C operator()(C x) const { return std::acos(x); } };
struct AtanF { template <typename C> C operator()(C x) const { return std::atan(x); } };
struct SinhF { template <typename C> C operator()(C x) const { return std::sinh(x); } };
struct CoshF { template <typename C> C operator()(C x) const { return std::cosh(x); } };
struct AsinhF { template <typename C> C operator()(C x) const { return std::asinh(x); } };
struct AcoshF { template <typename C> C operator()(C x) const { return std::acosh(x); } };
struct AtanhF { template <typename C> C operator()(C x) const { return std::atanh(x); } };

// Functors that also take integers.
struct AbsF {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::fabs(x);
    } else if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {  // wraps for the most negative value instead of overflowing
      using U = std::make_unsigned_t<C>;
      return x < 0 ? static_cast<C>(U(0) - static_cast<U>(x)) : x;
    }
  }
};
struct NegF {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return -x;
    } else {
      using U = std::make_unsigned_t<C>;
      return static_cast<C>(U(0) - static_cast<U>(x));
    }
  }
};
struct SignF {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
    } else if constexpr (std::is_unsigned_v<C>) {
      return x > 0 ? C(1) : C(0);
    } else {
      return static_cast<C>((x > 0) - (x < 0));
    }
  }
};
struct ErfF {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::erf(x);
    } else {
      // erf of an integer lies in (-1, 1) and reaches +-1 in double beyond |x| ~ 6.
      return static_cast<C>(std::erf(static_cast<double>(x)));
    }
  }
};

// Applies F elementwise in the compute type of T.
template <typename T, typename F>
void ApplyUnary(const Tensor& x, Tensor& y, ThreadPool* pool) {
  UnaryLoop<T, T>(x, y, pool, [](const T& v) { return StoreAs<T>(F{}(Load(v))); });
}

// Float-only unary ops (Exp, Log, Sin...).
template <typename F>
class FloatUnary final : public OpKernel {
 public:
  explicit FloatUnary(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() { ApplyUnary<T, F>(x, y, ctx.thread_pool()); });
  }
};

// Unary ops over floats and integers (Abs, Neg, Sign, Erf).
template <typename F>
class NumericUnary final : public OpKernel {
 public:
  explicit NumericUnary(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() { ApplyUnary<T, F>(x, y, ctx.thread_pool()); });
  }
};

// Erf: float through the vectorized kernel (BERT's GELU runs it on every
// FFN activation), other types elementwise in double or their own type.
class ErfKernel final : public OpKernel {
 public:
  explicit ErfKernel(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.dtype() == DataType::kFloat) {
      const float* in = x.data<float>();
      float* out = y.data<float>();
      ParallelFor(ctx.thread_pool(), x.numel(), 16384,
                  [&](int64_t begin, int64_t end) { ErfF32(in + begin, out + begin, end - begin); });
      return;
    }
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() { ApplyUnary<T, ErfF>(x, y, ctx.thread_pool()); });
  }
};

// Calls pred(value as float/double) per element and writes a bool tensor.
template <typename Pred>
void FloatPredicate(KernelContext& ctx, const Tensor& x, Pred pred) {
  Tensor& y = ctx.allocate_output(0, DataType::kBool, x.shape());
  ThreadPool* pool = ctx.thread_pool();
  DataType dt = x.dtype();
  if (IsFloat8(dt)) {
    UnaryLoop<uint8_t, bool>(x, y, pool, [dt, pred](uint8_t v) { return pred(Float8ToFloat(dt, v)); });
    return;
  }
  DispatchFloat(dt, ctx, [&]<typename T>() {
    UnaryLoop<T, bool>(x, y, pool, [pred](const T& v) { return pred(Load(v)); });
  });
}

class IsNaN final : public OpKernel {
 public:
  explicit IsNaN(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    FloatPredicate(ctx, ctx.input(0), [](auto v) { return std::isnan(v); });
  }
};

class IsInf final : public OpKernel {
 public:
  explicit IsInf(const KernelInfo& info)
      : negative_(info.attr_int("detect_negative", 1) != 0), positive_(info.attr_int("detect_positive", 1) != 0) {}
  void Compute(KernelContext& ctx) const override {
    bool neg = negative_, pos = positive_;
    FloatPredicate(ctx, ctx.input(0), [neg, pos](auto v) { return std::isinf(v) && (v > 0 ? pos : neg); });
  }

 private:
  bool negative_;
  bool positive_;
};

template <typename F>
KernelFactory FloatOp() { return Make<FloatUnary<F>>(); }
template <typename F>
KernelFactory NumericOp() { return Make<NumericUnary<F>>(); }

std::vector<DataType> NegTypes(bool bf16) {
  std::vector<DataType> t = {DataType::kFloat, DataType::kInt32, DataType::kInt8, DataType::kInt16,
                             DataType::kInt64, DataType::kFloat16, DataType::kDouble};
  if (bf16) t.push_back(DataType::kBFloat16);
  return t;
}

std::vector<DataType> Float8Types() {
  return {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ};
}

}  // namespace

std::vector<KernelRow> UnaryMathKernels() {
  std::vector<KernelRow> rows;
  AddRows(rows, "Abs", {{1, ts::F3()}, {6, ts::Num11()}, {13, ts::Num12()}}, NumericOp<AbsF>(), kUnaryInPlace);
  AddRows(rows, "Neg", {{1, ts::F3()}, {6, NegTypes(false)}, {13, NegTypes(true)}}, NumericOp<NegF>(), kUnaryInPlace);
  // Float-only ops versioned 1, 6, 13 (13 adds bfloat16).
  AddRows(rows, "Exp", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<ExpF>(), kUnaryInPlace);
  AddRows(rows, "Log", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<LogF>(), kUnaryInPlace);
  AddRows(rows, "Sqrt", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<SqrtF>(), kUnaryInPlace);
  AddRows(rows, "Reciprocal", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<ReciprocalF>(), kUnaryInPlace);
  AddRows(rows, "Floor", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<FloorF>());
  AddRows(rows, "Ceil", {{1, ts::F3()}, {6, ts::F3()}, {13, ts::F4()}}, FloatOp<CeilF>());
  AddRows(rows, "Round", {{11, ts::F3()}, {22, ts::F4()}}, FloatOp<RoundF>());
  AddRows(rows, "Sign", {{9, ts::Num11()}, {13, ts::Num12()}}, NumericOp<SignF>());
  // Trigonometric (7) and hyperbolic (9) functions; 22 adds bfloat16.
  AddRows(rows, "Sin", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<SinF>());
  AddRows(rows, "Cos", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<CosF>());
  AddRows(rows, "Tan", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<TanF>());
  AddRows(rows, "Asin", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<AsinF>());
  AddRows(rows, "Acos", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<AcosF>());
  AddRows(rows, "Atan", {{7, ts::F3()}, {22, ts::F4()}}, FloatOp<AtanF>());
  AddRows(rows, "Sinh", {{9, ts::F3()}, {22, ts::F4()}}, FloatOp<SinhF>());
  AddRows(rows, "Cosh", {{9, ts::F3()}, {22, ts::F4()}}, FloatOp<CoshF>());
  AddRows(rows, "Asinh", {{9, ts::F3()}, {22, ts::F4()}}, FloatOp<AsinhF>());
  AddRows(rows, "Acosh", {{9, ts::F3()}, {22, ts::F4()}}, FloatOp<AcoshF>());
  AddRows(rows, "Atanh", {{9, ts::F3()}, {22, ts::F4()}}, FloatOp<AtanhF>());
  AddRows(rows, "Erf", {{9, ts::Num11()}, {13, ts::F4()}}, Make<ErfKernel>(), kUnaryInPlace);
  AddRows(rows, "IsNaN", {{9, ts::F3()}, {13, ts::F4()}, {20, types::Join(ts::F4(), Float8Types())}},
          Make<IsNaN>());
  AddRows(rows, "IsInf", {{10, {DataType::kFloat, DataType::kDouble}}, {20, types::Join(ts::F4(), Float8Types())}},
          Make<IsInf>());
  return rows;
}

}  // namespace tessera::cpu
