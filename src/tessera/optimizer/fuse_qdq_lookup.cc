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
    const auto g = UnaryQdqGroupAt(fg, qi, {"Sigmoid", "LeakyRelu"}, ctx, kPass);
    if (!g) return 0;
    const Node qn = fg.node(qi);
    const Node on = fg.node(g->op);
    const int op = g->op;
    const Dequantize8* x = &g->x;
    const QdqParams* y = &g->y;
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
