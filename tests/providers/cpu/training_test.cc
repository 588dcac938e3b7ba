// ai.onnx.preview.training optimizers: Adagrad, Adam, Momentum.
#include <cmath>

#include "support/op_test.h"
#include "tessera/api/providers.h"
#include "tessera/ops/kernel.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

constexpr const char* kTraining = "ai.onnx.preview.training";

TEST(TrainingTest, AdagradMatchesFormula) {
  // r = 0.1 / (1 + 2 * 0.5) = 0.05; g = 0.01 * x + g; h' = h + g^2; x' = x - r g / (sqrt(h') + 1e-6)
  const float x = 2.f, g0 = 0.5f, h = 1.f;
  const float g = 0.01f * x + g0, hn = h + g * g;
  const float xn = x - 0.05f * g / (std::sqrt(hn) + 1e-6f);
  OpTest("Adagrad", 1, kTraining)
      .Attr("decay_factor", 0.5f)
      .Attr("epsilon", 1e-6f)
      .Attr("norm_coefficient", 0.01f)
      .Input("R", T_<float>({0.1f}, {}))
      .Input("T", T_<int64_t>({2}, {}))
      .Input("X", T_<float>({x}, {1}))
      .Input("G", T_<float>({g0}, {1}))
      .Input("H", T_<float>({h}, {1}))
      .Output("X_new", T_<float>({xn}, {1}))
      .Output("H_new", T_<float>({hn}, {1}))
      .Run();
}

