#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// x -> Conv(w [, b]) -> Add(c) -> y
Model ConvAdd(Shape c_shape, bool conv_bias = true, bool transpose = false, bool bias_first = false) {
  Node conv = MakeNode("conv", transpose ? "ConvTranspose" : "Conv", {"x", "w"}, {"c"});
  if (conv_bias) conv.inputs.push_back("b");
  Node add = MakeNode("add", "Add", bias_first ? std::vector<std::string>{"k", "c"} : std::vector<std::string>{"c", "k"},
                      {"y"});
  Model m = MakeModel({conv, add}, {TensorInfo("x", DataType::kFloat, {1, 3, 5, 5})},
                      {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["w"] = transpose ? RandomFloats({3, 4, 3, 3}, 1) : RandomFloats({4, 3, 3, 3}, 1);
  m.graph->initializers["b"] = RandomFloats({4}, 2);
  m.graph->initializers["k"] = RandomFloats(c_shape, 3);
  return m;
}

Feeds Input() { return {{"x", RandomFloats({1, 3, 5, 5}, 4)}}; }

TEST(ConvBiasFusion, FoldsPerChannelAddIntoBias) {
  for (Shape s : {Shape{4, 1, 1}, Shape{1, 4, 1, 1}}) {
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeConvBiasFusion(), ConvAdd(s), Input(), &changes);
    EXPECT_EQ(changes, 1);
    EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Conv"});
  }
}

TEST(ConvBiasFusion, FoldsWithoutBiasCommutedAndIntoConvTranspose) {
  int changes = 0;
  ApplyAndCompare(*MakeConvBiasFusion(), ConvAdd({4, 1, 1}, false, false, true), Input(), &changes);
  EXPECT_EQ(changes, 1);
  Model opt = ApplyAndCompare(*MakeConvBiasFusion(), ConvAdd({1, 4, 1, 1}, true, true), Input(), &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"ConvTranspose"});
}

TEST(ConvBiasFusion, LeavesAddsThatAreNotPerChannel) {
  // Varies over space ([3], [1,1,3,3]), a full tensor, or a scalar (which
  // would be foldable but is not a per-channel tensor).
  for (Shape s : {Shape{3}, Shape{1, 1, 3, 3}, Shape{1, 4, 3, 3}, Shape{}}) {
    int changes = 0;
    ApplyAndCompare(*MakeConvBiasFusion(), ConvAdd(s), Input(), &changes);
    EXPECT_EQ(changes, 0) << ShapeToString(s);
  }
}

TEST(ConvBiasFusion, LeavesSharedConvOutputAndNonConstantAdd) {
  Model m = ConvAdd({4, 1, 1});
  m.graph->outputs.push_back(TensorInfo("c", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeConvBiasFusion(), m), 0);
  Model m2 = ConvAdd({4, 1, 1});
  m2.graph->inputs.push_back(TensorInfo("k", DataType::kFloat, {4, 1, 1}));  // a feed may replace it
  EXPECT_EQ(ApplyPass(*MakeConvBiasFusion(), m2), 0);
}

}  // namespace
}  // namespace tessera
