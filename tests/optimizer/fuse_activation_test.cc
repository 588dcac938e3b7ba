#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"
#include "tessera/base/half.h"

namespace tessera {
namespace {

using namespace test;

// x -> Conv -> activation nodes -> y
Model ConvThen(std::vector<Node> act, int64_t opset = 17) {
  Node conv = MakeNode("conv", "Conv", {"x", "w", "b"}, {"c"});
  conv.attributes = {IntsAttr("pads", {1, 1, 1, 1})};
  act.insert(act.begin(), conv);
  Model m = MakeModel(act, {TensorInfo("x", DataType::kFloat, {1, 2, 5, 5})}, {TensorInfo("y", DataType::kFloat, {})},
                      opset);
  m.graph->initializers["w"] = RandomFloats({3, 2, 3, 3}, 1);
  m.graph->initializers["b"] = RandomFloats({3}, 2);
  return m;
}

Feeds ConvInput() { return {{"x", RandomFloats({1, 2, 5, 5}, 3, -3.0f, 3.0f)}}; }

void ExpectFused(const Model& m, const Feeds& feeds, const std::string& fused_op, const std::string& act) {
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeActivationFusion(), m, feeds, &changes);
  EXPECT_EQ(changes, 1) << act;
  ASSERT_EQ(opt.graph->nodes.size(), 1u) << act;
  const Node& n = opt.graph->nodes[0];
  EXPECT_EQ(n.op_type, fused_op);
  EXPECT_EQ(n.domain, kTesseraDomain);
  EXPECT_EQ(AttrS(n, "activation"), act);
  EXPECT_EQ(n.outputs[0], "y");
}

TEST(ActivationFusion, FusesEachActivationIntoConv) {
  ExpectFused(ConvThen({MakeNode("a", "Relu", {"c"}, {"y"})}), ConvInput(), "FusedConv", "Relu");
  ExpectFused(ConvThen({MakeNode("a", "Sigmoid", {"c"}, {"y"})}), ConvInput(), "FusedConv", "Sigmoid");
  ExpectFused(ConvThen({WithAttrs(MakeNode("a", "LeakyRelu", {"c"}, {"y"}), {FloatAttr("alpha", 0.2f)})}),
              ConvInput(), "FusedConv", "LeakyRelu");
  ExpectFused(ConvThen({WithAttrs(MakeNode("a", "HardSigmoid", {"c"}, {"y"}),
                                  {FloatAttr("alpha", 0.3f), FloatAttr("beta", 0.4f)})}),
              ConvInput(), "FusedConv", "HardSigmoid");
  // SiLU: x * Sigmoid(x), both operand orders.
  ExpectFused(ConvThen({MakeNode("s", "Sigmoid", {"c"}, {"sg"}), MakeNode("a", "Mul", {"c", "sg"}, {"y"})}),
              ConvInput(), "FusedConv", "Silu");
  ExpectFused(ConvThen({MakeNode("s", "Sigmoid", {"c"}, {"sg"}), MakeNode("a", "Mul", {"sg", "c"}, {"y"})}),
              ConvInput(), "FusedConv", "Silu");
  // Gelu (ai.onnx from opset 20).
  ExpectFused(ConvThen({WithAttrs(MakeNode("a", "Gelu", {"c"}, {"y"}), {StrAttr("approximate", "tanh")})}, 20),
              ConvInput(), "FusedConv", "GeluTanh");
}

TEST(ActivationFusion, FusesClipWithConstantBoundsOrAttributes) {
  Model m = ConvThen({MakeNode("a", "Clip", {"c", "lo", "hi"}, {"y"})});
  m.graph->initializers["lo"] = Scalar(0.0f);
  m.graph->initializers["hi"] = Scalar(6.0f);
  ExpectFused(m, ConvInput(), "FusedConv", "Clip");
  Model only_max = ConvThen({MakeNode("a", "Clip", {"c", "", "hi"}, {"y"})});
  only_max.graph->initializers["hi"] = Scalar(0.5f);
  ExpectFused(only_max, ConvInput(), "FusedConv", "Clip");
  Model legacy = ConvThen({WithAttrs(MakeNode("a", "Clip", {"c"}, {"y"}), {FloatAttr("min", -1.0f), FloatAttr("max", 1.0f)})}, 6);
  ExpectFused(legacy, ConvInput(), "FusedConv", "Clip");
}

TEST(ActivationFusion, LeavesClipWithNonConstantBounds) {
  Model m = ConvThen({MakeNode("a", "Clip", {"c", "lo"}, {"y"})});
  m.graph->inputs.push_back(TensorInfo("lo", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), m), 0);
}

