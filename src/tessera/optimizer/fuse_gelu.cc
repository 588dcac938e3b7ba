// GeluFusion: GELU written out in elementary ops becomes ai.tessera:Gelu.
//   erf form:  0.5 * x * (1 + Erf(x / sqrt2))       (x * 1/sqrt2 also)
//   tanh form: 0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// with x^3 as Pow(x, 3), x*x*x or x*(x*x), and the tail 0.5 * x * (1 + t) in
// the orders exporters emit: ((x * a) * 0.5), ((x * 0.5) * a), (x * (a * 0.5)).
// Every intermediate value must be read by the pattern alone.
#include <cmath>

#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"

namespace tessera {

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;

// The other operand of a two-input node, given one of them.
std::string Other(const Node& n, const std::string& v) {
  if (n.inputs.size() != 2) return "";
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return "";
}

// Triggered by the Erf (exact form) or the Tanh (tanh approximation).
class GeluFusion final : public CpuGroupFusion {
 public:
  GeluFusion() : CpuGroupFusion("GeluFusion", nullptr) {}

 protected:
  bool IsTrigger(const FusionGraph& fg, int i) const override { return fg.Is(i, "Erf") || fg.Is(i, "Tanh"); }

  int FuseAt(FusionGraph& fg, int i, const PassContext&) const override {
    bool erf = fg.Is(i, "Erf");
    std::vector<int> nodes = {i};
    std::string x = erf ? MatchErfArg(fg, fg.node(i).inputs[0], nodes) : MatchTanhArg(fg, fg.node(i).inputs[0], nodes);
    if (x.empty()) return 0;
    std::string out;
    DataType dt = DataType::kUndefined;
    if (!MatchTail(fg, fg.node(i).outputs[0], x, nodes, out, dt)) return 0;
    if (!(dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kFloat16 || dt == DataType::kBFloat16))
      return 0;
    for (int n : nodes)
      if (!fg.OnTarget(n)) return 0;
    Node gelu;
    gelu.name = fg.node(i).name + "_gelu";
    gelu.op_type = "Gelu";
    gelu.domain = kTesseraDomain;
    gelu.inputs = {x};
    gelu.outputs = {out};
    gelu.attributes = {StringAttr("approximate", erf ? "none" : "tanh")};
    fg.Add(std::move(gelu));
    for (int n : nodes) fg.Remove(n);
    return 1;
  }

 private:
  // Erf's argument is x / sqrt2 or x * (1/sqrt2): returns x.
  static std::string MatchErfArg(const FusionGraph& fg, const std::string& arg, std::vector<int>& nodes) {
    if (!fg.SingleUse(arg)) return "";
    int d = fg.ProducerOp(arg, "Div");
    if (d >= 0 && fg.node(d).inputs.size() == 2 &&
        fg.IsScalar(fg.node(d).inputs[1], kSqrt2, 1e-4)) {
      nodes.push_back(d);
      return fg.node(d).inputs[0];
    }
    int m = fg.ProducerOp(arg, "Mul");
    if (m < 0) return "";
    const Node& mul = fg.node(m);
    for (int s = 0; s < 2; ++s)
      if (fg.IsScalar(mul.inputs[static_cast<size_t>(1 - s)], 1.0 / kSqrt2, 1e-4)) {
        nodes.push_back(m);
        return mul.inputs[static_cast<size_t>(s)];
      }
    return "";
  }

