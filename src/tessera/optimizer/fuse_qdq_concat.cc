// QdqToQLinearConcat: a Concat of dequantized values whose parameters
// differ from its QuantizeLinear's,
//
//   QuantizeLinear(Concat(DequantizeLinear(x0, s0, z0), DequantizeLinear(x1, s1, z1), ...), ys, yz)
//
// becomes com.microsoft QLinearConcat(ys, yz, x0, s0, z0, x1, s1, z1, ...)
// with the same axis: inputs at (ys, yz) are copied, the others requantized
// through a table of the float group (exact). When every input shares the
// output's parameters QdqDataMovement (which runs first) has already made
// it a plain Concat of the quantized values. Needs per-tensor constant
// scalar parameters, one 8-bit type, the Concat's output read by the Q
// alone, and the Q and DQ nodes bound for the CPU provider.
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"
#include "tessera/optimizer/qdq_util.h"

namespace tessera {

namespace {

constexpr const char* kPass = "QdqToQLinearConcat";

class QdqToQLinearConcat final : public CpuGroupFusion {
 public:
  QdqToQLinearConcat() : CpuGroupFusion(kPass, "QuantizeLinear") {}

 private:
  int FuseAt(FusionGraph& fg, int qi, const PassContext& ctx) const override {
    const Node qn = fg.node(qi);
    if (qn.inputs.empty()) return 0;
    const int op = fg.ProducerOp(qn.inputs[0], "Concat");
    if (op < 0) return 0;
    const Node on = fg.node(op);
    std::vector<Dequantize8> xs;
    bool any_dq = false;
    for (const std::string& in : on.inputs) {
      any_dq |= !in.empty() && fg.ProducerOp(in, "DequantizeLinear") >= 0;
      if (auto d = in.empty() ? std::nullopt : PerTensorDequantize(fg, in)) xs.push_back(std::move(*d));
    }
    if (!any_dq) return 0;
    if (xs.size() != on.inputs.size() || xs.empty())
      return LogQdqDeclined(ctx, kPass, on, "an input is no per-tensor 8-bit DequantizeLinear with constant parameters");
    const auto y = PerTensorQuantize(fg, qi);
    if (!y) return LogQdqDeclined(ctx, kPass, on, "its QuantizeLinear is not per tensor with a constant positive scale");
    for (const Dequantize8& x : xs) {
      if (x.type != y->type) return LogQdqDeclined(ctx, kPass, on, "its inputs and output are not all of one 8-bit type");
      if (!fg.OnTarget(x.node)) return LogQdqDeclined(ctx, kPass, on, "a DequantizeLinear is bound for another provider than cpu");
    }
    if (!fg.SingleUse(qn.inputs[0])) return LogQdqDeclined(ctx, kPass, on, "its output is read elsewhere too");
    const Attribute* axis = on.FindAttribute("axis");
    if (!axis || axis->type != AttributeType::kInt) return LogQdqDeclined(ctx, kPass, on, "it has no axis");
    Node q = MakeQLinearNode(on, "QLinearConcat", qn.outputs[0]);
    q.inputs = {y->scale, ZeroPointInput(fg, *y)};
    std::vector<int> dequantizers;
    for (const Dequantize8& x : xs) {
      q.inputs.insert(q.inputs.end(), {x.q, x.scale, ZeroPointInput(fg, x)});
      dequantizers.push_back(x.node);
    }
    q.attributes.push_back(IntAttr("axis", axis->i));
    RemoveQdqGroup(fg, qi, {op}, dequantizers);
    LogQdqFused(ctx, kPass, on, "QLinearConcat");
    fg.Add(std::move(q));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqToQLinearConcat() { return std::make_unique<QdqToQLinearConcat>(); }

}  // namespace tessera
