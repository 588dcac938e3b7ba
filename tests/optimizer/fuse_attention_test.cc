#include <gtest/gtest.h>

#include <limits>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// MatMul(q, kt) -> Div(8) -> Add(mask) -> Softmax -> MatMul(v) on 4-D inputs.
Model Sdpa(Shape q, Shape kt, Shape v, Shape mask, int64_t softmax_axis = -1) {
  std::vector<Node> n = {MakeNode("qk", "MatMul", {"q", "kt"}, {"s"}), MakeNode("scale", "Div", {"s", "c8"}, {"ss"}),
                         MakeNode("mask", "Add", {"ss", "m"}, {"sm"}),
                         WithAttrs(MakeNode("softmax", "Softmax", {"sm"}, {"p"}), {IntAttr("axis", softmax_axis)}),
                         MakeNode("pv", "MatMul", {"p", "v"}, {"y"})};
  Model m = MakeModel(n,
                      {TensorInfo("q", DataType::kFloat, q), TensorInfo("kt", DataType::kFloat, kt),
                       TensorInfo("v", DataType::kFloat, v), TensorInfo("m", DataType::kFloat, mask)},
                      {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["c8"] = Scalar(8.0f);
  return m;
}

Feeds SdpaFeeds(Shape q, Shape kt, Shape v, Shape mask) {
  return {{"q", RandomFloats(q, 1, -2, 2)}, {"kt", RandomFloats(kt, 2, -2, 2)}, {"v", RandomFloats(v, 3)},
          {"m", RandomFloats(mask, 4, -5, 0)}};
}

TEST(AttentionFusion, FusesScaledDotProductAttentionWithMask) {
  Shape q = {2, 3, 5, 8}, kt = {2, 3, 8, 6}, v = {2, 3, 6, 7};
  for (Shape mask : {Shape{2, 1, 1, 6}, Shape{5, 6}, Shape{2, 3, 5, 6}}) {
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeAttentionFusion(), Sdpa(q, kt, v, mask), SdpaFeeds(q, kt, v, mask), &changes);
    EXPECT_EQ(changes, 1) << ShapeToString(mask);
    ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Attention"});
    EXPECT_FLOAT_EQ(opt.graph->nodes[0].FindAttribute("scale")->f, 0.125f);
  }
}

TEST(AttentionFusion, FusesBertStyleHeadSplitAndMerge) {
  // x[1,5,12] projected three ways, split into 3 heads of 4, merged back.
  auto reshape = [](const std::string& in, const std::string& shape, const std::string& out) {
    return MakeNode("r_" + out, "Reshape", {in, shape}, {out});
  };
  auto transpose = [](const std::string& in, std::vector<int64_t> perm, const std::string& out) {
    return WithAttrs(MakeNode("t_" + out, "Transpose", {in}, {out}), {IntsAttr("perm", std::move(perm))});
  };
  std::vector<Node> n = {MakeNode("pq", "MatMul", {"x", "wq"}, {"xq"}), MakeNode("pk", "MatMul", {"x", "wk"}, {"xk"}),
                         MakeNode("pv", "MatMul", {"x", "wv"}, {"xv"}), reshape("xq", "split", "q4"),
                         reshape("xk", "split", "k4"), reshape("xv", "split", "v4"), transpose("q4", {0, 2, 1, 3}, "q"),
                         transpose("k4", {0, 2, 3, 1}, "kt"), transpose("v4", {0, 2, 1, 3}, "v"),
                         MakeNode("qk", "MatMul", {"q", "kt"}, {"s"}), MakeNode("sc", "Mul", {"s", "c"}, {"ss"}),
                         MakeNode("mask", "Add", {"mk", "ss"}, {"sm"}),
                         WithAttrs(MakeNode("softmax", "Softmax", {"sm"}, {"p"}), {IntAttr("axis", 3)}),
                         MakeNode("av", "MatMul", {"p", "v"}, {"o"}), transpose("o", {0, 2, 1, 3}, "o4"),
                         reshape("o4", "merge", "y")};
  Model m = MakeModel(n, {TensorInfo("x", DataType::kFloat, {1, 5, 12}), TensorInfo("mk", DataType::kFloat, {1, 1, 1, 5})},
                      {TensorInfo("y", DataType::kFloat, {})});
  auto& init = m.graph->initializers;
  init["wq"] = RandomFloats({12, 12}, 1);
  init["wk"] = RandomFloats({12, 12}, 2);
  init["wv"] = RandomFloats({12, 12}, 3);
  init["split"] = Tensor::FromVector<int64_t>({1, 5, 3, 4}, {4});
  init["merge"] = Tensor::FromVector<int64_t>({1, 5, 12}, {3});
  init["c"] = Scalar(0.5f);
  Feeds feeds = {{"x", RandomFloats({1, 5, 12}, 4)}, {"mk", RandomFloats({1, 1, 1, 5}, 5, -3, 0)}};
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeAttentionFusion(), m, feeds, &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(CountOp(*opt.graph, "Attention"), 1);
  EXPECT_EQ(CountOp(*opt.graph, "Softmax"), 0);
  // And through the whole optimizer.
  ExpectSameResults(m, feeds);
}

TEST(AttentionFusion, FusesScaledQueryAndCausalWhereMask) {
  // 3-D (heads folded into the batch), Q scaled before the product, and a
  // causal mask applied by Where with a constant fill.
  for (float fill : {-1e9f, -std::numeric_limits<float>::infinity()}) {
    std::vector<Node> n = {MakeNode("qs", "Div", {"q", "c8"}, {"q8"}), MakeNode("qk", "MatMul", {"q8", "kt"}, {"s"}),
                           MakeNode("w", "Where", {"causal", "s", "fill"}, {"sm"}),
                           MakeNode("softmax", "Softmax", {"sm"}, {"p"}), MakeNode("pv", "MatMul", {"p", "v"}, {"y"})};
    Model m = MakeModel(n,
                        {TensorInfo("q", DataType::kFloat, {3, 4, 8}), TensorInfo("kt", DataType::kFloat, {3, 8, 4}),
                         TensorInfo("v", DataType::kFloat, {3, 4, 5})},
                        {TensorInfo("y", DataType::kFloat, {})});
    Tensor causal(DataType::kBool, {1, 4, 4});
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) causal.data<bool>()[i * 4 + j] = j <= i;
    m.graph->initializers["causal"] = causal;
    m.graph->initializers["fill"] = Scalar(fill);
    m.graph->initializers["c8"] = Scalar(8.0f);
    Feeds feeds = {{"q", RandomFloats({3, 4, 8}, 1)}, {"kt", RandomFloats({3, 8, 4}, 2)}, {"v", RandomFloats({3, 4, 5}, 3)}};
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeAttentionFusion(), m, feeds, &changes);
    EXPECT_EQ(changes, 1);
    ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Attention"});
    EXPECT_EQ(opt.graph->nodes[0].FindAttribute("mask_fill")->f, fill);
  }
}

