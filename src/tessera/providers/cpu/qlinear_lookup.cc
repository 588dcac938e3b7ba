// com.microsoft QLinearSigmoid and QLinearLeakyRelu: functions of one 8-bit
// value, so each is a 256-entry table of Q(f(DQ(x))) computed in float
// exactly as the unfused dequantize -> op -> quantize would. With constant
// scales and zero points (the usual case) the table is built once, when the
// kernel is created; otherwise per run.
#include <cmath>
#include <optional>

#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"
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

// X, X_scale, X_zero_point?, Y_scale, Y_zero_point? -> Y, Y of X's type.
template <typename Fn>
class QLinearLookup final : public OpKernel {
 public:
  explicit QLinearLookup(const KernelInfo& info) : fn_(info) {
    if (info.num_inputs() < 4) info.Fail("expects 4 or 5 inputs (X, X_scale, X_zero_point, Y_scale[, Y_zero_point]), got ", info.num_inputs());
    // The element type is known here only through a constant zero point.
    const auto x = ConstantQuantParams(info, 1, 2), y = ConstantQuantParams(info, 3, 4);
    const Tensor* zx = info.has_input(2) ? info.constant_input(2) : nullptr;
    const Tensor* zy = info.has_input(4) ? info.constant_input(4) : nullptr;
    if (!x || !y || !zx || !zy || zx->dtype() != zy->dtype()) return;
    signed_ = zx->dtype() == DataType::kInt8;
    table_ = MakeByteTable(signed_, *x, signed_, *y, fn_);
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
      own = MakeByteTable(is_signed, ReadQuantParams(ctx, 1, 2, t, "X"), is_signed, ReadQuantParams(ctx, 3, 4, t, "Y"),
                          fn_);
    }
    Tensor& y = ctx.allocate_output(0, t, x.shape());
    ApplyByteTable(*table, static_cast<const uint8_t*>(x.raw_data()), x.numel(), static_cast<uint8_t*>(y.raw_data()),
                   ctx.thread_pool());
  }

 private:
  Fn fn_;
  std::optional<ByteTable> table_;
  bool signed_ = false;
};

}  // namespace

std::vector<KernelRow> QLinearLookupKernels() {
  const std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {kMicrosoftDomain, "QLinearSigmoid", 1, 1, q8, Make<QLinearLookup<SigmoidFn>>()},
      {kMicrosoftDomain, "QLinearLeakyRelu", 1, 1, q8, Make<QLinearLookup<LeakyReluFn>>()},
  };
}

}  // namespace tessera::cpu
