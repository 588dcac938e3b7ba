// ActivationFusion: an activation reading the only output of Conv, Gemm or
// MatMul (or of their fused forms without an activation yet) becomes the
// `activation` attribute of ai.tessera:FusedConv / FusedGemm / FusedMatMul,
// applied in place on the output while it is hot in cache. Activations:
// Relu, Clip (constant bounds), LeakyRelu, Sigmoid, HardSigmoid, SiLU
// (x * Sigmoid(x), or Swish with alpha 1), Gelu (ai.onnx or ai.tessera).
#include <limits>

#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

struct Act {
  std::string name;
  std::vector<float> params;
};

float AttrF(const Node& n, const char* name, float dflt) {
  const Attribute* a = n.FindAttribute(name);
  return a ? a->f : dflt;
}

// The activation node i computes, when it is one a fused kernel has.
std::optional<Act> ActivationOf(const FusionGraph& fg, const Node& n) {
  const std::string& op = n.op_type;
  if (n.domain == kTesseraDomain) {
    if (op != "Gelu") return std::nullopt;
    const Attribute* a = n.FindAttribute("approximate");
    std::string approx = a ? a->s : "none";
    if (approx == "none") return Act{"Gelu", {}};
    if (approx == "tanh") return Act{"GeluTanh", {}};
    return std::nullopt;
  }
  if (n.domain != kOnnxDomain || n.inputs.empty()) return std::nullopt;
  if (op == "Relu") return Act{"Relu", {}};
  if (op == "Sigmoid") return Act{"Sigmoid", {}};
  if (op == "LeakyRelu") return Act{"LeakyRelu", {AttrF(n, "alpha", 0.01f)}};
  if (op == "HardSigmoid") return Act{"HardSigmoid", {AttrF(n, "alpha", 0.2f), AttrF(n, "beta", 0.5f)}};
  if (op == "Gelu") return ActivationOf(fg, [&] {
      Node t = n;
      t.domain = kTesseraDomain;
      return t;
    }());
  if (op == "Swish") {
    if (AttrF(n, "alpha", 1.0f) != 1.0f) return std::nullopt;
    return Act{"Silu", {}};
  }
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (fg.OnnxOpset() >= 0 && fg.OnnxOpset() < 11) {
      lo = AttrF(n, "min", lo);
      hi = AttrF(n, "max", hi);
    } else {
      for (size_t k = 1; k <= 2 && k < n.inputs.size(); ++k) {
        if (n.inputs[k].empty()) continue;
        auto v = fg.ScalarConstant(n.inputs[k]);
        if (!v) return std::nullopt;
        (k == 1 ? lo : hi) = static_cast<float>(*v);
      }
    }
    return Act{"Clip", {lo, hi}};
  }
  return std::nullopt;
}

// The node producing `x` that can take an activation, or -1.
int FusionTarget(const FusionGraph& fg, const std::string& x) {
  for (const char* op : {"Conv", "Gemm", "MatMul"}) {
    int p = fg.ProducerOp(x, op);
    if (p >= 0) return p;
  }
  for (const char* op : {"FusedConv", "FusedGemm", "FusedMatMul"}) {
    int p = fg.ProducerOp(x, kTesseraDomain, op);
    if (p < 0) continue;
    const Attribute* a = fg.node(p).FindAttribute("activation");
    if (!a || a->s.empty()) return p;
  }
  return -1;
}

class ActivationFusion final : public GraphPass {
 public:
  std::string name() const override { return "ActivationFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int ai = 0; ai < static_cast<int>(fg.size()); ++ai) {
      if (!fg.live(ai) || !fg.OnTarget(ai)) continue;
      const Node& act_node = fg.node(ai);
      if (act_node.outputs.size() != 1 || act_node.inputs.empty()) continue;
      std::optional<Act> act;
      std::string x;
      int sig = -1;  // the Sigmoid of a SiLU pattern
      if (fg.Is(ai, "Mul") && act_node.inputs.size() == 2) {
        // SiLU: Mul(x, Sigmoid(x)) in either order; x feeds exactly these two.
        for (int side = 0; side < 2 && sig < 0; ++side) {
          int s = fg.ProducerOp(act_node.inputs[static_cast<size_t>(side)], "Sigmoid");
          if (s < 0 || fg.node(s).inputs[0] != act_node.inputs[static_cast<size_t>(1 - side)]) continue;
          if (!fg.SingleUse(act_node.inputs[static_cast<size_t>(side)]) || !fg.OnTarget(s)) continue;
          sig = s;
          x = fg.node(s).inputs[0];
        }
        if (sig < 0 || fg.editor().UseCount(x) != 2 || fg.editor().IsGraphOutput(x)) continue;
        act = Act{"Silu", {}};
      } else {
        act = ActivationOf(fg, act_node);
        x = act_node.inputs[0];
        if (!act || !fg.SingleUse(x)) continue;
      }
      int ti = FusionTarget(fg, x);
      if (ti < 0 || !fg.OnTarget(ti)) continue;
      Node target = fg.node(ti);
      std::string out_name = fg.node(ai).outputs[0];
      if (target.domain == kOnnxDomain) {
        // Element types the fused kernels cover; the weights tell when known.
        DataType dt = target.inputs.size() > 1 ? fg.ElemType(target.inputs[1]) : DataType::kUndefined;
        if (dt == DataType::kUndefined) dt = fg.ElemType(target.inputs[0]);
        bool conv = target.op_type == "Conv";
        bool ok = conv ? (IsFloatOrDouble(dt) || dt == DataType::kFloat16 || dt == DataType::kBFloat16)
                       : IsFloatOrDouble(dt);
        if (!ok) continue;
        if (target.op_type == "Gemm" && fg.OnnxOpset() < 11) continue;  // legacy broadcast attribute
        target.domain = kTesseraDomain;
        target.op_type = "Fused" + target.op_type;
      }
      std::vector<Attribute> attrs;
      for (auto& a : target.attributes)
        if (a.name != "activation" && a.name != "activation_params") attrs.push_back(a);
      attrs.push_back(StringAttr("activation", act->name));
      if (!act->params.empty()) attrs.push_back(FloatsAttr("activation_params", act->params));
      target.attributes = std::move(attrs);
      target.outputs = {out_name};
      fg.Add(std::move(target));
      fg.Remove(ai);
      if (sig >= 0) fg.Remove(sig);
      fg.Remove(ti);
      ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeActivationFusion() { return std::make_unique<ActivationFusion>(); }

}  // namespace tessera
