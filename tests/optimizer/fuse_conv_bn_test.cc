#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// X[1,3,6,6] -> Conv(W, B) -> BatchNormalization -> y
Model ConvBn(bool transpose = false, int64_t group = 1) {
  Node conv = MakeNode("conv", transpose ? "ConvTranspose" : "Conv", {"x", "w", "b"}, {"c"});
  conv.attributes = {IntsAttr("pads", {1, 1, 1, 1}), IntAttr("group", group)};
  Node bn = WithAttrs(MakeNode("bn", "BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"y"}),
                      {FloatAttr("epsilon", 1e-3f)});
  int64_t m = transpose ? 2 * group : 4;
  Model model = MakeModel({conv, bn}, {TensorInfo("x", DataType::kFloat, {1, 4, 6, 6})},
                          {TensorInfo("y", DataType::kFloat, {})});
  auto& init = model.graph->initializers;
  init["w"] = transpose ? RandomFloats({4, 2, 3, 3}, 1) : RandomFloats({4, 4 / group, 3, 3}, 1);
  init["b"] = RandomFloats({m}, 2);
  init["scale"] = RandomFloats({m}, 3, 0.5f, 2.0f);
  init["bias"] = RandomFloats({m}, 4);
  init["mean"] = RandomFloats({m}, 5);
  init["var"] = RandomFloats({m}, 6, 0.1f, 3.0f);
  return model;
}

Feeds Input() { return {{"x", RandomFloats({1, 4, 6, 6}, 9)}}; }

TEST(ConvBnFold, FoldsIntoConvWeightsAndBias) {
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeConvBnFold(), ConvBn(), Input(), &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Conv"});
  EXPECT_EQ(opt.graph->nodes[0].outputs[0], "y");
  // The original weights are no longer read: dropped.
  EXPECT_FALSE(opt.graph->initializers.count("w"));
}

TEST(ConvBnFold, FoldsGroupedConvAndConvTranspose) {
  int changes = 0;
  ApplyAndCompare(*MakeConvBnFold(), ConvBn(false, 2), Input(), &changes);
  EXPECT_EQ(changes, 1);
  Model opt = ApplyAndCompare(*MakeConvBnFold(), ConvBn(true), Input(), &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"ConvTranspose"});
  ApplyAndCompare(*MakeConvBnFold(), ConvBn(true, 2), Input(), &changes);
  EXPECT_EQ(changes, 1);
}

TEST(ConvBnFold, FoldsWithoutConvBias) {
  Model m = ConvBn();
  m.graph->nodes[0].inputs.resize(2);
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeConvBnFold(), m, Input(), &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(opt.graph->nodes[0].inputs.size(), 3u);
}

TEST(ConvBnFold, LeavesConvOutputWithTwoConsumers) {
  Model m = ConvBn();
  m.graph->nodes.push_back(MakeNode("relu", "Relu", {"c"}, {"r"}));
  m.graph->outputs.push_back(TensorInfo("r", DataType::kFloat, {}));
  int changes = 0;
  ApplyAndCompare(*MakeConvBnFold(), m, Input(), &changes);
  EXPECT_EQ(changes, 0);
}

TEST(ConvBnFold, LeavesConvOutputThatIsAGraphOutput) {
  Model m = ConvBn();
  m.graph->outputs.push_back(TensorInfo("c", DataType::kFloat, {}));
  int changes = 0;
  ApplyAndCompare(*MakeConvBnFold(), m, Input(), &changes);
  EXPECT_EQ(changes, 0);
}

TEST(ConvBnFold, LeavesNonConstantBnParameters) {
  Model m = ConvBn();
  Tensor mean = m.graph->initializers["mean"];
  m.graph->initializers.erase("mean");
  m.graph->inputs.push_back(TensorInfo("mean", DataType::kFloat, {4}));
  Feeds feeds = Input();
  feeds.push_back({"mean", mean});
  int changes = 0;
  ApplyAndCompare(*MakeConvBnFold(), m, feeds, &changes);
  EXPECT_EQ(changes, 0);
  // An initializer that a feed may override is not a constant either.
  Model m2 = ConvBn();
  m2.graph->inputs.push_back(TensorInfo("var", DataType::kFloat, {4}));
  EXPECT_EQ(ApplyPass(*MakeConvBnFold(), m2), 0);
}

TEST(ConvBnFold, LeavesTrainingModeAndNonConvProducers) {
  Model m = ConvBn();
  m.graph->nodes[1].attributes.push_back(IntAttr("training_mode", 1));
  EXPECT_EQ(ApplyPass(*MakeConvBnFold(), m), 0);
  Model m2 = ConvBn();
  m2.graph->nodes[0].op_type = "Add";  // not a convolution
  m2.graph->nodes[0].attributes.clear();
  EXPECT_EQ(ApplyPass(*MakeConvBnFold(), m2), 0);
}

TEST(ConvBnFold, LeavesFloat16Weights) {
  Model m = ConvBn();
  m.graph->initializers["w"] = Tensor(DataType::kFloat16, {4, 4, 3, 3});
  EXPECT_EQ(ApplyPass(*MakeConvBnFold(), m), 0);
}

}  // namespace
}  // namespace tessera