TEST(ActivationFusion, FusesIntoGemmAndMatMulAndFusedMatMul) {
  Model g = MakeModel({WithAttrs(MakeNode("g", "Gemm", {"a", "w", "bias"}, {"c"}), {IntAttr("transB", 1)}),
                       MakeNode("r", "Relu", {"c"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {3, 4})}, {TensorInfo("y", DataType::kFloat, {})});
  g.graph->initializers["w"] = RandomFloats({5, 4}, 1);
  g.graph->initializers["bias"] = RandomFloats({5}, 2);
  ExpectFused(g, {{"a", RandomFloats({3, 4}, 3)}}, "FusedGemm", "Relu");

  Model mm = MakeModel({MakeNode("m", "MatMul", {"a", "w"}, {"c"}), MakeNode("r", "Sigmoid", {"c"}, {"y"})},
                       {TensorInfo("a", DataType::kFloat, {2, 3, 4})}, {TensorInfo("y", DataType::kFloat, {})});
  mm.graph->initializers["w"] = RandomFloats({4, 5}, 1);
  ExpectFused(mm, {{"a", RandomFloats({2, 3, 4}, 3)}}, "FusedMatMul", "Sigmoid");

  // A FusedMatMul with a bias (from MatMulBiasFusion) takes the activation too.
  Node fm = MakeNode("m", "FusedMatMul", {"a", "w", "bias"}, {"c"});
  fm.domain = kTesseraDomain;
  Model f = MakeModel({fm, WithAttrs(MakeNode("r", "Gelu", {"c"}, {"y"}), {StrAttr("approximate", "none")})},
                      {TensorInfo("a", DataType::kFloat, {2, 3, 4})}, {TensorInfo("y", DataType::kFloat, {})}, 20);
  f.graph->initializers["w"] = RandomFloats({4, 5}, 1);
  f.graph->initializers["bias"] = RandomFloats({5}, 2);
  f.opset_imports.push_back({kTesseraDomain, 1});
  ExpectFused(f, {{"a", RandomFloats({2, 3, 4}, 3)}}, "FusedMatMul", "Gelu");
}

TEST(ActivationFusion, LeavesSharedOutputsAndSecondActivations) {
  // The Conv output is read twice.
  Model m = ConvThen({MakeNode("a", "Relu", {"c"}, {"y"}), MakeNode("b", "Sigmoid", {"c"}, {"z"})});
  m.graph->outputs.push_back(TensorInfo("z", DataType::kFloat, {}));
  int changes = 0;
  ApplyAndCompare(*MakeActivationFusion(), m, ConvInput(), &changes);
  EXPECT_EQ(changes, 0);
  // The Conv output is a graph output.
  Model m2 = ConvThen({MakeNode("a", "Relu", {"c"}, {"y"})});
  m2.graph->outputs.push_back(TensorInfo("c", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), m2), 0);
  // SiLU whose x has a third reader.
  Model m3 = ConvThen({MakeNode("s", "Sigmoid", {"c"}, {"sg"}), MakeNode("a", "Mul", {"c", "sg"}, {"y"}),
                       MakeNode("n", "Neg", {"c"}, {"z"})});
  m3.graph->outputs.push_back(TensorInfo("z", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), m3), 0);
  // Two activations in a row: only the first is fused.
  Model m4 = ConvThen({MakeNode("a", "Relu", {"c"}, {"r"}), MakeNode("b", "Sigmoid", {"r"}, {"y"})});
  int c4 = 0;
  Model opt = ApplyAndCompare(*MakeActivationFusion(), m4, ConvInput(), &c4);
  EXPECT_EQ(c4, 1);
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), opt), 0);
}

