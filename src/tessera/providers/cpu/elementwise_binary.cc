// Elementwise binary and variadic math: Add, Sub, Mul, Div (with the legacy
// opset-1/6 broadcast/axis forms), Mod, Pow, Max, Min, Sum, Mean, Clip,
// BitShift and the Bitwise* family.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/elementwise_broadcast.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

using elementwise::AccumulateLoop;
using elementwise::AddRows;
using elementwise::kBinaryInPlace;
using elementwise::BinaryLoop;
using elementwise::LegacyBroadcastKernel;
using elementwise::UnaryLoop;
namespace ts = elementwise::ts;

// Unsigned type wide enough that arithmetic on it never promotes to int.
template <typename C>
using WrapT = std::conditional_t<(sizeof(C) < 4), uint32_t, std::make_unsigned_t<C>>;

template <typename C>
inline constexpr bool kIsInt = std::is_integral_v<C>;

// ---- arithmetic on compute types ------------------------------------------
struct AddF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) return static_cast<C>(static_cast<WrapT<C>>(a) + static_cast<WrapT<C>>(b));
    else return a + b;
  }
};
struct SubF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) return static_cast<C>(static_cast<WrapT<C>>(a) - static_cast<WrapT<C>>(b));
    else return a - b;
  }
};
struct MulF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) return static_cast<C>(static_cast<WrapT<C>>(a) * static_cast<WrapT<C>>(b));
    else return a * b;
  }
};
// Integer division truncates toward zero; divisors were checked non-zero.
struct DivF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) {
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return static_cast<C>(WrapT<C>(0) - static_cast<WrapT<C>>(a));
      }
      return b == 0 ? C(0) : static_cast<C>(a / b);
    } else {
      return a / b;
    }
  }
};
struct MaxF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) return a < b ? b : a;
    else return (a >= b || a != a) ? a : b;  // NaN propagates
  }
};
struct MinF {
  template <typename C>
  C operator()(C a, C b) const {
    if constexpr (kIsInt<C>) return b < a ? b : a;
    else return (a <= b || a != a) ? a : b;
  }
};

