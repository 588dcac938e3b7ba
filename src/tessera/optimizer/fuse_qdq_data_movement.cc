// QdqDataMovement: an op that only moves or selects values, between a
// DequantizeLinear and a QuantizeLinear with the same constant scale and
// zero point,
//
//   QuantizeLinear(MaxPool(DequantizeLinear(q, s, z)), s, z)  ->  MaxPool(q)
//
// runs on the quantized values instead: exact, because dequantizing is
// elementwise and, for a positive scale, increasing (so the maximum of the
// dequantized values is the dequantized maximum), and Q(DQ(v)) is v. The
// ops: MaxPool (opset 12+, which takes 8-bit integers), Concat (every input
// dequantized alike), Reshape, Flatten, Transpose, Squeeze, Unsqueeze.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool SameConstant(const FusionGraph& fg, const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return a.empty() && b.empty();
  if (a == b) return true;
  const Tensor* x = fg.Constant(a);
  const Tensor* y = fg.Constant(b);
  return x && y && SameValues(*x, *y);
}

class QdqDataMovement final : public GraphPass {
 public:
  std::string name() const override { return "QdqDataMovement"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int changed = 0;
    for (int qi = 0; qi < static_cast<int>(fg.size()); ++qi) {
      if (!fg.Is(qi, "QuantizeLinear") || !fg.OnTarget(qi)) continue;
      changed += RewriteAt(fg, qi);
    }
    if (changed) fg.Commit();
    return changed;
  }

 private:
  static int RewriteAt(FusionGraph& fg, int qi) {
    const Node qn = fg.node(qi);
    if (qn.inputs.size() < 3 || qn.inputs[2].empty() || AttrInt(qn, "block_size", 0) != 0) return 0;
    const Tensor* s = fg.Constant(qn.inputs[1]);
    const Tensor* z = fg.Constant(qn.inputs[2]);
    if (!s || !z || s->numel() != 1 || z->numel() != 1 || !(s->GetAsDouble(0) > 0)) return 0;
    if (z->dtype() != DataType::kUInt8 && z->dtype() != DataType::kInt8) return 0;
    if (!fg.SingleUse(qn.inputs[0])) return 0;
    int op = -1;
    for (const char* name : {"MaxPool", "Concat", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze"})
      if ((op = fg.ProducerOp(qn.inputs[0], name)) >= 0) break;
    if (op < 0 || !fg.OnTarget(op)) return 0;
    const Node on = fg.node(op);
    if (on.op_type == "MaxPool" && (fg.OnnxOpset() < 12 || (on.outputs.size() > 1 && !on.outputs[1].empty())))
      return 0;
    // The inputs that carry data (all of Concat's, the first otherwise),
    // each a DequantizeLinear with Q's parameters.
    const size_t data_inputs = on.op_type == "Concat" ? on.inputs.size() : 1;
    std::vector<std::string> quantized;
    std::vector<int> dequantizers;
    for (size_t i = 0; i < data_inputs; ++i) {
      const int di = fg.ProducerOp(on.inputs[i], "DequantizeLinear");
      if (di < 0) return 0;
      const Node& dn = fg.node(di);
      if (dn.inputs.size() < 3 || AttrInt(dn, "block_size", 0) != 0 || !SameConstant(fg, dn.inputs[1], qn.inputs[1]) ||
          !SameConstant(fg, dn.inputs[2], qn.inputs[2]))
        return 0;
      quantized.push_back(dn.inputs[0]);
      dequantizers.push_back(di);
    }
    Node moved = on;
    for (size_t i = 0; i < data_inputs; ++i) moved.inputs[i] = quantized[i];
    moved.outputs = {qn.outputs[0]};
    fg.Remove(qi);
    fg.Remove(op);
    for (int d : dequantizers)
      if (fg.live(d) && fg.editor().UseCount(fg.node(d).outputs[0]) == 0) fg.Remove(d);
    fg.Add(std::move(moved));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqDataMovement() { return std::make_unique<QdqDataMovement>(); }

}  // namespace tessera