TEST(ActivationFusion, FusesFloat16ConvAndLeavesLegacyGemm) {
  Model m = ConvThen({MakeNode("a", "Relu", {"c"}, {"y"})});
  m.graph->inputs[0] = TensorInfo("x", DataType::kFloat16, {1, 2, 5, 5});
  for (const char* name : {"w", "b"}) {
    const Tensor& f = m.graph->initializers[name];
    Tensor h(DataType::kFloat16, f.shape());
    for (int64_t i = 0; i < f.numel(); ++i) h.data<Float16>()[i] = Float16{FloatToHalf(f.data<float>()[i])};
    m.graph->initializers[name] = h;
  }
  Tensor x = RandomFloats({1, 2, 5, 5}, 3, -3.0f, 3.0f), xh(DataType::kFloat16, {1, 2, 5, 5});
  for (int64_t i = 0; i < x.numel(); ++i) xh.data<Float16>()[i] = Float16{FloatToHalf(x.data<float>()[i])};
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeActivationFusion(), m, {{"x", xh}}, &changes, 1e-3, 1e-3);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"FusedConv"});
  // Gemm before opset 11 (the legacy broadcast attribute) stays as it is.
  Model g = MakeModel({MakeNode("g", "Gemm", {"a", "w", "bias"}, {"c"}), MakeNode("r", "Relu", {"c"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {3, 4})}, {TensorInfo("y", DataType::kFloat, {})}, 9);
  g.graph->initializers["w"] = RandomFloats({4, 5}, 1);
  g.graph->initializers["bias"] = RandomFloats({5}, 2);
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), g), 0);
}

TEST(ActivationFusion, LeavesUncoveredTypesAndActivations) {
  // Integer MatMul: the fused kernels are float-only.
  Model mm = MakeModel({MakeNode("m", "MatMul", {"a", "w"}, {"c"}), MakeNode("r", "Relu", {"c"}, {"y"})},
                       {TensorInfo("a", DataType::kInt32, {2, 4})}, {TensorInfo("y", DataType::kInt32, {})});
  mm.graph->initializers["w"] = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), mm), 0);
  // An activation the fused kernels do not have.
  Model tanh = ConvThen({MakeNode("a", "Tanh", {"c"}, {"y"})});
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), tanh), 0);
  // Swish with alpha != 1 is not SiLU.
  Model sw = ConvThen({WithAttrs(MakeNode("a", "Swish", {"c"}, {"y"}), {FloatAttr("alpha", 2.0f)})}, 24);
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), sw), 0);
}

TEST(ActivationFusion, FusesInsideSubgraphsReadingOuterValues) {
  // Each If branch: Gemm(x from the outer graph, its own weights) -> Relu.
  auto branch = [](const std::string& tag) {
    auto g = std::make_shared<Graph>();
    g->name = tag;
    g->nodes = {MakeNode(tag + "_gemm", "Gemm", {"x", tag + "_w"}, {tag + "_c"}),
                MakeNode(tag + "_relu", "Relu", {tag + "_c"}, {tag + "_y"})};
    g->initializers[tag + "_w"] = RandomFloats({4, 3}, tag == "then" ? 1 : 2);
    g->outputs = {TensorInfo(tag + "_y", DataType::kFloat, {})};
    return g;
  };
  Node iff = WithAttrs(MakeNode("if", "If", {"cond"}, {"y"}),
                       {GraphAttr("then_branch", branch("then")), GraphAttr("else_branch", branch("else"))});
  Model m = MakeModel({iff}, {TensorInfo("cond", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2, 4})},
                      {TensorInfo("y", DataType::kFloat, {})});
  for (bool c : {true, false}) {
    Model opt = ExpectSameResults(m, {{"cond", Tensor::Scalar<bool>(c)}, {"x", RandomFloats({2, 4}, 3)}});
    const Graph& then_g = *opt.graph->nodes[0].FindAttribute("then_branch")->g;
    EXPECT_EQ(OpTypes(then_g), std::vector<std::string>{"FusedGemm"});
  }
}

TEST(ActivationFusion, OnlyRewritesNodesBoundForTheCpuProvider) {
  Model m = ConvThen({MakeNode("a", "Relu", {"c"}, {"y"})});
  PassContext ctx = CpuContext(m);
  ctx.provider_of = [](const Node& n) { return n.op_type == "Conv" ? std::string("gpu") : std::string("cpu"); };
  EXPECT_EQ(ApplyPass(*MakeActivationFusion(), m, ctx), 0);
}

}  // namespace
}  // namespace tessera
