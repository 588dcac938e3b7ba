#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

TEST(DeadNodeElimination, RemovesUnreadChainsAndInitializers) {
  Model m = MakeModel({MakeNode("a", "Relu", {"x"}, {"r"}), MakeNode("b", "Neg", {"r"}, {"n"}),
                       MakeNode("c", "Add", {"n", "w"}, {"unused"}), MakeNode("d", "Sigmoid", {"x"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["w"] = Floats({1, 2}, {2});
  m.graph->initializers["never_read"] = Floats({1}, {1});
  // 3 nodes + 2 initializers (w is unread once c goes).
  EXPECT_EQ(ApplyPass(*MakeDeadNodeElimination(), m), 5);
  EXPECT_EQ(OpTypes(*m.graph), std::vector<std::string>{"Sigmoid"});
  EXPECT_TRUE(m.graph->initializers.empty());
}

TEST(DeadNodeElimination, KeepsOutputsSubgraphReadsAndOverridableInitializers) {
  auto then_g = std::make_shared<Graph>();
  then_g->name = "then";
  then_g->nodes = {MakeNode("tid", "Identity", {"r"}, {"t"})};
  then_g->outputs.push_back(TensorInfo("t", DataType::kFloat, {2}));
  auto else_g = std::make_shared<Graph>();
  else_g->name = "else";
  else_g->nodes = {MakeNode("eid", "Identity", {"x"}, {"e"})};
  else_g->outputs.push_back(TensorInfo("e", DataType::kFloat, {2}));
  Node iff = WithAttrs(MakeNode("if", "If", {"cond"}, {"y"}), {GraphAttr("then_branch", then_g), GraphAttr("else_branch", else_g)});
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), iff},
                      {TensorInfo("cond", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2}),
                       TensorInfo("bias", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["bias"] = Floats({1, 2}, {2});  // unread, but a graph input's default
  EXPECT_EQ(ApplyPass(*MakeDeadNodeElimination(), m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 2u);
  EXPECT_TRUE(m.graph->initializers.count("bias"));
}

}  // namespace
}  // namespace tessera
