#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

TEST(DuplicateInitializerMerging, MergesEqualConstantsOnly) {
  Model m = MakeModel({MakeNode("a1", "Add", {"x", "w1"}, {"y1"}), MakeNode("a2", "Add", {"x", "w2"}, {"y2"}),
                       MakeNode("a3", "Add", {"x", "w3"}, {"y3"}), MakeNode("a4", "Add", {"x", "w4"}, {"y4"}),
                       MakeNode("a5", "Add", {"x", "w5"}, {"y5"})},
                      {TensorInfo("x", DataType::kFloat, {2}), TensorInfo("w5", DataType::kFloat, {2})},
                      {TensorInfo("y1", DataType::kFloat, {2}), TensorInfo("y2", DataType::kFloat, {2}),
                       TensorInfo("y3", DataType::kFloat, {2}), TensorInfo("y4", DataType::kFloat, {2}),
                       TensorInfo("y5", DataType::kFloat, {2})});
  m.graph->initializers["w1"] = Floats({1, 2}, {2});
  m.graph->initializers["w2"] = Floats({1, 2}, {2});        // duplicate of w1
  m.graph->initializers["w3"] = Floats({1, 3}, {2});        // other bytes
  m.graph->initializers["w4"] = Floats({1, 2}, {1, 2});     // other shape
  m.graph->initializers["w5"] = Floats({1, 2}, {2});        // overridable by a feed
  EXPECT_EQ(ApplyPass(*MakeDuplicateInitializerMerging(), m), 1);
  EXPECT_EQ(m.graph->nodes[1].inputs[1], "w1");
  EXPECT_FALSE(m.graph->initializers.count("w2"));
  for (const char* k : {"w1", "w3", "w4", "w5"}) EXPECT_TRUE(m.graph->initializers.count(k)) << k;
  // Same bytes, other element type: not merged.
  Model t = MakeModel({MakeNode("c1", "Cast", {"i"}, {"y1"}), MakeNode("c2", "Cast", {"u"}, {"y2"})}, {},
                      {TensorInfo("y1", DataType::kFloat, {1}), TensorInfo("y2", DataType::kFloat, {1})});
  t.graph->initializers["i"] = Tensor::FromVector<int32_t>({7}, {1});
  t.graph->initializers["u"] = Tensor::FromVector<uint32_t>({7}, {1});
  EXPECT_EQ(ApplyPass(*MakeDuplicateInitializerMerging(), t), 0);
}

TEST(DuplicateInitializerMerging, RenamesReadsInsideSubgraphs) {
  auto g = std::make_shared<Graph>();
  g->name = "then";
  g->nodes = {MakeNode("ta", "Add", {"x", "w2"}, {"t"})};
  g->outputs = {TensorInfo("t", DataType::kFloat, {2})};
  auto e = std::make_shared<Graph>();
  e->name = "else";
  e->nodes = {MakeNode("ea", "Sub", {"x", "w1"}, {"u"})};
  e->outputs = {TensorInfo("u", DataType::kFloat, {2})};
  Node iff = WithAttrs(MakeNode("if", "If", {"c"}, {"y"}), {GraphAttr("then_branch", g), GraphAttr("else_branch", e)});
  Model m = MakeModel({iff}, {TensorInfo("c", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["w1"] = Floats({1, 2}, {2});
  m.graph->initializers["w2"] = Floats({1, 2}, {2});
  for (bool c : {true, false}) {
    Model opt = ExpectSameResults(m, {{"c", Tensor::Scalar<bool>(c)}, {"x", Floats({5, 6}, {2})}}, OptimizationLevel::kBasic);
    EXPECT_EQ(opt.graph->initializers.size(), 1u);
  }
}

}  // namespace
}  // namespace tessera
