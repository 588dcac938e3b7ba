// com.microsoft QLinearConcat(Y_scale, Y_zero_point, (X, X_scale,
// X_zero_point)...) along `axis`: an input quantized as Y is copied; any
// other is requantized through a 256-entry table of Q_y(DQ_x(v)), computed
// in float as the unfused dequantize -> Concat -> quantize would (exact).
// Tables are built at kernel creation when every parameter is a constant.
#include <cstring>
#include <optional>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/byte_lookup.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/qlinear_util.h"

namespace tessera::cpu {
namespace {

// How one input reaches the output: copied, or through a table.
struct ConcatInputPlan {
  bool copy = true;
  ByteTable table{};
};

ConcatInputPlan PlanInput(const QuantParams& x, const QuantParams& y, bool is_signed) {
  ConcatInputPlan p;
  p.copy = x == y;
  if (!p.copy) p.table = MakeByteTable(is_signed, x, is_signed, y, [](float v) { return v; });
  return p;
}

class QLinearConcat final : public OpKernel {
 public:
  explicit QLinearConcat(const KernelInfo& info) : axis_(info.attr_int("axis")) {
    const size_t n = info.num_inputs();
    if (n < 5 || (n - 2) % 3 != 0)
      info.Fail("expects Y_scale, Y_zero_point and then (X, X_scale, X_zero_point) triples, got ", n, " inputs");
    // Precomputed plans need every parameter constant, and the type (from
    // Y's zero point) known.
    const Tensor* zy = info.constant_input(1);
    const auto y = ConstantQuantParams(info, 0, 1);
    if (!y || !zy) return;
    const bool is_signed = zy->dtype() == DataType::kInt8;
    std::vector<ConcatInputPlan> plans;
    for (size_t i = 2; i + 2 < n; i += 3) {
      const Tensor* zx = info.constant_input(i + 2);
      const auto x = ConstantQuantParams(info, i + 1, i + 2);
      if (!x || !zx || zx->dtype() != zy->dtype()) return;
      plans.push_back(PlanInput(*x, *y, is_signed));
    }
    plans_ = std::move(plans);
    type_ = zy->dtype();
  }

  void Compute(KernelContext& ctx) const override {
    const size_t inputs = (ctx.num_inputs() - 2) / 3;
    if (!ctx.has_input(1)) ctx.Fail("Y_zero_point is required");
    const DataType t = ctx.input(1).dtype();
    if (!IsQuant8(t)) ctx.Fail("Y_zero_point has element type ", DataTypeName(t), ", expected int8 or uint8");
    const Tensor& first = ctx.input(2);
    const int64_t rank = first.rank();
    if (rank == 0) ctx.Fail("cannot concatenate scalars");
    const int64_t axis = NormalizeAxis(axis_, rank, ctx);
    Shape out_shape = first.shape();
    out_shape[static_cast<size_t>(axis)] = 0;
    for (size_t k = 0; k < inputs; ++k) {
      const Tensor& x = ctx.input(2 + 3 * k);
      if (x.dtype() != t) ctx.Fail("input ", k, " has element type ", DataTypeName(x.dtype()), ", Y has ", DataTypeName(t));
      if (x.rank() != rank) ctx.Fail("input ", k, " has rank ", x.rank(), ", input 0 has ", rank);
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && x.dim(d) != first.dim(d))
          ctx.Fail("input ", k, " of shape ", ShapeToString(x.shape()), " does not match input 0 (",
                   ShapeToString(first.shape()), ") outside axis ", axis);
      out_shape[static_cast<size_t>(axis)] += x.dim(axis);
    }
    std::vector<ConcatInputPlan> own;
    const std::vector<ConcatInputPlan>* plans = &own;
    if (plans_ && type_ == t) {
      plans = &*plans_;
    } else {
      const QuantParams y = ReadQuantParams(ctx, 0, 1, t, "Y");
      for (size_t k = 0; k < inputs; ++k)
        own.push_back(PlanInput(ReadQuantParams(ctx, 3 + 3 * k, 4 + 3 * k, t, "an input's"), y, t == DataType::kInt8));
    }
    Tensor& out = ctx.allocate_output(0, t, out_shape);
    if (out.numel() == 0) return;
    const int64_t outer = SizeToDim(out_shape, static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(out_shape, static_cast<size_t>(axis) + 1);
    const int64_t out_block = out_shape[static_cast<size_t>(axis)] * inner;
    auto* od = static_cast<uint8_t*>(out.raw_data());
    ParallelFor(ctx.thread_pool(), outer, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(out_block, 1)),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t o = lo; o < hi; ++o) {
                    int64_t at = o * out_block;
                    for (size_t k = 0; k < inputs; ++k) {
                      const Tensor& x = ctx.input(2 + 3 * k);
                      const int64_t block = x.dim(axis) * inner;
                      const uint8_t* src = static_cast<const uint8_t*>(x.raw_data()) + o * block;
                      const ConcatInputPlan& p = (*plans)[k];
                      if (p.copy) {
                        if (block > 0) std::memcpy(od + at, src, static_cast<size_t>(block));
                      } else {
                        LookupBytes(p.table.data(), src, block, od + at);
                      }
                      at += block;
                    }
                  }
                });
  }

 private:
  int64_t axis_;
  std::optional<std::vector<ConcatInputPlan>> plans_;
  DataType type_ = DataType::kUndefined;
};

}  // namespace

std::vector<KernelRow> QLinearConcatKernels() {
  return {{kMicrosoftDomain, "QLinearConcat", 1, 1, {DataType::kInt8, DataType::kUInt8}, Make<QLinearConcat>()}};
}

}  // namespace tessera::cpu