TEST(TrainingTest, AdagradDouble) {
  OpTest("Adagrad", 1, kTraining)
      .Input("R", T_<double>({1.0}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<double>({1.0, 2.0}, {2}))
      .Input("G", T_<double>({3.0, 4.0}, {2}))
      .Input("H", T_<double>({0.0, 0.0}, {2}))
      .Output("X_new", T_<double>({0.0, 1.0}, {2}))
      .Output("H_new", T_<double>({9.0, 16.0}, {2}))
      .Run();
}

TEST(TrainingTest, AdamFirstStepAndPostNorm) {
  // T = 0: R is used as is.
  const float alpha = 0.9f, beta = 0.99f, x = 1.f, g = 2.f, v = 0.f, h = 0.f;
  const float vn = alpha * v + (1 - alpha) * g, hn = beta * h + (1 - beta) * g * g;
  const float xn = (1 - 0.1f) * (x - 0.5f * vn / (std::sqrt(hn) + 0.f));
  OpTest("Adam", 1, kTraining)
      .Attr("alpha", alpha)
      .Attr("beta", beta)
      .Attr("norm_coefficient_post", 0.1f)
      .Input("R", T_<float>({0.5f}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({x}, {1}))
      .Input("G", T_<float>({g}, {1}))
      .Input("V", T_<float>({v}, {1}))
      .Input("H", T_<float>({h}, {1}))
      .Output("X_new", T_<float>({xn}, {1}))
      .Output("V_new", T_<float>({vn}, {1}))
      .Output("H_new", T_<float>({hn}, {1}))
      .Run();
}

TEST(TrainingTest, AdamBiasCorrectionAfterFirstStep) {
  const double alpha = 0.9, beta = 0.999, t = 3;
  const float x = 1.f, g = 1.f, v = 0.5f, h = 0.25f;
  const float vn = 0.9f * v + 0.1f * g, hn = 0.999f * h + 0.001f * g * g;
  const double r = 0.01 * std::sqrt(1 - std::pow(beta, t)) / (1 - std::pow(alpha, t));
  const float xn = static_cast<float>(x - r * vn / std::sqrt(hn));
  OpTest("Adam", 1, kTraining)
      .Input("R", T_<float>({0.01f}, {}))
      .Input("T", T_<int64_t>({3}, {}))
      .Input("X", T_<float>({x}, {1}))
      .Input("G", T_<float>({g}, {1}))
      .Input("V", T_<float>({v}, {1}))
      .Input("H", T_<float>({h}, {1}))
      .Output("X_new", T_<float>({xn}, {1}))
      .Output("V_new", T_<float>({vn}, {1}))
      .Output("H_new", T_<float>({hn}, {1}))
      .Run();
}

TEST(TrainingTest, MomentumStandardFirstStepUsesBetaOne) {
  // T = 0: beta_adjusted = 1, so V' = alpha V + G.
  OpTest("Momentum", 1, kTraining)
      .Attr("alpha", 0.5f)
      .Attr("beta", 0.1f)
      .Attr("norm_coefficient", 0.0f)
      .Attr("mode", std::string("standard"))
      .Input("R", T_<float>({0.1f}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({1.f, 2.f}, {2}))
      .Input("G", T_<float>({1.f, -1.f}, {2}))
      .Input("V", T_<float>({2.f, 2.f}, {2}))
      .Output("X_new", T_<float>({1.f - 0.1f * 2.f, 2.f - 0.1f * 0.f}, {2}))
      .Output("V_new", T_<float>({2.f, 0.f}, {2}))
      .Run();
}

TEST(TrainingTest, MomentumNesterovTwoTensors) {
  // T = 1: beta applies. V' = 0.5 V + 0.1 G; X' = X - R (G + 0.5 V').
  const float r = 0.1f;
  auto vnew = [](float v, float g) { return 0.5f * v + 0.1f * g; };
  auto xnew = [&](float x, float g, float vn) { return x - r * (g + 0.5f * vn); };
  OpTest("Momentum", 1, kTraining)
      .Attr("alpha", 0.5f)
      .Attr("beta", 0.1f)
      .Attr("norm_coefficient", 0.0f)
      .Attr("mode", std::string("nesterov"))
      .Input("R", T_<float>({r}, {}))
      .Input("T", T_<int64_t>({1}, {}))
      .Input("X1", T_<float>({1.f}, {1}))
      .Input("X2", T_<float>({2.f, 3.f}, {2}))
      .Input("G1", T_<float>({4.f}, {1}))
      .Input("G2", T_<float>({5.f, 6.f}, {2}))
      .Input("V1", T_<float>({1.f}, {1}))
      .Input("V2", T_<float>({2.f, 3.f}, {2}))
      .Output("X1_new", T_<float>({xnew(1.f, 4.f, vnew(1.f, 4.f))}, {1}))
      .Output("X2_new", T_<float>({xnew(2.f, 5.f, vnew(2.f, 5.f)), xnew(3.f, 6.f, vnew(3.f, 6.f))}, {2}))
      .Output("V1_new", T_<float>({vnew(1.f, 4.f)}, {1}))
      .Output("V2_new", T_<float>({vnew(2.f, 5.f), vnew(3.f, 6.f)}, {2}))
      .Run();
}

TEST(TrainingTest, MomentumBadModeFails) {
  OpTest("Momentum", 1, kTraining)
      .Attr("alpha", 0.5f)
      .Attr("beta", 0.1f)
      .Attr("norm_coefficient", 0.0f)
      .Attr("mode", std::string("heavy_ball"))
      .Input("R", T_<float>({0.1f}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({1.f}, {1}))
      .Input("G", T_<float>({1.f}, {1}))
      .Input("V", T_<float>({1.f}, {1}))
      .Output("X_new", T_<float>({0.f}, {1}))
      .Output("V_new", T_<float>({0.f}, {1}))
      .ExpectFailure("mode must be");
}

TEST(TrainingTest, ShapeMismatchFails) {
  OpTest("Adagrad", 1, kTraining)
      .Input("R", T_<float>({0.1f}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({1.f, 2.f}, {2}))
      .Input("G", T_<float>({1.f}, {1}))
      .Input("H", T_<float>({1.f, 1.f}, {2}))
      .Output("X_new", T_<float>({0.f, 0.f}, {2}))
      .Output("H_new", T_<float>({0.f, 0.f}, {2}))
      .ExpectFailure("has shape");
}

TEST(TrainingTest, UnevenGroupsFail) {
  OpTest("Adam", 1, kTraining)
      .Input("R", T_<float>({0.1f}, {}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({1.f}, {1}))
      .Input("G", T_<float>({1.f}, {1}))
      .Input("V", T_<float>({1.f}, {1}))
      .Output("X_new", T_<float>({0.f}, {1}))
      .ExpectFailure("groups");
}

TEST(TrainingTest, NonScalarLearningRateFails) {
  OpTest("Adagrad", 1, kTraining)
      .Input("R", T_<float>({0.1f, 0.2f}, {2}))
      .Input("T", T_<int64_t>({0}, {}))
      .Input("X", T_<float>({1.f}, {1}))
      .Input("G", T_<float>({1.f}, {1}))
      .Input("H", T_<float>({1.f}, {1}))
      .Output("X_new", T_<float>({0.f}, {1}))
      .Output("H_new", T_<float>({0.f}, {1}))
      .ExpectFailure("must be a scalar");
}

// ---- Gradient -----------------------------------------------------------------------

Node MakeNode(std::string op, std::vector<std::string> in, std::vector<std::string> out,
              std::string domain = kOnnxDomain) {
  Node n;
  n.name = op + "_" + out[0];
  n.op_type = std::move(op);
  n.domain = std::move(domain);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

Attribute Strings(const std::string& name, std::vector<std::string> v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kStrings;
  a.strings = std::move(v);
  return a;
}

// y = (a + b) * a, dy/da = 2a + b, dy/db = a; plus a constant-initializer
// branch: y2 = y * c (c = 3) differentiated with zs = {b}.
Model GradientModel(const std::string& y) {
  Model m;
  m.ir_version = 10;
  m.opset_imports = {{kOnnxDomain, 13}, {kTraining, 1}};
  m.graph = std::make_shared<Graph>();
  Graph& g = *m.graph;
  g.name = "gradient";
  g.nodes.push_back(MakeNode("Add", {"a", "b"}, {"c"}));
  g.nodes.push_back(MakeNode("Mul", {"c", "a"}, {"y"}));
  g.nodes.push_back(MakeNode("Mul", {"y", "k"}, {"y2"}));
  Node grad = MakeNode("Gradient", {"a", "b"}, {"da"}, kTraining);
  grad.attributes = {Strings("xs", {"a"}), Strings("zs", {"b"})};
  Attribute ya;
  ya.name = "y";
  ya.type = AttributeType::kString;
  ya.s = y;
  grad.attributes.push_back(ya);
  g.nodes.push_back(grad);
  g.initializers["k"] = T_<float>({3.f}, {});
  for (const char* name : {"a", "b"}) {
    ValueInfo vi;
    vi.name = name;
    vi.type = TypeInfo::Tensor(DataType::kFloat);
    g.inputs.push_back(vi);
  }
  ValueInfo out;
  out.name = "da";
  out.type = TypeInfo::Tensor(DataType::kFloat);
  g.outputs.push_back(out);
  return m;
}

TEST(TrainingTest, GradientOfAddMulWithBroadcastAndConstant) {
  Session s(GradientModel("y2"), SessionOptions{}, MakeProviders({"cpu"}));
  // a = [1, 2], b = scalar 5 broadcast: d(sum(3 (a + b) a))/da = 3 (2a + b)
  auto out = s.Run({{"a", T_<float>({1, 2}, {2})}, {"b", T_<float>({5}, {})}});
  ASSERT_EQ(out.size(), 1u);
  const Tensor& da = out[0].tensor();
  ASSERT_EQ(da.shape(), (Shape{2}));
  EXPECT_FLOAT_EQ(da.data<float>()[0], 21.f);
  EXPECT_FLOAT_EQ(da.data<float>()[1], 27.f);
}

TEST(TrainingTest, GradientOfUnknownValueFails) {
  Status st = CatchStatus([&] { Session s(GradientModel("nope"), SessionOptions{}, MakeProviders({"cpu"})); });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("neither in xs/zs"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tessera::test
