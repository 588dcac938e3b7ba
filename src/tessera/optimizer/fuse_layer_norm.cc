// LayerNormFusion and RmsNormFusion: normalization written out in
// elementary ops becomes ai.tessera:LayerNormalization / RMSNormalization
// (valid at any model opset, unlike ai.onnx's opset-17 / opset-23 ops).
//   LayerNorm: d = x - ReduceMean(x); y = d / Sqrt(ReduceMean(d^2) + eps) [* gamma] [+ beta]
//   RMSNorm:   y = x / Sqrt(ReduceMean(x^2) + eps) [* gamma]
// d^2 / x^2 as Pow(., 2) or Mul(., .); the division also as Mul by
// Reciprocal(Sqrt(.)) or by Div(1, Sqrt(.)). Both ReduceMeans keep dims and
// reduce the last axis only; gamma and beta are constant vectors.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// Node i is ReduceMean over the last axis of its input, keeping dims.
bool ReducesLastAxis(const FusionGraph& fg, int i) {
  if (!fg.Is(i, "ReduceMean")) return false;
  const Node& n = fg.node(i);
  if (AttrInt(n, "keepdims", 1) != 1) return false;
  std::optional<std::vector<int64_t>> axes = AttrInts(n, "axes");
  if (!axes && n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* t = fg.Constant(n.inputs[1]);
    if (!t) return false;
    axes = t->ToInt64Vector();
  }
  if (!axes || axes->size() != 1) return false;
  if ((*axes)[0] == -1) return true;
  auto r = fg.Rank(n.inputs[0]);
  return r && (*axes)[0] == *r - 1;
}

// v = num^2 (Pow(num, 2) or Mul(num, num)).
int SquareOf(const FusionGraph& fg, const std::string& v, const std::string& num) {
  int p = fg.ProducerOp(v, "Pow");
  if (p >= 0) return fg.node(p).inputs[0] == num && fg.IsScalar(fg.node(p).inputs[1], 2.0) ? p : -1;
  int m = fg.ProducerOp(v, "Mul");
  if (m >= 0 && fg.node(m).inputs.size() == 2 && fg.node(m).inputs[0] == num && fg.node(m).inputs[1] == num) return m;
  return -1;
}

struct NormMatch {
  std::vector<int> nodes;
  float epsilon = 0;
  std::string normalized;  // num / sqrt(var + eps)
};

// From the ReduceMean of num^2 at index r: + eps, Sqrt, and the division of
// num by it. `num_readers` lists the nodes allowed to read num in the pattern.
bool MatchVarianceTail(const FusionGraph& fg, int r, const std::string& num, NormMatch& m) {
  std::string var = fg.node(r).outputs[0];
  int add = fg.SoleConsumer(var, "Add");
  if (add < 0) return false;
  const Node& an = fg.node(add);
  std::string eps_name = an.inputs[0] == var ? an.inputs[1] : an.inputs[0];
  auto eps = fg.ScalarConstant(eps_name);
  if (!eps || *eps < 0) return false;
  int sq = fg.SoleConsumer(an.outputs[0], "Sqrt");
  if (sq < 0) return false;
  std::string sd = fg.node(sq).outputs[0];
  m.nodes.insert(m.nodes.end(), {r, add, sq});
  m.epsilon = static_cast<float>(*eps);
  int div = fg.SoleConsumer(sd, "Div");
  if (div >= 0) {
    const Node& dn = fg.node(div);
    if (dn.inputs[1] != sd) return false;
    if (dn.inputs[0] != num) {
      // 1 / Sqrt, then num * that.
      if (!fg.IsScalar(dn.inputs[0], 1.0)) return false;
      int mul = fg.SoleConsumer(dn.outputs[0], "Mul");
      if (mul < 0 || (fg.node(mul).inputs[0] != num && fg.node(mul).inputs[1] != num)) return false;
      m.nodes.insert(m.nodes.end(), {div, mul});
      m.normalized = fg.node(mul).outputs[0];
      return true;
    }
    m.nodes.push_back(div);
    m.normalized = dn.outputs[0];
    return true;
  }
  int rec = fg.SoleConsumer(sd, "Reciprocal");
  if (rec < 0) return false;
  int mul = fg.SoleConsumer(fg.node(rec).outputs[0], "Mul");
  if (mul < 0 || (fg.node(mul).inputs[0] != num && fg.node(mul).inputs[1] != num)) return false;
  m.nodes.insert(m.nodes.end(), {rec, mul});
  m.normalized = fg.node(mul).outputs[0];
  return true;
}

// Optional Mul by a constant vector after `v` (then optional Add of one when
// allow_beta). Updates out to the last value of the pattern.
void MatchAffine(const FusionGraph& fg, const std::string& v, bool allow_beta, DataType dt, std::vector<int>& nodes,
                 std::string& gamma, std::string& beta, std::string& out) {
  out = v;
  // A constant vector over the last axis: exactly its size when known (a
  // one-element vector would broadcast in the Mul but not in the fused op).
  const TypeInfo* vt = fg.Type(v);
  int64_t last = vt && vt->shape && !vt->shape->empty() && vt->shape->back().known() ? vt->shape->back().value : -1;
  auto vector_const = [&](const std::string& name) {
    const Tensor* t = fg.Constant(name);
    if (!t || t->rank() != 1 || t->dtype() != dt) return false;
    return last >= 0 ? t->numel() == last : t->numel() > 1;
  };
  int mul = fg.SoleConsumer(v, "Mul");
  if (mul < 0) return;
  const Node& mn = fg.node(mul);
  std::string g = mn.inputs[0] == v ? mn.inputs[1] : mn.inputs[0];
  if (!vector_const(g)) return;
  gamma = g;
  nodes.push_back(mul);
  out = mn.outputs[0];
  if (!allow_beta) return;
  int add = fg.SoleConsumer(out, "Add");
  if (add < 0) return;
  const Node& an = fg.node(add);
  std::string b = an.inputs[0] == out ? an.inputs[1] : an.inputs[0];
  if (!vector_const(b) || fg.Constant(b)->numel() != fg.Constant(gamma)->numel()) return;
  beta = b;
  nodes.push_back(add);
  out = an.outputs[0];
}