  // Tanh's argument is sqrt(2/pi) * (x + 0.044715 * x^3): returns x.
  static std::string MatchTanhArg(const FusionGraph& fg, const std::string& arg, std::vector<int>& nodes) {
    const FusionGraph& g = fg;
    if (!fg.SingleUse(arg)) return "";
    int m = fg.ProducerOp(arg, "Mul");
    if (m < 0 || g.node(m).inputs.size() != 2) return "";
    std::string inner;
    for (int s = 0; s < 2; ++s)
      if (fg.IsScalar(g.node(m).inputs[static_cast<size_t>(s)], kSqrt2OverPi, 1e-4))
        inner = g.node(m).inputs[static_cast<size_t>(1 - s)];
    if (inner.empty() || !fg.SingleUse(inner)) return "";
    int add = fg.ProducerOp(inner, "Add");
    if (add < 0 || g.node(add).inputs.size() != 2) return "";
    for (int s = 0; s < 2; ++s) {
      std::string x = g.node(add).inputs[static_cast<size_t>(s)];
      std::string w = g.node(add).inputs[static_cast<size_t>(1 - s)];
      std::vector<int> cube_nodes;
      if (!fg.SingleUse(w)) continue;
      int wm = fg.ProducerOp(w, "Mul");
      if (wm < 0) continue;
      std::string cube;
      for (int t = 0; t < 2; ++t)
        if (fg.IsScalar(g.node(wm).inputs[static_cast<size_t>(t)], 0.044715, 1e-3))
          cube = g.node(wm).inputs[static_cast<size_t>(1 - t)];
      if (cube.empty() || !IsCube(fg, cube, x, cube_nodes)) continue;
      nodes.push_back(m);
      nodes.push_back(add);
      nodes.push_back(wm);
      nodes.insert(nodes.end(), cube_nodes.begin(), cube_nodes.end());
      return x;
    }
    return "";
  }

  // v = Pow(x, 3), x * (x * x) or (x * x) * x, read by the pattern alone.
  static bool IsCube(const FusionGraph& fg, const std::string& v, const std::string& x, std::vector<int>& nodes) {
    const FusionGraph& g = fg;
    if (!fg.SingleUse(v)) return false;
    int p = fg.ProducerOp(v, "Pow");
    if (p >= 0) {
      if (g.node(p).inputs[0] != x || !fg.IsScalar(g.node(p).inputs[1], 3.0)) return false;
      nodes.push_back(p);
      return true;
    }
    int m = fg.ProducerOp(v, "Mul");
    if (m < 0) return false;
    std::string sq = Other(g.node(m), x);
    if (sq.empty() || !fg.SingleUse(sq)) return false;
    int m2 = fg.ProducerOp(sq, "Mul");
    if (m2 < 0 || g.node(m2).inputs[0] != x || g.node(m2).inputs[1] != x) return false;
    nodes.push_back(m);
    nodes.push_back(m2);
    return true;
  }

  // From t = Erf/Tanh output: a = 1 + t, then 0.5 * x * a in one of three
  // orders. Sets out to the final value and dt to the constants' type.
  static bool MatchTail(const FusionGraph& fg, const std::string& t, const std::string& x, std::vector<int>& nodes,
                        std::string& out, DataType& dt) {
    const FusionGraph& g = fg;
    int add = fg.SoleConsumer(t, "Add");
    if (add < 0) return false;
    std::string one = Other(g.node(add), t);
    if (!fg.IsScalar(one, 1.0)) return false;
    dt = fg.ElemType(one);
    std::string a = g.node(add).outputs[0];
    int m1 = fg.SoleConsumer(a, "Mul");
    if (m1 < 0) return false;
    std::string o1 = Other(g.node(m1), a);
    std::string r1 = g.node(m1).outputs[0];
    if (o1 == x) {  // (x * a) * 0.5
      int m2 = fg.SoleConsumer(r1, "Mul");
      if (m2 < 0 || !fg.IsScalar(Other(g.node(m2), r1), 0.5)) return false;
      nodes.insert(nodes.end(), {add, m1, m2});
      out = g.node(m2).outputs[0];
      return true;
    }
    if (fg.IsScalar(o1, 0.5)) {  // x * (a * 0.5)
      int m2 = fg.SoleConsumer(r1, "Mul");
      if (m2 < 0 || Other(g.node(m2), r1) != x) return false;
      nodes.insert(nodes.end(), {add, m1, m2});
      out = g.node(m2).outputs[0];
      return true;
    }
    // (x * 0.5) * a
    int h = fg.ProducerOp(o1, "Mul");
    if (h < 0 || !fg.SingleUse(o1) || Other(g.node(h), x).empty() || !fg.IsScalar(Other(g.node(h), x), 0.5))
      return false;
    nodes.insert(nodes.end(), {add, m1, h});
    out = r1;
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeGeluFusion() { return std::make_unique<GeluFusion>(); }

}  // namespace tessera
