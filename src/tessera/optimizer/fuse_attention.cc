// AttentionFusion: scaled-dot-product attention written out in ops becomes
// one ai.tessera:Attention node (providers/cpu/fused_attention.cc):
//   MatMul(Q, KT) -> [Mul/Div by a scalar] -> [Add mask | Where(cond, ., fill)]
//     -> Softmax(last axis) -> MatMul(., V)
// with an optional scalar Mul/Div on Q before the first MatMul folded into
// the scale. The head split/merge Transposes and Reshapes around it stay as
// they are (they are cheap layout ops; the fused node removes the three
// [.., Sq, Skv] score tensors). Q, KT and V must have statically equal
// leading axes and the mask must broadcast to the scores without growing them.
#include <cmath>
#include <optional>
#include <string>

#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool SameDim(const Dim& x, const Dim& y) {
  return x.known() ? (y.known() && x.value == y.value) : (!y.known() && !x.param.empty() && x.param == y.param);
}

// `value` = input / constant (Div) or input * constant (Mul, constant on
// either side) with a scalar constant, nonzero for Div.
struct ScalarScaling {
  int node;
  std::string input;
  double constant;
  bool divides;
};

std::optional<ScalarScaling> ScalingOf(const FusionGraph& fg, const std::string& value) {
  if (int d = fg.ProducerOp(value, "Div"); d >= 0) {
    auto c = fg.ScalarConstant(fg.node(d).inputs[1]);
    if (!c || *c == 0) return std::nullopt;
    return ScalarScaling{d, fg.node(d).inputs[0], *c, true};
  }
  if (int m = fg.ProducerOp(value, "Mul"); m >= 0) {
    const Node& mn = fg.node(m);
    auto c0 = fg.ScalarConstant(mn.inputs[0]);
    auto c1 = fg.ScalarConstant(mn.inputs[1]);
    if (!c0 && !c1) return std::nullopt;
    return ScalarScaling{m, c1 ? mn.inputs[0] : mn.inputs[1], c1 ? *c1 : *c0, false};
  }
  return std::nullopt;
}

// Shapes of Q, KT, V chain as attention with equal leading axes.
bool ShapesChain(const FusionGraph& fg, const std::string& q, const std::string& kt, const std::string& v,
                 std::vector<Dim>& scores) {
  const TypeInfo* tq = fg.Type(q);
  const TypeInfo* tk = fg.Type(kt);
  const TypeInfo* tv = fg.Type(v);
  if (!tq || !tk || !tv || !tq->shape || !tk->shape || !tv->shape) return false;
  const auto& sq = *tq->shape;
  const auto& sk = *tk->shape;
  const auto& sv = *tv->shape;
  size_t r = sq.size();
  if (r < 2 || sk.size() != r || sv.size() != r) return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (!SameDim(sq[i], sk[i]) || !SameDim(sq[i], sv[i])) return false;
  if (!SameDim(sq[r - 1], sk[r - 2]) || !SameDim(sk[r - 1], sv[r - 2])) return false;
  scores.assign(sq.begin(), sq.end() - 1);
  scores.push_back(sk[r - 1]);
  return true;
}

// The mask broadcasts to `scores` without changing the scores' shape.
bool MaskFits(const FusionGraph& fg, const std::string& mask, const std::vector<Dim>& scores) {
  const TypeInfo* t = fg.Type(mask);
  if (!t || !t->shape || t->shape->size() > scores.size()) return false;
  size_t off = scores.size() - t->shape->size();
  for (size_t i = 0; i < t->shape->size(); ++i) {
    const Dim& d = (*t->shape)[i];
    if (!(d.known() && d.value == 1) && !SameDim(d, scores[off + i])) return false;
  }
  return true;
}

// v is a MatMul output, or a scalar Mul/Div of one.
bool LeadsToProduct(const FusionGraph& fg, const std::string& v) {
  if (fg.ProducerOp(v, "MatMul") >= 0) return true;
  int d = fg.ProducerOp(v, "Div");
  if (d >= 0) return fg.ScalarConstant(fg.node(d).inputs[1]) && fg.ProducerOp(fg.node(d).inputs[0], "MatMul") >= 0;
  int m = fg.ProducerOp(v, "Mul");
  if (m < 0) return false;
  const Node& mn = fg.node(m);
  return (fg.ScalarConstant(mn.inputs[1]) && fg.ProducerOp(mn.inputs[0], "MatMul") >= 0) ||
         (fg.ScalarConstant(mn.inputs[0]) && fg.ProducerOp(mn.inputs[1], "MatMul") >= 0);
}

