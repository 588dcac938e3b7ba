#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

Node Mean(const std::string& name, const std::string& in, const std::string& out, int64_t axis = -1) {
  return WithAttrs(MakeNode(name, "ReduceMean", {in}, {out}), {IntsAttr("axes", {axis}), IntAttr("keepdims", 1)});
}

// x[2,3,8] -> decomposed LayerNorm (optionally with Mul(d, d) and Reciprocal).
Model DecomposedLayerNorm(bool mul_square = false, bool reciprocal = false, bool affine = true, int64_t axis = -1) {
  std::vector<Node> n = {Mean("m1", "x", "mean", axis), MakeNode("sub", "Sub", {"x", "mean"}, {"d"})};
  n.push_back(mul_square ? MakeNode("sq", "Mul", {"d", "d"}, {"d2"}) : MakeNode("sq", "Pow", {"d", "two"}, {"d2"}));
  n.push_back(Mean("m2", "d2", "var", axis));
  n.push_back(MakeNode("eps", "Add", {"var", "eps"}, {"ve"}));
  n.push_back(MakeNode("sqrt", "Sqrt", {"ve"}, {"sd"}));
  if (reciprocal) {
    n.push_back(MakeNode("rec", "Reciprocal", {"sd"}, {"inv"}));
    n.push_back(MakeNode("div", "Mul", {"d", "inv"}, {"nrm"}));
  } else {
    n.push_back(MakeNode("div", "Div", {"d", "sd"}, {"nrm"}));
  }
  std::string out = "nrm";
  if (affine) {
    n.push_back(MakeNode("g", "Mul", {"nrm", "gamma"}, {"ng"}));
    n.push_back(MakeNode("b", "Add", {"ng", "beta"}, {"y"}));
  } else {
    n.back().outputs[0] = "y";
  }
  Model m = MakeModel(n, {TensorInfo("x", DataType::kFloat, {2, 3, 8})}, {TensorInfo("y", DataType::kFloat, {})});
  auto& init = m.graph->initializers;
  init["two"] = Scalar(2.0f);
  init["eps"] = Scalar(1e-5f);
  init["gamma"] = RandomFloats({8}, 1);
  init["beta"] = RandomFloats({8}, 2);
  return m;
}

Feeds Input() { return {{"x", RandomFloats({2, 3, 8}, 3, -2.0f, 2.0f)}}; }

TEST(LayerNormFusion, FusesDecomposedLayerNorm) {
  for (bool mul_square : {false, true})
    for (bool reciprocal : {false, true})
      for (bool affine : {true, false}) {
        int changes = 0;
        Model opt = ApplyAndCompare(*MakeLayerNormFusion(), DecomposedLayerNorm(mul_square, reciprocal, affine),
                                    Input(), &changes, 1e-4, 1e-5);
        EXPECT_EQ(changes, 1);
        ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"LayerNormalization"});
        EXPECT_EQ(opt.graph->nodes[0].domain, kTesseraDomain);
        EXPECT_EQ(opt.graph->nodes[0].inputs.size(), affine ? 3u : 2u);
      }
  // The last axis by its positive index.
  int changes = 0;
  ApplyAndCompare(*MakeLayerNormFusion(), DecomposedLayerNorm(false, false, true, 2), Input(), &changes, 1e-4, 1e-5);
  EXPECT_EQ(changes, 1);
}

TEST(LayerNormFusion, ValidAtOpsetsWithoutOnnxLayerNormalization) {
  Model m = DecomposedLayerNorm();
  m.opset_imports[0].version = 13;
  int changes = 0;
  ApplyAndCompare(*MakeLayerNormFusion(), m, Input(), &changes, 1e-4, 1e-5);
  EXPECT_EQ(changes, 1);
}

TEST(LayerNormFusion, LeavesOtherAxesAndSharedValues) {
  int changes = 0;
  ApplyAndCompare(*MakeLayerNormFusion(), DecomposedLayerNorm(false, false, true, 1), Input(), &changes);
  EXPECT_EQ(changes, 0);
  // The centered value is a graph output.
  Model m = DecomposedLayerNorm();
  m.graph->outputs.push_back(TensorInfo("d", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeLayerNormFusion(), m), 0);
  // The variance is read elsewhere.
  Model m2 = DecomposedLayerNorm();
  m2.graph->outputs.push_back(TensorInfo("var", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeLayerNormFusion(), m2), 0);
  // Sub of a different mean.
  Model m3 = DecomposedLayerNorm();
  m3.graph->nodes[1].inputs[0] = "z";
  m3.graph->inputs.push_back(TensorInfo("z", DataType::kFloat, {2, 3, 8}));
  EXPECT_EQ(ApplyPass(*MakeLayerNormFusion(), m3), 0);
  // Squared by a power other than 2.
  Model m4 = DecomposedLayerNorm();
  m4.graph->initializers["two"] = Scalar(3.0f);
  EXPECT_EQ(ApplyPass(*MakeLayerNormFusion(), m4), 0);
}

TEST(LayerNormFusion, LeavesGammaThatBroadcastsDifferently) {
  // A one-element gamma broadcasts in Mul but would not in the fused op: left
  // as a plain Mul after the normalization.
  Model m = DecomposedLayerNorm();
  m.graph->initializers["gamma"] = RandomFloats({1}, 1);
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeLayerNormFusion(), m, Input(), &changes, 1e-4, 1e-5);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(CountOp(*opt.graph, "Mul"), 1);
}

Model DecomposedRms(bool div_form) {
  std::vector<Node> n = {MakeNode("sq", "Pow", {"x", "two"}, {"x2"}), Mean("m", "x2", "ms"),
                         MakeNode("eps", "Add", {"ms", "eps"}, {"mse"}), MakeNode("sqrt", "Sqrt", {"mse"}, {"rms"})};
  if (div_form) {
    n.push_back(MakeNode("div", "Div", {"x", "rms"}, {"nrm"}));
  } else {
    n.push_back(MakeNode("inv", "Div", {"one", "rms"}, {"inv"}));
    n.push_back(MakeNode("div", "Mul", {"x", "inv"}, {"nrm"}));
  }
  n.push_back(MakeNode("g", "Mul", {"gamma", "nrm"}, {"y"}));
  Model m = MakeModel(n, {TensorInfo("x", DataType::kFloat, {2, 3, 8})}, {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["two"] = Scalar(2.0f);
  m.graph->initializers["one"] = Scalar(1.0f);
  m.graph->initializers["eps"] = Scalar(1e-6f);
  m.graph->initializers["gamma"] = RandomFloats({8}, 1);
  return m;
}

TEST(RmsNormFusion, FusesDecomposedRmsNorm) {
  for (bool div_form : {true, false}) {
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeRmsNormFusion(), DecomposedRms(div_form), Input(), &changes, 1e-4, 1e-5);
    EXPECT_EQ(changes, 1);
    ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"RMSNormalization"});
  }
}

TEST(RmsNormFusion, LeavesOtherNumeratorsAndEpsilons) {
  Model m = DecomposedRms(true);
  m.graph->nodes[4].inputs[0] = "z";  // divides another tensor
  m.graph->inputs.push_back(TensorInfo("z", DataType::kFloat, {2, 3, 8}));
  EXPECT_EQ(ApplyPass(*MakeRmsNormFusion(), m), 0);
  Model m2 = DecomposedRms(true);
  m2.graph->initializers.erase("eps");
  m2.graph->inputs.push_back(TensorInfo("eps", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeRmsNormFusion(), m2), 0);
}

}  // namespace
}  // namespace tessera