// Mod: fmod=1 is C's fmod (sign of the dividend), fmod=0 Python's % (sign of
// the divisor). Integer divisors were checked non-zero.
template <typename C>
C ModValue(C a, C b, bool fmod) {
  if constexpr (kIsInt<C>) {
    if (b == 0) return C(0);
    if constexpr (std::is_signed_v<C>) {
      if (b == -1) return C(0);
    }
    C r = static_cast<C>(a % b);
    if constexpr (std::is_signed_v<C>) {
      if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
    }
    return r;
  } else {
    C r = std::fmod(a, b);
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}

// double -> integer without undefined behaviour (NaN -> 0, saturating).
template <typename I>
I SaturatingCast(double v) {
  if (std::isnan(v)) return I(0);
  if (v <= static_cast<double>(std::numeric_limits<I>::lowest())) return std::numeric_limits<I>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

// Integer power by squaring, wrapping like repeated multiplication.
template <typename I, typename E>
I IntPow(I base, E exp) {
  if constexpr (std::is_signed_v<E>) {
    if (exp < 0) {
      if (base == 1) return I(1);
      if constexpr (std::is_signed_v<I>) {
        if (base == -1) return (exp & 1) ? I(-1) : I(1);
      }
      return I(0);  // |base| > 1 (or 0): the exact value truncates to 0
    }
  }
  uint64_t e = static_cast<uint64_t>(exp);
  uint64_t r = 1, b = static_cast<uint64_t>(static_cast<int64_t>(base));
  while (e) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<I>(r);
}

// Fails when an integer divisor tensor holds a zero (Div/Mod).
template <typename T>
void CheckNoZeroDivisor(const Tensor& b, const KernelContext& ctx) {
  if constexpr (std::is_integral_v<T>) {
    const T* p = b.data<T>();
    for (int64_t i = 0; i < b.numel(); ++i)
      if (p[i] == 0) ctx.Fail("integer division by zero (element ", i, " of the divisor ", b.Describe(), ")");
  }
}

void CheckSameType(const Tensor& a, const Tensor& b, const KernelContext& ctx) {
  if (a.dtype() != b.dtype())
    ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
}

// Output 0 of a's type, the numpy broadcast of a and b (for the ops that
// have no legacy broadcast attributes).
Tensor& AllocateBroadcastOutputOf(KernelContext& ctx, const Tensor& a, const Tensor& b) {
  Shape shape = a.shape() == b.shape() ? a.shape() : BroadcastShapes({a.shape(), b.shape()}, ctx);
  return ctx.allocate_output(0, a.dtype(), shape);
}

// Add / Sub / Mul / Div: numpy broadcasting (opset 7+) or the legacy
// broadcast/axis attributes (opsets 1-6).
template <typename F, bool kCheckDivisor>
class Arithmetic final : public LegacyBroadcastKernel {
 public:
  using LegacyBroadcastKernel::LegacyBroadcastKernel;
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckSameType(a, b, ctx);
    Tensor bv;
    Tensor& out = AllocateBroadcastOutput(ctx, a.dtype(), bv);
    DispatchNumeric(a.dtype(), ctx, [&]<typename T>() {
      if constexpr (kCheckDivisor) {
        if (out.numel() > 0) CheckNoZeroDivisor<T>(bv, ctx);
      }
      BinaryLoop<T, T, T>(a, bv, out, ctx.thread_pool(),
                          [](const T& x, const T& y) { return StoreAs<T>(F{}(Load(x), Load(y))); });
    });
  }
};

class Mod final : public OpKernel {
 public:
  explicit Mod(const KernelInfo& info) : fmod_(info.attr_int("fmod", 0) != 0) {
    int64_t f = info.attr_int("fmod", 0);
    if (f != 0 && f != 1) info.Fail("attribute fmod must be 0 or 1, got ", f);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckSameType(a, b, ctx);
    Tensor& out = AllocateBroadcastOutputOf(ctx, a, b);
    bool fmod = fmod_;
    DispatchNumeric(a.dtype(), ctx, [&]<typename T>() {
      if (out.numel() > 0) CheckNoZeroDivisor<T>(b, ctx);
      BinaryLoop<T, T, T>(a, b, out, ctx.thread_pool(),
                          [fmod](const T& x, const T& y) { return StoreAs<T>(ModValue(Load(x), Load(y), fmod)); });
    });
  }

 private:
  bool fmod_;
};

// Pow: base T (int32, int64, floats), exponent T1 (any numeric from opset 12;
// same type as the base before). Legacy broadcast attributes before opset 7.
class Pow final : public LegacyBroadcastKernel {
 public:
  using LegacyBroadcastKernel::LegacyBroadcastKernel;
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    Tensor bv;
    Tensor& out = AllocateBroadcastOutput(ctx, a.dtype(), bv);
    ThreadPool* pool = ctx.thread_pool();
    auto with_base = [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      DispatchNumeric(bv.dtype(), ctx, [&]<typename E>() {
        using CE = typename cpu::Compute<E>::type;
        if constexpr (std::is_floating_point_v<C>) {
          // x^2 is exact as x*x; the common case from exported models.
          if constexpr (std::is_same_v<T, E>) {
            // (b has one element, so out has a's elements in a's order)
            if (bv.numel() == 1 && static_cast<double>(Load(bv.data<E>()[0])) == 2.0) {
              UnaryLoop<T, T>(a, out, pool, [](const T& x) {
                C v = Load(x);
                return StoreAs<T>(v * v);
              });
              return;
            }
          }
          BinaryLoop<T, E, T>(a, bv, out, pool, [](const T& x, const E& y) {
            return StoreAs<T>(static_cast<C>(std::pow(Load(x), static_cast<C>(Load(y)))));
          });
        } else if constexpr (std::is_floating_point_v<CE>) {
          BinaryLoop<T, E, T>(a, bv, out, pool, [](const T& x, const E& y) {
            return SaturatingCast<T>(std::pow(static_cast<double>(x), static_cast<double>(Load(y))));
          });
        } else {
          BinaryLoop<T, E, T>(a, bv, out, pool, [](const T& x, const E& y) { return IntPow<T>(x, y); });
        }
      });
    };
    switch (a.dtype()) {
      case DataType::kInt32: with_base.template operator()<int32_t>(); break;
      case DataType::kInt64: with_base.template operator()<int64_t>(); break;
      case DataType::kFloat: with_base.template operator()<float>(); break;
      case DataType::kDouble: with_base.template operator()<double>(); break;
      case DataType::kFloat16: with_base.template operator()<Float16>(); break;
      case DataType::kBFloat16: with_base.template operator()<BFloat16>(); break;
      default: ctx.Fail("Pow does not support a base of type ", DataTypeName(a.dtype()));
    }
  }
};

