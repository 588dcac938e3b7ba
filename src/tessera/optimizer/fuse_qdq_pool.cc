// QdqToQLinearPool: average pooling between a DequantizeLinear and a
// QuantizeLinear,
//
//   QuantizeLinear(GlobalAveragePool(DequantizeLinear(x, xs, xz)), ys, yz)  -> QLinearGlobalAveragePool(x, xs, xz, ys, yz)
//   QuantizeLinear(AveragePool(DequantizeLinear(x, xs, xz)), ys, yz)        -> QLinearAveragePool(..., same attributes)
//
// (com.microsoft, NCHW: channels_last 0), whose kernels sum the 8-bit
// values exactly and requantize each output once: within one output step
// of the float group. AveragePool needs opset 7+ (count_include_pad) and no
// dilations other than 1 (the QLinear op has none). Needs per-tensor
// constant scalar parameters, one 8-bit type, the pool's output read by the
// Q alone, and the Q and DQ bound for the CPU provider.
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"
#include "tessera/optimizer/qdq_util.h"

namespace tessera {

namespace {

constexpr const char* kPass = "QdqToQLinearPool";

class QdqToQLinearPool final : public CpuGroupFusion {
 public:
  QdqToQLinearPool() : CpuGroupFusion(kPass, "QuantizeLinear") {}

 private:
  int FuseAt(FusionGraph& fg, int qi, const PassContext& ctx) const override {
    const auto g = UnaryQdqGroupAt(fg, qi, {"GlobalAveragePool", "AveragePool"}, ctx, kPass);
    if (!g) return 0;
    const Node qn = fg.node(qi);
    const Node on = fg.node(g->op);
    const int op = g->op;
    const bool global = on.op_type == "GlobalAveragePool";
    const Dequantize8* x = &g->x;
    const QdqParams* y = &g->y;
    if (!global) {
      if (fg.OnnxOpset() < 7) return LogQdqDeclined(ctx, kPass, on, "the model's opset is below 7");
      if (const auto d = AttrInts(on, "dilations"))
        for (int64_t v : *d)
          if (v != 1) return LogQdqDeclined(ctx, kPass, on, "it has dilations, which QLinearAveragePool does not");
    }
    if (!fg.SingleUse(qn.inputs[0])) return LogQdqDeclined(ctx, kPass, on, "its output is read elsewhere too");
    const char* fused_op = global ? "QLinearGlobalAveragePool" : "QLinearAveragePool";
    Node q = MakeQLinearNode(on, fused_op, qn.outputs[0]);
    q.inputs = {x->q, x->scale, ZeroPointInput(fg, *x), y->scale, ZeroPointInput(fg, *y)};
    for (const Attribute& a : on.attributes)
      if (a.name != "dilations") q.attributes.push_back(a);
    RemoveQdqGroup(fg, qi, {op}, {x->node});
    LogQdqFused(ctx, kPass, on, fused_op);
    fg.Add(std::move(q));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqToQLinearPool() { return std::make_unique<QdqToQLinearPool>(); }

}  // namespace tessera
