// QdqToQLinearBinary: an Add or Mul between dequantized and quantized
// values,
//
//   QuantizeLinear(Add(DequantizeLinear(a, as, az), DequantizeLinear(b, bs, bz)) [-> Relu], cs, cz)
//
// becomes com.microsoft QLinearAdd(a, as, az, b, bs, bz, cs, cz) (QLinearMul
// for Mul), which computes in 8 bits within one output step of the float
// group. This is also the residual Add of a quantized CNN once QdqToQLinear
// has made its convolutions QLinearConv: both operands are then
// DequantizeLinears of int8 values. A Relu between the Add and the Q folds
// in only when cz is its type's lowest value (saturation is the Relu then).
// Needs per-tensor constant scalar parameters, one 8-bit type throughout,
// model opset 7+ (numpy broadcasting), the Add's output read by the Q (or
// the Relu) alone, and the Q and DQ nodes bound for the CPU provider (the
// only one with the com.microsoft kernels; the float op between them may
// have been claimed by another, which this takes back).
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"
#include "tessera/optimizer/qdq_util.h"

namespace tessera {

namespace {

constexpr const char* kPass = "QdqToQLinearBinary";

class QdqToQLinearBinary final : public CpuGroupFusion {
 public:
  QdqToQLinearBinary() : CpuGroupFusion(kPass, "QuantizeLinear", 7) {}

 private:
  int FuseAt(FusionGraph& fg, int qi, const PassContext& ctx) const override {
    const Node qn = fg.node(qi);
    if (qn.inputs.empty()) return 0;
    std::string sum = qn.inputs[0];
    const int relu = fg.ProducerOp(sum, "Relu");
    if (relu >= 0) sum = fg.node(relu).inputs[0];
    int op = fg.ProducerOp(sum, "Add");
    if (op < 0) op = fg.ProducerOp(sum, "Mul");
    if (op < 0) return 0;
    const Node on = fg.node(op);
    const auto a = on.inputs.size() == 2 ? PerTensorDequantize(fg, on.inputs[0]) : std::nullopt;
    const auto b = on.inputs.size() == 2 ? PerTensorDequantize(fg, on.inputs[1]) : std::nullopt;
    if (!a && !b) return 0;  // not a QDQ group: nothing to say
    const auto c = PerTensorQuantize(fg, qi);
    if (!c) return LogQdqDeclined(ctx, kPass, on, "its QuantizeLinear is not per tensor with a constant positive scale");
    if (!a || !b) return LogQdqDeclined(ctx, kPass, on, "an operand is no per-tensor 8-bit DequantizeLinear with constant parameters");
    if (a->type != c->type || b->type != c->type)
      return LogQdqDeclined(ctx, kPass, on, "its operands and output are not all of one 8-bit type");
    if (!fg.OnTarget(a->node) || !fg.OnTarget(b->node))
      return LogQdqDeclined(ctx, kPass, on, "a DequantizeLinear is bound for another provider than cpu");
    if (relu >= 0) {
      const int32_t lowest = c->type == DataType::kInt8 ? -128 : 0;
      if (on.op_type != "Add" || c->zero_value != lowest || !fg.SingleUse(qn.inputs[0]))
        return LogQdqDeclined(ctx, kPass, on, "a Relu follows and the output zero point is not its type's lowest value");
    }
    if (!fg.SingleUse(sum)) return LogQdqDeclined(ctx, kPass, on, "its output is read elsewhere too");
    const char* fused_op = on.op_type == "Add" ? "QLinearAdd" : "QLinearMul";
    Node q = MakeQLinearNode(on, fused_op, qn.outputs[0]);
    q.inputs = {a->q, a->scale, ZeroPointInput(fg, *a), b->q, b->scale, ZeroPointInput(fg, *b), c->scale,
                ZeroPointInput(fg, *c)};
    std::vector<int> float_nodes = {op};
    if (relu >= 0) float_nodes.push_back(relu);
    RemoveQdqGroup(fg, qi, float_nodes, {a->node, b->node});
    LogQdqFused(ctx, kPass, on, fused_op);
    fg.Add(std::move(q));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqToQLinearBinary() { return std::make_unique<QdqToQLinearBinary>(); }

}  // namespace tessera