// Max / Min / Sum / Mean over 1..N inputs with multidirectional broadcasting.
// 16-bit floats accumulate in float and round once at the end.
template <typename F, bool kMean>
class Variadic final : public OpKernel {
 public:
  explicit Variadic(const KernelInfo& info) {
    if (info.num_inputs() < 1) info.Fail("needs at least one input");
  }
  void Compute(KernelContext& ctx) const override {
    size_t n = ctx.num_inputs();
    if (n == 0) ctx.Fail("needs at least one input");
    std::vector<const Tensor*> ins;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < n; ++i) {
      ins.push_back(&ctx.input(i));
      shapes.push_back(ins.back()->shape());
      CheckSameType(*ins[0], *ins.back(), ctx);
    }
    Shape shape = BroadcastShapes(shapes, ctx);
    Tensor& out = ctx.allocate_output(0, ins[0]->dtype(), shape);
    ThreadPool* pool = ctx.thread_pool();
    DispatchNumeric(ins[0]->dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      C* acc;
      Tensor tmp;
      size_t first = 0;
      if constexpr (std::is_same_v<C, T>) {
        acc = out.data<T>();
        if (n >= 2) {
          BinaryLoop<T, T, T>(*ins[0], *ins[1], out, pool, [](const T& x, const T& y) { return F{}(x, y); });
          first = 2;
        }
      } else {
        tmp = Tensor(DataTypeOf<C>::value, shape);
        acc = tmp.data<C>();
      }
      if (first == 0) {
        AccumulateLoop<C, T>(acc, shape, *ins[0], pool, [](C, const T& y) { return static_cast<C>(Load(y)); });
        first = 1;
      }
      for (size_t i = first; i < n; ++i)
        AccumulateLoop<C, T>(acc, shape, *ins[i], pool, [](C x, const T& y) { return F{}(x, static_cast<C>(Load(y))); });
      int64_t total = out.numel();
      T* po = out.data<T>();
      if constexpr (kMean) {
        C div = static_cast<C>(n);
        ParallelFor(pool, total, elementwise::kParallelChunk, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) po[i] = StoreAs<T>(static_cast<C>(acc[i] / div));
        });
      } else if constexpr (!std::is_same_v<C, T>) {
        ParallelFor(pool, total, elementwise::kParallelChunk, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) po[i] = StoreAs<T>(acc[i]);
        });
      }
    });
  }
};

// Clip, opsets 1-10: bounds in the min/max attributes.
class ClipAttr final : public OpKernel {
 public:
  explicit ClipAttr(const KernelInfo& info)
      : lo_(info.attr_float("min", -std::numeric_limits<float>::max())),
        hi_(info.attr_float("max", std::numeric_limits<float>::max())) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      C lo = static_cast<C>(lo_), hi = static_cast<C>(hi_);
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [lo, hi](const T& v) {
        C c = Load(v);
        c = c < lo ? lo : c;
        return StoreAs<T>(hi < c ? hi : c);
      });
    });
  }

 private:
  float lo_, hi_;
};

// Clip, opset 11+: optional scalar min/max inputs; min > max gives max.
class ClipInput final : public OpKernel {
 public:
  explicit ClipInput(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor* bounds[2] = {nullptr, nullptr};
    for (size_t i = 1; i <= 2; ++i) {
      if (!ctx.has_input(i)) continue;
      const Tensor& t = ctx.input(i);
      if (t.dtype() != x.dtype())
        ctx.Fail(i == 1 ? "min" : "max", " has type ", DataTypeName(t.dtype()), " but the input is ",
                 DataTypeName(x.dtype()));
      if (t.numel() != 1) ctx.Fail(i == 1 ? "min" : "max", " must be a scalar, got ", t.Describe());
      bounds[i - 1] = &t;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      C lo, hi;
      if constexpr (std::is_floating_point_v<C>) {
        lo = -std::numeric_limits<C>::infinity();
        hi = std::numeric_limits<C>::infinity();
      } else {
        lo = std::numeric_limits<C>::lowest();
        hi = std::numeric_limits<C>::max();
      }
      if (bounds[0]) lo = Load(bounds[0]->data<T>()[0]);
      if (bounds[1]) hi = Load(bounds[1]->data<T>()[0]);
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [lo, hi](const T& v) {
        C c = Load(v);
        c = c < lo ? lo : c;
        return StoreAs<T>(hi < c ? hi : c);
      });
    });
  }
};

class BitShift final : public OpKernel {
 public:
  explicit BitShift(const KernelInfo& info) {
    std::string d = info.attr_string("direction");
    if (d == "LEFT") left_ = true;
    else if (d == "RIGHT") left_ = false;
    else info.Fail("attribute direction must be \"LEFT\" or \"RIGHT\", got \"", d, "\"");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckSameType(a, b, ctx);
    if (!IsUnsignedInteger(a.dtype())) ctx.Fail("BitShift needs unsigned integers, got ", DataTypeName(a.dtype()));
    Tensor& out = AllocateBroadcastOutputOf(ctx, a, b);
    bool left = left_;
    DispatchInt(a.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_unsigned_v<T>) {
        constexpr uint64_t kBits = sizeof(T) * 8;
        BinaryLoop<T, T, T>(a, b, out, ctx.thread_pool(), [left](T x, T s) {
          if (static_cast<uint64_t>(s) >= kBits) return T(0);
          return left ? static_cast<T>(static_cast<WrapT<T>>(x) << s) : static_cast<T>(x >> s);
        });
      }
    });
  }

 private:
  bool left_ = true;
};