class AttentionFusion final : public GraphPass {
 public:
  std::string name() const override { return "AttentionFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int si = 0; si < static_cast<int>(fg.size()); ++si) {
      if (!fg.Is(si, "Softmax")) continue;
      const Node& sm = fg.node(si);
      std::string p = sm.outputs[0];
      int pv = fg.SoleConsumer(p, "MatMul");
      if (pv < 0 || fg.node(pv).inputs[0] != p) continue;
      std::vector<int> nodes = {si, pv};
      std::string cur = sm.inputs[0];
      // Mask.
      std::string mask;
      float fill = 0;
      bool where = false;
      if (!fg.SingleUse(cur)) continue;
      if (int a = fg.ProducerOp(cur, "Add"); a >= 0) {
        nodes.push_back(a);
        const Node& an = fg.node(a);
        // The scores are the side that leads back to the Q.KT MatMul.
        bool left = LeadsToProduct(fg, an.inputs[0]);
        mask = left ? an.inputs[1] : an.inputs[0];
        cur = left ? an.inputs[0] : an.inputs[1];
      } else if (int w = fg.ProducerOp(cur, "Where"); w >= 0) {
        const Node& wn = fg.node(w);
        auto f = fg.ScalarConstant(wn.inputs[2]);
        if (!f || fg.ElemType(wn.inputs[0]) != DataType::kBool) continue;
        nodes.push_back(w);
        mask = wn.inputs[0];
        fill = static_cast<float>(*f);
        where = true;
        cur = wn.inputs[1];
      }
      if (!fg.SingleUse(cur)) continue;
      // Scale after the product.
      double scale = 1.0;
      if (fg.ProducerOp(cur, "Div") >= 0 || fg.ProducerOp(cur, "Mul") >= 0) {
        std::optional<ScalarScaling> scaling = ScalingOf(fg, cur);
        if (!scaling) continue;
        scale = scaling->divides ? 1.0 / scaling->constant : scaling->constant;
        nodes.push_back(scaling->node);
        cur = scaling->input;
      }
      if (!fg.SingleUse(cur)) continue;
      int qk = fg.ProducerOp(cur, "MatMul");
      if (qk < 0) continue;
      nodes.push_back(qk);
      std::string q = fg.node(qk).inputs[0], kt = fg.node(qk).inputs[1], v = fg.node(pv).inputs[1];
      // Scale on Q before the product.
      if (fg.SingleUse(q)) {
        if (std::optional<ScalarScaling> scaling = ScalingOf(fg, q)) {
          if (scaling->divides) scale /= scaling->constant;
          else scale *= scaling->constant;
          nodes.push_back(scaling->node);
          q = scaling->input;
        }
      }
      DataType dt = fg.ElemType(q);
      if (!IsFloatOrDouble(dt) || fg.ElemType(kt) != dt || fg.ElemType(v) != dt) continue;
      std::vector<Dim> scores;
      if (!ShapesChain(fg, q, kt, v, scores)) continue;
      int64_t rank = static_cast<int64_t>(scores.size());
      int64_t axis = AttrInt(sm, "axis", fg.OnnxOpset() >= 0 && fg.OnnxOpset() < 13 ? 1 : -1);
      if (axis != -1 && axis != rank - 1) continue;
      if (!mask.empty()) {
        if (!MaskFits(fg, mask, scores)) continue;
        if (!where && fg.ElemType(mask) != dt) continue;
      }
      bool ok = true;
      for (int i : nodes) ok = ok && fg.OnTarget(i);
      if (!ok) continue;
      Node n;
      n.name = fg.node(pv).name + "_attention";
      n.op_type = "Attention";
      n.domain = kTesseraDomain;
      n.inputs = {q, kt, v};
      if (!mask.empty()) n.inputs.push_back(mask);
      n.outputs = {fg.node(pv).outputs[0]};
      n.attributes = {FloatAttr("scale", static_cast<float>(scale))};
      if (where) n.attributes.push_back(FloatAttr("mask_fill", fill));
      fg.Add(std::move(n));
      for (int i : nodes) fg.Remove(i);
      ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeAttentionFusion() { return std::make_unique<AttentionFusion>(); }

}  // namespace tessera
