// QdqToQLinearLookup: a function of one value between a DequantizeLinear and
// a QuantizeLinear,
//
//   QuantizeLinear(Sigmoid(DequantizeLinear(x, xs, xz)), ys, yz)    -> QLinearSigmoid(x, xs, xz, ys, yz)
//   QuantizeLinear(LeakyRelu(DequantizeLinear(x, xs, xz)), ys, yz)  -> QLinearLeakyRelu(..., alpha)
//
// (com.microsoft), whose kernels are 256-entry tables of the float group
// computed when they are created: exact but for the float Sigmoid's own
// rounding. Needs per-tensor constant scalar parameters, one 8-bit type,
// the op's output read by the Q alone, and the Q and DQ bound for the CPU
// provider.
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"
#include "tessera/optimizer/qdq_util.h"

namespace tessera {

namespace {

constexpr const char* kPass = "QdqToQLinearLookup";

class QdqToQLinearLookup final : public CpuGroupFusion {
 public:
  QdqToQLinearLookup() : CpuGroupFusion(kPass, "QuantizeLinear") {}

 private:
  int FuseAt(FusionGraph& fg, int qi, const PassContext& ctx) const override {
    const Node qn = fg.node(qi);
    if (qn.inputs.empty()) return 0;
    int op = fg.ProducerOp(qn.inputs[0], "Sigmoid");
    if (op < 0) op = fg.ProducerOp(qn.inputs[0], "LeakyRelu");
    if (op < 0) return 0;
    const Node on = fg.node(op);
    const auto x = on.inputs.empty() ? std::nullopt : PerTensorDequantize(fg, on.inputs[0]);
    if (!x) {
      if (!on.inputs.empty() && fg.ProducerOp(on.inputs[0], "DequantizeLinear") >= 0)
        return LogQdqDeclined(ctx, kPass, on, "its input is no per-tensor 8-bit DequantizeLinear with constant parameters");
      return 0;
    }
    const auto y = PerTensorQuantize(fg, qi);
    if (!y) return LogQdqDeclined(ctx, kPass, on, "its QuantizeLinear is not per tensor with a constant positive scale");
    if (x->type != y->type) return LogQdqDeclined(ctx, kPass, on, "its input and output 8-bit types differ");
    if (!fg.OnTarget(x->node)) return LogQdqDeclined(ctx, kPass, on, "its DequantizeLinear is bound for another provider than cpu");
    if (!fg.SingleUse(qn.inputs[0])) return LogQdqDeclined(ctx, kPass, on, "its output is read elsewhere too");
    const char* fused_op = on.op_type == "Sigmoid" ? "QLinearSigmoid" : "QLinearLeakyRelu";
    Node q = MakeQLinearNode(on, fused_op, qn.outputs[0]);
    q.inputs = {x->q, x->scale, ZeroPointInput(fg, *x), y->scale, ZeroPointInput(fg, *y)};
    if (on.op_type == "LeakyRelu") {
      const Attribute* alpha = on.FindAttribute("alpha");
      q.attributes.push_back(FloatAttr("alpha", alpha && alpha->type == AttributeType::kFloat ? alpha->f : 0.01f));
    }
    RemoveQdqGroup(fg, qi, {op}, {x->node});
    LogQdqFused(ctx, kPass, on, fused_op);
    fg.Add(std::move(q));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqToQLinearLookup() { return std::make_unique<QdqToQLinearLookup>(); }

}  // namespace tessera
