// SwiGLU, LinearAttention and the ai.onnx.preview FlexAttention.
#include <cmath>
#include <memory>

#include "support/op_test.h"

namespace tessera::test {
namespace {

// ---- SwiGLU ---------------------------------------------------------------------
float Swish(float a, float alpha) { return a / (1.f + std::exp(-alpha * a)); }

TEST(SwiGLUTest, DefaultAlpha) {
  OpTest("SwiGLU", 28)
      .Input("A", T_<float>({1.f, -2.f, 0.f}, {3}))
      .Input("B", T_<float>({2.f, 3.f, 5.f}, {3}))
      .Output("Y", T_<float>({Swish(1.f, 1.f) * 2.f, Swish(-2.f, 1.f) * 3.f, 0.f}, {3}))
      .Run();
}

TEST(SwiGLUTest, AlphaAndDouble) {
  const double a = 1.5, b = -2.0;
  OpTest("SwiGLU", 28)
      .Attr("alpha", 1.702f)
      .Input("A", T_<double>({a}, {1, 1}))
      .Input("B", T_<double>({b}, {1, 1}))
      .Output("Y", T_<double>({a / (1 + std::exp(-static_cast<double>(1.702f) * a)) * b}, {1, 1}))
      .Tolerance(1e-9, 1e-12)
      .Run();
}

TEST(SwiGLUTest, EmptyTensor) {
  OpTest("SwiGLU", 28)
      .Input("A", T_<float>({}, {0, 4}))
      .Input("B", T_<float>({}, {0, 4}))
      .Output("Y", T_<float>({}, {0, 4}))
      .Run();
}

TEST(SwiGLUTest, NoBroadcastingFails) {
  OpTest("SwiGLU", 28)
      .Input("A", T_<float>({1.f, 2.f}, {2}))
      .Input("B", T_<float>({1.f}, {1}))
      .Output("Y", T_<float>({0.f, 0.f}, {2}))
      .ExpectFailure("identical shapes");
}

// ---- LinearAttention ----------------------------------------------------------------
TEST(LinearAttentionTest, DeltaRuleByHand) {
  // d_k = 2, d_v = 1, one head, two steps (see the derivation in the test body).
  // step 1: k=(1,0) v=2 beta=.5 -> S=[[1],[0]], q=(1,1) -> o=1
  // step 2: k=(0,1) v=4 beta=.5 -> S=[[1],[2]], q=(1,2) -> o=5
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{1})
      .Attr("kv_num_heads", int64_t{1})
      .Attr("update_rule", std::string("delta"))
      .Attr("scale", 1.0f)
      .Input("query", T_<float>({1, 1, 1, 2}, {1, 2, 2}))
      .Input("key", T_<float>({1, 0, 0, 1}, {1, 2, 2}))
      .Input("value", T_<float>({2, 4}, {1, 2, 1}))
      .OmittedInput()
      .OmittedInput()
      .Input("beta", T_<float>({0.5f, 0.5f}, {1, 2, 1}))
      .Output("output", T_<float>({1, 5}, {1, 2, 1}))
      .Output("present_state", T_<float>({1, 2}, {1, 1, 2, 1}))
      .Run();
}

TEST(LinearAttentionTest, GatedPerHeadDecayWithPastAndGqa) {
  // S = 0.5 * 2 + 1 * 1 = 2; two query heads share the kv head: o = (3*2, 4*2).
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{2})
      .Attr("kv_num_heads", int64_t{1})
      .Attr("update_rule", std::string("gated"))
      .Input("query", T_<float>({3, 4}, {1, 1, 2}))
      .Input("key", T_<float>({1}, {1, 1, 1}))
      .Input("value", T_<float>({1}, {1, 1, 1}))
      .Input("past_state", T_<float>({2}, {1, 1, 1, 1}))
      .Input("decay", T_<float>({std::log(0.5f)}, {1, 1, 1}))
      .Output("output", T_<float>({6, 8}, {1, 1, 2}))
      .Output("present_state", T_<float>({2}, {1, 1, 1, 1}))
      .Run();
}

TEST(LinearAttentionTest, LinearDefaultScale) {
  // d_k = 4: scale = 1/2. S = k (x) v; o = 0.5 * q.k * v.
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{1})
      .Attr("kv_num_heads", int64_t{1})
      .Attr("update_rule", std::string("linear"))
      .Input("query", T_<float>({1, 1, 1, 1}, {1, 1, 4}))
      .Input("key", T_<float>({1, 2, 3, 4}, {1, 1, 4}))
      .Input("value", T_<float>({1, -1}, {1, 1, 2}))
      .Output("output", T_<float>({5, -5}, {1, 1, 2}))
      .UncheckedOutput("present_state")
      .Run();
}

TEST(LinearAttentionTest, MissingDecayFails) {
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{1})
      .Attr("kv_num_heads", int64_t{1})
      .Attr("update_rule", std::string("gated"))
      .Input("query", T_<float>({1}, {1, 1, 1}))
      .Input("key", T_<float>({1}, {1, 1, 1}))
      .Input("value", T_<float>({1}, {1, 1, 1}))
      .Output("output", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("requires the decay input");
}

TEST(LinearAttentionTest, BadHeadsFail) {
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{3})
      .Attr("kv_num_heads", int64_t{2})
      .Input("query", T_<float>({1, 1, 1}, {1, 1, 3}))
      .Input("key", T_<float>({1, 1}, {1, 1, 2}))
      .Input("value", T_<float>({1, 1}, {1, 1, 2}))
      .Output("output", T_<float>({0, 0, 0}, {1, 1, 3}))
      .ExpectFailure("multiple of kv_num_heads");
}

