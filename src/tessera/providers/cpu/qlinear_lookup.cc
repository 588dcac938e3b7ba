// com.microsoft QLinearSigmoid and QLinearLeakyRelu: functions of one 8-bit
// value, so each is a 256-entry table of Q(f(DQ(x))) computed in float
// exactly as the unfused dequantize -> op -> quantize would. ai.tessera
// QLinearSilu (optimizer/fuse_qlinear_silu.cc) is the table of
// QLinearMul(x, QLinearSigmoid(x)): each entry what those two kernels give.
// With constant scales and zero points (the usual case) the table is built
// once, when the kernel is created; otherwise per run.
#include <cmath>
#include <optional>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/qlinear_util.h"

namespace tessera::cpu {
namespace {

struct SigmoidFn {
  explicit SigmoidFn(const KernelInfo&) {}
  float operator()(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
};

struct LeakyReluFn {
  explicit LeakyReluFn(const KernelInfo& info) : alpha(info.attr_float("alpha", 0.01f)) {}
  float operator()(float x) const { return x < 0 ? alpha * x : x; }
  float alpha;
};

// Q(f(DQ(x))) of one op: X, X_scale, X_zero_point?, Y_scale, Y_zero_point?.
template <typename Fn>
struct UnaryTable {
  static constexpr size_t kParams = 2;  // (scale, zero point) input pairs after X
  static constexpr const char* kInputs = "X, X_scale, X_zero_point, Y_scale[, Y_zero_point]";
  static constexpr const char* kNames[kParams] = {"X", "Y"};
  explicit UnaryTable(const KernelInfo& info) : fn(info) {}
  ByteTable Make(bool is_signed, const QuantParams (&p)[kParams]) const {
    return MakeByteTable(is_signed, p[0], is_signed, p[1], fn);
  }
  Fn fn;
};

// QLinearMul(X, QLinearSigmoid(X)): X, X_scale, X_zero_point, S_scale,
// S_zero_point (the Sigmoid's output), Y_scale, Y_zero_point?.
struct SiluTable {
  static constexpr size_t kParams = 3;
  static constexpr const char* kInputs = "X, X_scale, X_zero_point, S_scale, S_zero_point, Y_scale[, Y_zero_point]";
  static constexpr const char* kNames[kParams] = {"X", "S", "Y"};
  explicit SiluTable(const KernelInfo& info) : sigmoid(info) {}
  ByteTable Make(bool is_signed, const QuantParams (&p)[kParams]) const {
    const ByteTable s = MakeByteTable(is_signed, p[0], is_signed, p[1], sigmoid);
    ByteTable x{}, y{};
    for (size_t b = 0; b < x.size(); ++b) x[b] = static_cast<uint8_t>(b);
    QLinearMulRow(x.data(), false, s.data(), false, 256, QLinearMulRowParams(p[0], p[1], p[2]), is_signed, y.data());
    return y;
  }
  SigmoidFn sigmoid;
};

// The table's inputs: X, then a (scale, zero point) pair per parameter
// set; Y of X's type.
template <typename Table>
class QLinearLookup final : public OpKernel {
 public:
  static constexpr size_t kParams = Table::kParams;

  explicit QLinearLookup(const KernelInfo& info) : table_fn_(info) {
    if (info.num_inputs() < 2 * kParams)
      info.Fail("expects ", 2 * kParams, " or ", 2 * kParams + 1, " inputs (", Table::kInputs, "), got ",
                info.num_inputs());
    // The element type is known here only through constant zero points.
    QuantParams p[kParams];
    std::optional<DataType> type;
    for (size_t k = 0; k < kParams; ++k) {
      const auto c = ConstantQuantParams(info, 2 * k + 1, 2 * k + 2);
      const Tensor* z = info.has_input(2 * k + 2) ? info.constant_input(2 * k + 2) : nullptr;
      if (!c || !z || (type && *type != z->dtype())) return;
      p[k] = *c;
      type = z->dtype();
    }
    signed_ = type == DataType::kInt8;
    table_ = table_fn_.Make(signed_, p);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    if (!IsQuant8(t)) ctx.Fail("X has element type ", DataTypeName(t), ", expected int8 or uint8");
    const bool is_signed = t == DataType::kInt8;
    ByteTable own;
    const ByteTable* table = &own;
    if (table_ && signed_ == is_signed) {
      table = &*table_;
    } else {
      QuantParams p[kParams];
      for (size_t k = 0; k < kParams; ++k) p[k] = ReadQuantParams(ctx, 2 * k + 1, 2 * k + 2, t, Table::kNames[k]);
      own = table_fn_.Make(is_signed, p);
    }
    Tensor& y = ctx.allocate_output(0, t, x.shape());
    ApplyByteTable(*table, static_cast<const uint8_t*>(x.raw_data()), x.numel(), static_cast<uint8_t*>(y.raw_data()),
                   ctx.thread_pool());
  }

 private:
  Table table_fn_;
  std::optional<ByteTable> table_;
  bool signed_ = false;
};

}  // namespace

std::vector<KernelRow> QLinearLookupKernels() {
  const std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {kMicrosoftDomain, "QLinearSigmoid", 1, 1, q8, Make<QLinearLookup<UnaryTable<SigmoidFn>>>()},
      {kMicrosoftDomain, "QLinearLeakyRelu", 1, 1, q8, Make<QLinearLookup<UnaryTable<LeakyReluFn>>>()},
      {kTesseraDomain, "QLinearSilu", 1, 1, q8, Make<QLinearLookup<SiluTable>>()},
  };
}

}  // namespace tessera::cpu
