// DynamicQuantizeMatMulFusion: quantize_dynamic's DynamicQuantizeLinear ->
// MatMulInteger -> Cast -> Mul(Mul(x_scale, w_scale)) [-> Add(bias)] becomes
// one com.microsoft DynamicQuantizeMatMul with the chain's results (the
// same float steps): with and without bias, per-tensor and per-column
// weight parameters, a batched A, a DynamicQuantizeLinear shared by two
// products, and a weight that is fed (the chain stays).
#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

Tensor Int8s(Shape s, uint32_t seed) {
  Tensor out(DataType::kInt8, std::move(s));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < out.numel(); ++i) out.data<int8_t>()[i] = static_cast<int8_t>(gen());
  return out;
}

struct Case {
  bool bias = true, per_column = true, constant_w = true, two_products = false;
};

// x [2, 5, 16] float -> DQL -> MatMulInteger with W [16, 24] -> Cast ->
// Mul(Mul(xs, ws)) [-> Add(b)] -> y; a second product on the same DQL.
Model DynamicChain(const Case& c) {
  std::vector<Node> n = {MakeNode("dql", "DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"})};
  const int products = c.two_products ? 2 : 1;
  std::vector<ValueInfo> outs;
  for (int p = 0; p < products; ++p) {
    const std::string s = std::to_string(p);
    n.push_back(MakeNode("mmi" + s, "MatMulInteger", {"xq", "w" + s, "xz", "wz" + s}, {"acc" + s}));
    Node cast = MakeNode("cast" + s, "Cast", {"acc" + s}, {"accf" + s});
    cast.attributes = {IntAttr("to", static_cast<int64_t>(DataType::kFloat))};
    n.push_back(cast);
    n.push_back(MakeNode("scale" + s, "Mul", {"xs", "ws" + s}, {"s" + s}));
    n.push_back(MakeNode("mul" + s, "Mul", {"accf" + s, "s" + s}, {c.bias ? "m" + s : "y" + s}));
    if (c.bias) n.push_back(MakeNode("add" + s, "Add", {"m" + s, "b" + s}, {"y" + s}));
    outs.push_back(TensorInfo("y" + s, DataType::kFloat, {2, 5, 24}));
  }
  std::vector<ValueInfo> ins = {TensorInfo("x", DataType::kFloat, {2, 5, 16})};
  if (!c.constant_w) ins.push_back(TensorInfo("w0", DataType::kInt8, {16, 24}));
  Model m = MakeModel(n, ins, outs, 13);
  auto& init = m.graph->initializers;
  for (int p = 0; p < products; ++p) {
    const std::string s = std::to_string(p);
    if (c.constant_w || p > 0) init["w" + s] = Int8s({16, 24}, 7 + p);
    if (c.per_column) {
      init["ws" + s] = RandomFloats({24}, 3 + p, 0.001f, 0.02f);
      std::vector<int8_t> z(24);
      for (size_t j = 0; j < z.size(); ++j) z[j] = static_cast<int8_t>(static_cast<int>(j % 5) - 2);
      init["wz" + s] = Tensor::FromVector<int8_t>(z, {24});
    } else {
      init["ws" + s] = Scalar(0.0123f);
      init["wz" + s] = Tensor::FromVector<int8_t>({-3}, {});
    }
    if (c.bias) init["b" + s] = RandomFloats({24}, 5 + p, -0.5f, 0.5f);
  }
  return m;
}

Feeds XFeed(const Case& c) {
  Feeds f = {{"x", RandomFloats({2, 5, 16}, 1, -3.f, 2.f)}};
  if (!c.constant_w) f.push_back({"w0", Int8s({16, 24}, 7)});
  return f;
}

TEST(DynamicQuantizeMatMulFusion, TheChainBecomesOneNodeWithItsResults) {
  for (bool bias : {true, false})
    for (bool per_column : {true, false}) {
      SCOPED_TRACE(testing::Message() << (bias ? "bias" : "no bias") << (per_column ? ", per column" : ", per tensor"));
      Case c;
      c.bias = bias, c.per_column = per_column;
      int changes = 0;
      Model opt = ApplyAndCompare(*MakeDynamicQuantizeMatMulFusion(), DynamicChain(c), XFeed(c), &changes, 1e-6, 1e-6);
      EXPECT_EQ(changes, 1);
      ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"DynamicQuantizeMatMul"});
      const Node& q = opt.graph->nodes[0];
      EXPECT_EQ(q.domain, kMicrosoftDomain);
      EXPECT_EQ(q.inputs.size(), bias ? 5u : 4u);
      EXPECT_EQ(q.inputs[0], "x");
    }
}

TEST(DynamicQuantizeMatMulFusion, ASharedQuantizerFeedsBothFusedProducts) {
  Case c;
  c.two_products = true;
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeDynamicQuantizeMatMulFusion(), DynamicChain(c), XFeed(c), &changes, 1e-6, 1e-6);
  EXPECT_EQ(changes, 2);
  EXPECT_EQ(CountOp(*opt.graph, "DynamicQuantizeMatMul"), 2);
  EXPECT_EQ(CountOp(*opt.graph, "DynamicQuantizeLinear"), 0) << "nothing reads it once both fused";
}

TEST(DynamicQuantizeMatMulFusion, AFedWeightKeepsTheChain) {
  Case c;
  c.constant_w = false;
  int changes = 0;
  ApplyAndCompare(*MakeDynamicQuantizeMatMulFusion(), DynamicChain(c), XFeed(c), &changes, 0, 0);
  EXPECT_EQ(changes, 0);
}

}  // namespace
}  // namespace tessera