TEST(LinearAttentionTest, WrongPastStateShapeFails) {
  OpTest("LinearAttention", 27)
      .Attr("q_num_heads", int64_t{1})
      .Attr("kv_num_heads", int64_t{1})
      .Attr("update_rule", std::string("linear"))
      .Input("query", T_<float>({1}, {1, 1, 1}))
      .Input("key", T_<float>({1}, {1, 1, 1}))
      .Input("value", T_<float>({1}, {1, 1, 1}))
      .Input("past_state", T_<float>({1, 2}, {1, 1, 1, 2}))
      .Output("output", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("past_state must have shape");
}

// ---- FlexAttention ---------------------------------------------------------------------
constexpr const char* kPreview = "ai.onnx.preview";

std::shared_ptr<Graph> NegGraph() {
  auto g = std::make_shared<Graph>();
  g->name = "neg";
  ValueInfo in, out;
  in.name = "s";
  in.type = TypeInfo::Tensor(DataType::kFloat);
  out.name = "o";
  out.type = TypeInfo::Tensor(DataType::kFloat);
  g->inputs = {in};
  g->outputs = {out};
  Node n;
  n.op_type = "Neg";
  n.inputs = {"s"};
  n.outputs = {"o"};
  g->nodes = {n};
  return g;
}

Attribute GraphAttribute(const std::string& name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kGraph;
  a.g = std::move(g);
  return a;
}

TEST(FlexAttentionTest, PlainSoftmaxWithGqa) {
  // scores = (0, 1); two query heads share one K/V head.
  const float e = std::exp(1.f), p0 = 1.f / (1.f + e), p1 = e / (1.f + e);
  const float y = 10.f * p0 + 20.f * p1;
  OpTest("FlexAttention", 1, kPreview)
      .Attr("scale", 1.0f)
      .Input("Q", T_<float>({1, 1}, {1, 2, 1, 1}))
      .Input("K", T_<float>({0, 1}, {1, 1, 2, 1}))
      .Input("V", T_<float>({10, 20}, {1, 1, 2, 1}))
      .Output("Y", T_<float>({y, y}, {1, 2, 1, 1}))
      .Run();
}

TEST(FlexAttentionTest, ScoreModSubgraph) {
  // score_mod negates the scores: (0, -1).
  const float e = std::exp(1.f), p0 = e / (1.f + e), p1 = 1.f / (1.f + e);
  OpTest("FlexAttention", 1, kPreview)
      .Attr("scale", 1.0f)
      .Attr(GraphAttribute("score_mod", NegGraph()))
      .Input("Q", T_<float>({1}, {1, 1, 1, 1}))
      .Input("K", T_<float>({0, 1}, {1, 1, 2, 1}))
      .Input("V", T_<float>({10, 20}, {1, 1, 2, 1}))
      .Output("Y", T_<float>({10.f * p0 + 20.f * p1}, {1, 1, 1, 1}))
      .Run();
}

TEST(FlexAttentionTest, ProbModSubgraph) {
  // prob_mod negates the probabilities: Y = -(V averaged) for equal scores.
  OpTest("FlexAttention", 1, kPreview)
      .Attr(GraphAttribute("prob_mod", NegGraph()))
      .Input("Q", T_<float>({0, 0}, {1, 1, 1, 2}))
      .Input("K", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("V", T_<float>({10, 20}, {1, 1, 2, 1}))
      .Output("Y", T_<float>({-15.f}, {1, 1, 1, 1}))
      .Run();
}

TEST(FlexAttentionTest, DefaultScaleDouble) {
  // E = 4: scale 0.5, scores = 0.5 * (q.k) = (0, 2).
  const double e = std::exp(2.0), y = (1.0 * 1 + 3.0 * e) / (1 + e);
  OpTest("FlexAttention", 1, kPreview)
      .Input("Q", T_<double>({1, 1, 1, 1}, {1, 1, 1, 4}))
      .Input("K", T_<double>({0, 0, 0, 0, 1, 1, 1, 1}, {1, 1, 2, 4}))
      .Input("V", T_<double>({1, 3}, {1, 1, 2, 1}))
      .Output("Y", T_<double>({y}, {1, 1, 1, 1}))
      .Tolerance(1e-12, 1e-12)
      .Run();
}

TEST(FlexAttentionTest, HeadMismatchFails) {
  OpTest("FlexAttention", 1, kPreview)
      .Input("Q", T_<float>({1, 1, 1}, {1, 3, 1, 1}))
      .Input("K", T_<float>({1, 1}, {1, 2, 1, 1}))
      .Input("V", T_<float>({1, 1}, {1, 2, 1, 1}))
      .Output("Y", T_<float>({0, 0, 0}, {1, 3, 1, 1}))
      .ExpectFailure("multiple");
}

TEST(FlexAttentionTest, Rank3Fails) {
  OpTest("FlexAttention", 1, kPreview)
      .Input("Q", T_<float>({1}, {1, 1, 1}))
      .Input("K", T_<float>({1}, {1, 1, 1}))
      .Input("V", T_<float>({1}, {1, 1, 1}))
      .Output("Y", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("rank-4");
}

}  // namespace
}  // namespace tessera::test