TEST(AttentionFusion, LeavesOtherAxesSharedScoresAndGrowingMasks) {
  Shape q = {2, 3, 5, 8}, kt = {2, 3, 8, 6}, v = {2, 3, 6, 7};
  int changes = 0;
  ApplyAndCompare(*MakeAttentionFusion(), Sdpa(q, kt, v, {2, 1, 1, 6}, 2), SdpaFeeds(q, kt, v, {2, 1, 1, 6}), &changes);
  EXPECT_EQ(changes, 0);
  // The mask would broadcast the scores up (an extra leading axis).
  Shape big = {4, 2, 3, 5, 6};
  ApplyAndCompare(*MakeAttentionFusion(), Sdpa(q, kt, v, big), SdpaFeeds(q, kt, v, big), &changes);
  EXPECT_EQ(changes, 0);
  // The probabilities are a graph output too.
  Model m = Sdpa(q, kt, v, {5, 6});
  m.graph->outputs.push_back(TensorInfo("p", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeAttentionFusion(), m), 0);
  // K broadcast over the batch: the fused op needs equal leading axes.
  Shape kt1 = {1, 3, 8, 6};
  ApplyAndCompare(*MakeAttentionFusion(), Sdpa(q, kt1, v, {5, 6}), SdpaFeeds(q, kt1, v, {5, 6}), &changes);
  EXPECT_EQ(changes, 0);
  // Unknown shapes.
  Model u = Sdpa({-1, 3, 5, 8}, kt, v, {5, 6});
  EXPECT_EQ(ApplyPass(*MakeAttentionFusion(), u), 0);
  // A non-constant scale.
  Model s = Sdpa(q, kt, v, {5, 6});
  s.graph->inputs.push_back(TensorInfo("c8", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeAttentionFusion(), s), 0);
}

}  // namespace
}  // namespace tessera