// Adds the fused node; without a gamma, a vector of ones over the last axis
// (its size must be known).
bool EmitNorm(FusionGraph& fg, const char* op, const std::string& x, std::string gamma, const std::string& beta,
              float epsilon, DataType dt, const std::string& out, const std::vector<int>& nodes) {
  if (gamma.empty()) {
    const TypeInfo* t = fg.Type(x);
    if (!t || !t->shape || t->shape->empty() || !t->shape->back().known()) return false;
    if (dt != DataType::kFloat && dt != DataType::kDouble) return false;
    int64_t d = t->shape->back().value;
    Tensor ones(dt, {d});
    for (int64_t i = 0; i < d; ++i) {
      if (dt == DataType::kFloat) ones.data<float>()[i] = 1.0f;
      else ones.data<double>()[i] = 1.0;
    }
    gamma = fg.AddInitializer(out + "_scale", std::move(ones));
  }
  Node n;
  n.name = out + "_" + op;
  n.op_type = op;
  n.domain = kTesseraDomain;
  n.inputs = {x, gamma};
  if (!beta.empty()) n.inputs.push_back(beta);
  n.outputs = {out};
  n.attributes = {IntAttr("axis", -1), FloatAttr("epsilon", epsilon)};
  fg.Add(std::move(n));
  for (int i : nodes) fg.Remove(i);
  return true;
}

class LayerNormFusion final : public GraphPass {
 public:
  std::string name() const override { return "LayerNormFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int r1 = 0; r1 < static_cast<int>(fg.size()); ++r1) {
      if (!ReducesLastAxis(fg, r1) || !fg.OnTarget(r1)) continue;
      std::string x = fg.node(r1).inputs[0];
      int sub = fg.SoleConsumer(fg.node(r1).outputs[0], "Sub");
      if (sub < 0 || fg.node(sub).inputs[0] != x) continue;
      std::string d = fg.node(sub).outputs[0];
      if (fg.editor().IsGraphOutput(d)) continue;
      // d feeds the square and the division, nothing else.
      std::vector<int> readers = fg.Consumers(d);
      if (readers.size() != 2) continue;
      int sq = -1;
      for (int c : readers)
        if (SquareOf(fg, fg.node(c).outputs[0], d) == c) sq = c;
      if (sq < 0 || !fg.SingleUse(fg.node(sq).outputs[0])) continue;
      int r2 = fg.Consumers(fg.node(sq).outputs[0])[0];
      if (!ReducesLastAxis(fg, r2)) continue;
      NormMatch m;
      m.nodes = {r1, sub, sq};
      if (!MatchVarianceTail(fg, r2, d, m)) continue;
      // The division must be d's other reader.
      int other = readers[0] == sq ? readers[1] : readers[0];
      if (std::find(m.nodes.begin(), m.nodes.end(), other) == m.nodes.end()) continue;
      DataType dt = fg.ElemType(x);
      if (!IsFloatType(dt)) continue;
      std::string gamma, beta, out;
      MatchAffine(fg, m.normalized, true, dt, m.nodes, gamma, beta, out);
      bool ok = true;
      for (int i : m.nodes) ok = ok && fg.OnTarget(i);
      if (!ok) continue;
      if (EmitNorm(fg, "LayerNormalization", x, gamma, beta, m.epsilon, dt, out, m.nodes)) ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

class RmsNormFusion final : public GraphPass {
 public:
  std::string name() const override { return "RmsNormFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int r = 0; r < static_cast<int>(fg.size()); ++r) {
      if (!ReducesLastAxis(fg, r) || !fg.OnTarget(r)) continue;
      std::string s = fg.node(r).inputs[0];
      if (!fg.SingleUse(s)) continue;
      int sq = fg.ProducerOp(s, "Pow");
      if (sq < 0) sq = fg.ProducerOp(s, "Mul");
      if (sq < 0) continue;
      std::string x = fg.node(sq).inputs[0];
      if (SquareOf(fg, s, x) != sq) continue;
      NormMatch m;
      m.nodes = {sq};
      if (!MatchVarianceTail(fg, r, x, m)) continue;
      DataType dt = fg.ElemType(x);
      if (!IsFloatType(dt)) continue;
      std::string gamma, beta, out;
      MatchAffine(fg, m.normalized, false, dt, m.nodes, gamma, beta, out);
      bool ok = true;
      for (int i : m.nodes) ok = ok && fg.OnTarget(i);
      if (!ok) continue;
      if (EmitNorm(fg, "RMSNormalization", x, gamma, "", m.epsilon, dt, out, m.nodes)) ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLayerNormFusion() { return std::make_unique<LayerNormFusion>(); }
std::unique_ptr<GraphPass> MakeRmsNormFusion() { return std::make_unique<RmsNormFusion>(); }

}  // namespace tessera
