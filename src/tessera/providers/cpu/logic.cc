// Comparison and boolean logic: Equal, Less, Greater, LessOrEqual,
// GreaterOrEqual, And, Or, Xor, Not, Where.
#include <complex>
#include <string>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/elementwise_broadcast.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

using elementwise::AddRows;
using elementwise::BinaryLoop;
using elementwise::LegacyBroadcastKernel;
using elementwise::TernaryLoop;
using elementwise::UnaryLoop;
namespace ts = elementwise::ts;

struct EqualF { template <typename C> bool operator()(const C& a, const C& b) const { return a == b; } };
struct LessF { template <typename C> bool operator()(const C& a, const C& b) const { return a < b; } };
struct GreaterF { template <typename C> bool operator()(const C& a, const C& b) const { return a > b; } };
struct LessEqualF { template <typename C> bool operator()(const C& a, const C& b) const { return a <= b; } };
struct GreaterEqualF { template <typename C> bool operator()(const C& a, const C& b) const { return a >= b; } };

// Comparisons: numeric (16-bit floats compare as float), bool, and string for
// Equal. Legacy broadcast/axis attributes before opset 7.
template <typename F>
class Compare final : public LegacyBroadcastKernel {
 public:
  using LegacyBroadcastKernel::LegacyBroadcastKernel;
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      ctx.Fail("inputs have different element types ", DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    Tensor bv;
    Tensor& out = AllocateBroadcastOutput(ctx, DataType::kBool, bv);
    ThreadPool* pool = ctx.thread_pool();
    DispatchAll(a.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_same_v<T, std::string>)
        BinaryLoop<T, T, bool>(a, bv, out, pool, [](const T& x, const T& y) { return F{}(x, y); });
      else
        BinaryLoop<T, T, bool>(a, bv, out, pool, [](const T& x, const T& y) { return F{}(Load(x), Load(y)); });
    });
  }
};

struct AndF { bool operator()(bool a, bool b) const { return a && b; } };
struct OrF { bool operator()(bool a, bool b) const { return a || b; } };
struct XorF { bool operator()(bool a, bool b) const { return a != b; } };

template <typename F>
class Logical final : public LegacyBroadcastKernel {
 public:
  using LegacyBroadcastKernel::LegacyBroadcastKernel;
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DataType::kBool || b.dtype() != DataType::kBool)
      ctx.Fail("inputs must be bool, got ", DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype()));
    Tensor bv;
    Tensor& out = AllocateBroadcastOutput(ctx, DataType::kBool, bv);
    BinaryLoop<bool, bool, bool>(a, bv, out, ctx.thread_pool(), [](bool x, bool y) { return F{}(x, y); });
  }
};

class Not final : public OpKernel {
 public:
  explicit Not(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kBool) ctx.Fail("input must be bool, got ", DataTypeName(x.dtype()));
    Tensor& y = ctx.allocate_output(0, DataType::kBool, x.shape());
    UnaryLoop<bool, bool>(x, y, ctx.thread_pool(), [](bool v) { return !v; });
  }
};

// Where copies elements, so only the element size matters (strings aside).
struct Bytes16 {
  uint64_t lo, hi;
};

class Where final : public OpKernel {
 public:
  explicit Where(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& c = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (c.dtype() != DataType::kBool) ctx.Fail("condition must be bool, got ", DataTypeName(c.dtype()));
    if (x.dtype() != y.dtype())
      ctx.Fail("X and Y have different element types ", DataTypeName(x.dtype()), " and ", DataTypeName(y.dtype()));
    Shape shape = BroadcastShapes({c.shape(), x.shape(), y.shape()}, ctx);
    Tensor& out = ctx.allocate_output(0, x.dtype(), shape);
    ThreadPool* pool = ctx.thread_pool();
    auto run = [&]<typename T>() {
      TernaryLoop<bool, T, T, T>(c, x, y, out, pool,
                                 [](bool cond, const T& a, const T& b) { return cond ? a : b; });
    };
    if (x.dtype() == DataType::kString) {
      run.template operator()<std::string>();
      return;
    }
    if (IsSubByte(x.dtype())) ctx.Fail("element type ", DataTypeName(x.dtype()), " is not supported");
    switch (ElementBits(x.dtype())) {
      case 8: run.template operator()<uint8_t>(); break;
      case 16: run.template operator()<uint16_t>(); break;
      case 32: run.template operator()<uint32_t>(); break;
      case 64: run.template operator()<uint64_t>(); break;
      case 128: run.template operator()<Bytes16>(); break;
      default: ctx.Fail("element type ", DataTypeName(x.dtype()), " is not supported");
    }
  }
};

std::vector<DataType> WithBool(std::vector<DataType> t) { return types::Join(std::move(t), {DataType::kBool}); }

std::vector<DataType> WhereTypes(bool bf16) {
  std::vector<DataType> t = types::Join(ts::Num11(), {DataType::kString, DataType::kBool, DataType::kComplex64,
                                                      DataType::kComplex128});
  if (bf16) t.push_back(DataType::kBFloat16);
  return t;
}

}  // namespace

std::vector<KernelRow> LogicKernels() {
  std::vector<KernelRow> rows;
  const std::vector<DataType> bool_i32_i64 = {DataType::kBool, DataType::kInt32, DataType::kInt64};
  AddRows(rows, "Equal",
          {{1, bool_i32_i64},
           {7, bool_i32_i64},
           {11, WithBool(ts::Num11())},
           {13, WithBool(ts::Num12())},
           {19, types::Join(WithBool(ts::Num12()), {DataType::kString})}},
          Make<Compare<EqualF>>());
  AddRows(rows, "Less", {{1, ts::F3()}, {7, ts::F3()}, {9, ts::Num11()}, {13, ts::Num12()}},
          Make<Compare<LessF>>());
  AddRows(rows, "Greater", {{1, ts::F3()}, {7, ts::F3()}, {9, ts::Num11()}, {13, ts::Num12()}},
          Make<Compare<GreaterF>>());
  AddRows(rows, "LessOrEqual", {{12, ts::Num11()}, {16, ts::Num12()}}, Make<Compare<LessEqualF>>());
  AddRows(rows, "GreaterOrEqual", {{12, ts::Num11()}, {16, ts::Num12()}}, Make<Compare<GreaterEqualF>>());
  AddRows(rows, "And", {{1, ts::Bool()}, {7, ts::Bool()}}, Make<Logical<AndF>>());
  AddRows(rows, "Or", {{1, ts::Bool()}, {7, ts::Bool()}}, Make<Logical<OrF>>());
  AddRows(rows, "Xor", {{1, ts::Bool()}, {7, ts::Bool()}}, Make<Logical<XorF>>());
  AddRows(rows, "Not", {{1, ts::Bool()}}, Make<Not>());
  AddRows(rows, "Where", {{9, WhereTypes(false)}, {16, WhereTypes(true)}}, Make<Where>());
  return rows;
}

}  // namespace tessera::cpu
