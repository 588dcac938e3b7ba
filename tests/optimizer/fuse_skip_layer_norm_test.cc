#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// Add(a, b) -> LayerNormalization -> y; `reuse` makes the sum a second output.
Model AddLayerNorm(Shape a_shape, Shape b_shape, bool reuse = false) {
  std::vector<Node> n = {MakeNode("add", "Add", {"a", "b"}, {"s"}),
                         WithAttrs(MakeNode("ln", "LayerNormalization", {"s", "gamma", "beta"}, {"y"}),
                                   {FloatAttr("epsilon", 1e-6f)})};
  std::vector<ValueInfo> outs = {TensorInfo("y", DataType::kFloat, {})};
  if (reuse) {
    n.push_back(MakeNode("next", "Add", {"s", "y"}, {"z"}));
    outs.push_back(TensorInfo("z", DataType::kFloat, {}));
  }
  Model m = MakeModel(n, {TensorInfo("a", DataType::kFloat, a_shape), TensorInfo("b", DataType::kFloat, b_shape)}, outs);
  m.graph->initializers["gamma"] = RandomFloats({8}, 1);
  m.graph->initializers["beta"] = RandomFloats({8}, 2);
  return m;
}

TEST(SkipLayerNormFusion, FusesResidualAddAndLayerNorm) {
  for (bool reuse : {false, true}) {
    Feeds feeds = {{"a", RandomFloats({2, 3, 8}, 3)}, {"b", RandomFloats({2, 3, 8}, 4)}};
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeSkipLayerNormFusion(), AddLayerNorm({2, 3, 8}, {2, 3, 8}, reuse), feeds, &changes);
    EXPECT_EQ(changes, 1);
    const Node* n = FindOp(*opt.graph, "SkipLayerNormalization");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->outputs.size(), reuse ? 2u : 1u);
    EXPECT_EQ(CountOp(*opt.graph, "LayerNormalization"), 0);
  }
}

TEST(SkipLayerNormFusion, LeavesBroadcastingAddsAndUnknownShapes) {
  Feeds feeds = {{"a", RandomFloats({2, 3, 8}, 3)}, {"b", RandomFloats({1, 3, 8}, 4)}};
  int changes = 0;
  ApplyAndCompare(*MakeSkipLayerNormFusion(), AddLayerNorm({2, 3, 8}, {1, 3, 8}), feeds, &changes);
  EXPECT_EQ(changes, 0);
  // Unknown (symbolic) batch dims: equal only when they are the same symbol.
  Model m = AddLayerNorm({-1, 3, 8}, {2, 3, 8});
  EXPECT_EQ(ApplyPass(*MakeSkipLayerNormFusion(), m), 0);
  Model same = AddLayerNorm({-1, 3, 8}, {-1, 3, 8});
  EXPECT_EQ(ApplyPass(*MakeSkipLayerNormFusion(), same), 1);
}

TEST(SkipLayerNormFusion, LeavesOtherAxesAndExtraOutputs) {
  Model m = AddLayerNorm({2, 3, 8}, {2, 3, 8});
  m.graph->nodes[1].attributes.push_back(IntAttr("axis", 1));
  EXPECT_EQ(ApplyPass(*MakeSkipLayerNormFusion(), m), 0);
  Model m2 = AddLayerNorm({2, 3, 8}, {2, 3, 8});
  m2.graph->nodes[1].outputs.push_back("mean");
  m2.graph->outputs.push_back(TensorInfo("mean", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeSkipLayerNormFusion(), m2), 0);
  // Non-constant gamma.
  Model m3 = AddLayerNorm({2, 3, 8}, {2, 3, 8});
  m3.graph->inputs.push_back(TensorInfo("gamma", DataType::kFloat, {8}));
  EXPECT_EQ(ApplyPass(*MakeSkipLayerNormFusion(), m3), 0);
}

}  // namespace
}  // namespace tessera