struct AndBits { template <typename T> T operator()(T a, T b) const { return static_cast<T>(a & b); } };
struct OrBits { template <typename T> T operator()(T a, T b) const { return static_cast<T>(a | b); } };
struct XorBits { template <typename T> T operator()(T a, T b) const { return static_cast<T>(a ^ b); } };

template <typename F>
class Bitwise final : public OpKernel {
 public:
  explicit Bitwise(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckSameType(a, b, ctx);
    Tensor& out = AllocateBroadcastOutputOf(ctx, a, b);
    DispatchInt(a.dtype(), ctx, [&]<typename T>() {
      BinaryLoop<T, T, T>(a, b, out, ctx.thread_pool(), [](T x, T y) { return F{}(x, y); });
    });
  }
};

class BitwiseNot final : public OpKernel {
 public:
  explicit BitwiseNot(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    DispatchInt(x.dtype(), ctx, [&]<typename T>() {
      UnaryLoop<T, T>(x, y, ctx.thread_pool(), [](T v) { return static_cast<T>(~v); });
    });
  }
};

std::vector<DataType> PowBase(bool bf16) {
  std::vector<DataType> t = {DataType::kInt32, DataType::kInt64, DataType::kFloat16, DataType::kFloat,
                             DataType::kDouble};
  if (bf16) t.push_back(DataType::kBFloat16);
  return t;
}

template <typename F>
void AddArithmetic(std::vector<KernelRow>& rows, const char* op, KernelFactory f) {
  AddRows(rows, op,
          {{1, ts::F3()},
           {6, ts::HighPrec()},
           {7, ts::HighPrec()},
           {13, types::Join(ts::HighPrec(), {DataType::kBFloat16})},
           {14, ts::Num12()}},
          f, kBinaryInPlace);
}

}  // namespace

std::vector<KernelRow> BinaryMathKernels() {
  std::vector<KernelRow> rows;
  AddArithmetic<AddF>(rows, "Add", Make<Arithmetic<AddF, false>>());
  AddArithmetic<SubF>(rows, "Sub", Make<Arithmetic<SubF, false>>());
  AddArithmetic<MulF>(rows, "Mul", Make<Arithmetic<MulF, false>>());
  AddArithmetic<DivF>(rows, "Div", Make<Arithmetic<DivF, true>>());
  AddRows(rows, "Mod", {{10, ts::Num11()}, {13, ts::Num12()}}, Make<Mod>());
  AddRows(rows, "Pow",
          {{1, ts::F3()}, {7, ts::F3()}, {12, PowBase(false)}, {13, PowBase(true)}, {15, PowBase(true)}},
          Make<Pow>());
  AddRows(rows, "Max", {{1, ts::F3()}, {6, ts::F3()}, {8, ts::F3()}, {12, ts::Num11()}, {13, ts::Num12()}},
          Make<Variadic<MaxF, false>>());
  AddRows(rows, "Min", {{1, ts::F3()}, {6, ts::F3()}, {8, ts::F3()}, {12, ts::Num11()}, {13, ts::Num12()}},
          Make<Variadic<MinF, false>>());
  AddRows(rows, "Sum", {{1, ts::F3()}, {6, ts::F3()}, {8, ts::F3()}, {13, ts::F4()}},
          Make<Variadic<AddF, false>>());
  AddRows(rows, "Mean", {{1, ts::F3()}, {6, ts::F3()}, {8, ts::F3()}, {13, ts::F4()}},
          Make<Variadic<AddF, true>>());
  AddRows(rows, "Clip", {{1, ts::F3()}, {6, ts::F3()}}, Make<ClipAttr>(), 10);
  AddRows(rows, "Clip", {{11, ts::F3()}, {12, ts::Num11()}, {13, ts::Num12()}}, Make<ClipInput>());
  AddRows(rows, "BitShift", {{11, types::UnsignedInts()}}, Make<BitShift>());
  AddRows(rows, "BitwiseAnd", {{18, types::Ints()}}, Make<Bitwise<AndBits>>());
  AddRows(rows, "BitwiseOr", {{18, types::Ints()}}, Make<Bitwise<OrBits>>());
  AddRows(rows, "BitwiseXor", {{18, types::Ints()}}, Make<Bitwise<XorBits>>());
  AddRows(rows, "BitwiseNot", {{18, types::Ints()}}, Make<BitwiseNot>());
  return rows;
}

}  // namespace tessera::cpu
