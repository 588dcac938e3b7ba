// SkipLayerNormFusion: Add(a, b) -> LayerNormalization over the last axis
// becomes ai.tessera:SkipLayerNormalization(a, b, gamma, beta), which also
// returns the sum (output 1) when anything else reads it (pre-norm residual
// streams). a and b must have the same, statically known shape (the fused op
// does not broadcast), gamma and beta constant vectors over the last axis.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool SameShape(const FusionGraph& fg, const std::string& a, const std::string& b) {
  const TypeInfo* ta = fg.Type(a);
  const TypeInfo* tb = fg.Type(b);
  if (!ta || !tb || !ta->shape || !tb->shape || ta->shape->size() != tb->shape->size() || ta->shape->empty())
    return false;
  for (size_t i = 0; i < ta->shape->size(); ++i) {
    const Dim& x = (*ta->shape)[i];
    const Dim& y = (*tb->shape)[i];
    bool same = x.known() ? (y.known() && x.value == y.value) : (!y.known() && !x.param.empty() && x.param == y.param);
    if (!same) return false;
  }
  return true;
}

class SkipLayerNormFusion final : public GraphPass {
 public:
  std::string name() const override { return "SkipLayerNormFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int li = 0; li < static_cast<int>(fg.size()); ++li) {
      if (!fg.live(li) || !fg.OnTarget(li)) continue;
      const Node& ln = fg.node(li);
      bool onnx_ln = ln.domain == kOnnxDomain && ln.op_type == "LayerNormalization";
      bool own_ln = ln.domain == kTesseraDomain && ln.op_type == "LayerNormalization";
      if (!(onnx_ln || own_ln) || ln.inputs.size() < 2) continue;
      bool extra = false;
      for (size_t o = 1; o < ln.outputs.size(); ++o) extra = extra || !ln.outputs[o].empty();
      if (extra) continue;
      int ai = fg.ProducerOp(ln.inputs[0], "Add");
      if (ai < 0 || !fg.OnTarget(ai)) continue;
      const Node& add = fg.node(ai);
      if (add.inputs.size() != 2) continue;
      std::string sum = add.outputs[0];
      const std::string& a = add.inputs[0];
      const std::string& b = add.inputs[1];
      DataType dt = fg.ElemType(a);
      if (!IsFloatOrDouble(dt) || fg.ElemType(b) != dt || !SameShape(fg, a, b)) continue;
      int64_t rank = static_cast<int64_t>(fg.Type(a)->shape->size());
      const Dim& last = fg.Type(a)->shape->back();
      int64_t axis = AttrInt(ln, "axis", -1);
      if (axis != -1 && axis != rank - 1) continue;
      const Tensor* gamma = fg.Constant(ln.inputs[1]);
      const Tensor* beta = ln.inputs.size() > 2 && !ln.inputs[2].empty() ? fg.Constant(ln.inputs[2]) : nullptr;
      bool has_beta = ln.inputs.size() > 2 && !ln.inputs[2].empty();
      auto fits = [&](const Tensor* t) {
        return t && t->dtype() == dt && t->rank() == 1 && last.known() && t->numel() == last.value;
      };
      if (!fits(gamma) || (has_beta && !fits(beta))) continue;
      // The sum's other readers (if any) take output 1.
      bool sum_used_elsewhere = fg.editor().UseCount(sum) > 1;
      if (fg.editor().Consumers(sum).size() > 1) {
        for (int c : fg.editor().Consumers(sum))
          if (c != li && GraphEditor::HasSubgraphs(fg.node(c))) sum_used_elsewhere = false, extra = true;
      }
      if (extra) continue;
      const Attribute* eps = ln.FindAttribute("epsilon");
      Node n;
      n.name = ln.name + "_skip";
      n.op_type = "SkipLayerNormalization";
      n.domain = kTesseraDomain;
      n.inputs = {a, b, ln.inputs[1]};
      if (has_beta) n.inputs.push_back(ln.inputs[2]);
      n.outputs = {ln.outputs[0]};
      if (sum_used_elsewhere || fg.editor().IsGraphOutput(sum)) n.outputs.push_back(sum);
      n.attributes = {FloatAttr("epsilon", eps ? eps->f : 1e-5f)};
      fg.Add(std::move(n));
      fg.Remove(li);
      fg.Remove(ai);
      ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeSkipLayerNormFusion() { return std::make_unique<SkipLayerNormFusion>(); }

}  // namespace tessera
