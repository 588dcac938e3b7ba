#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

int Cse(Model& m) { return ApplyPass(*MakeCommonSubexpressionElimination(), m); }

TEST(CommonSubexpressionElimination, MergesIdenticalNodes) {
  Node l1 = WithAttrs(MakeNode("l1", "LeakyRelu", {"x"}, {"a"}), {FloatAttr("alpha", 0.2f)});
  Node l2 = WithAttrs(MakeNode("l2", "LeakyRelu", {"x"}, {"b"}), {FloatAttr("alpha", 0.2f)});
  Model m = MakeModel({l1, l2, MakeNode("add", "Add", {"a", "b"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {3})},
                      {TensorInfo("y", DataType::kFloat, {3})});
  Model opt = ExpectSameResults(m, {{"x", Floats({-1, 0, 2}, {3})}}, OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), (std::vector<std::string>{"LeakyRelu", "Add"}));
  EXPECT_EQ(opt.graph->nodes[1].inputs[0], opt.graph->nodes[1].inputs[1]);
}

TEST(CommonSubexpressionElimination, LeavesDifferentAttributesInputsAndRandomNodes) {
  Node l1 = WithAttrs(MakeNode("l1", "LeakyRelu", {"x"}, {"a"}), {FloatAttr("alpha", 0.2f)});
  Node l2 = WithAttrs(MakeNode("l2", "LeakyRelu", {"x"}, {"b"}), {FloatAttr("alpha", 0.3f)});
  Node r1 = MakeNode("r1", "RandomUniformLike", {"x"}, {"c"});
  Node r2 = MakeNode("r2", "RandomUniformLike", {"x"}, {"d"});
  Node s1 = MakeNode("s1", "Sub", {"x", "a"}, {"e"});
  Node s2 = MakeNode("s2", "Sub", {"a", "x"}, {"f"});
  Model m = MakeModel({l1, l2, r1, r2, s1, s2}, {TensorInfo("x", DataType::kFloat, {3})},
                      {TensorInfo("b", DataType::kFloat, {3}), TensorInfo("c", DataType::kFloat, {3}),
                       TensorInfo("d", DataType::kFloat, {3}), TensorInfo("e", DataType::kFloat, {3}),
                       TensorInfo("f", DataType::kFloat, {3})});
  EXPECT_EQ(Cse(m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 6u);
}

TEST(CommonSubexpressionElimination, GraphOutputs) {
  // One duplicate is a graph output: the kept node takes its name.
  Model m = MakeModel({MakeNode("n1", "Neg", {"x"}, {"a"}), MakeNode("n2", "Neg", {"x"}, {"y"}),
                       MakeNode("use", "Abs", {"a"}, {"z"})},
                      {TensorInfo("x", DataType::kFloat, {3})},
                      {TensorInfo("y", DataType::kFloat, {3}), TensorInfo("z", DataType::kFloat, {3})});
  Model opt = ExpectSameResults(m, {{"x", Floats({-1, 0, 2}, {3})}}, OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), (std::vector<std::string>{"Neg", "Abs"}));
  // Both are graph outputs: two names need two values.
  Model both = MakeModel({MakeNode("n1", "Neg", {"x"}, {"a"}), MakeNode("n2", "Neg", {"x"}, {"y"})},
                         {TensorInfo("x", DataType::kFloat, {3})},
                         {TensorInfo("a", DataType::kFloat, {3}), TensorInfo("y", DataType::kFloat, {3})});
  EXPECT_EQ(Cse(both), 0);
}

TEST(CommonSubexpressionElimination, LeavesNodesWithSubgraphs) {
  auto g = std::make_shared<Graph>();
  g->name = "b";
  g->nodes = {MakeNode("i", "Neg", {"x"}, {"t"})};
  g->outputs = {TensorInfo("t", DataType::kFloat, {3})};
  Node if1 = WithAttrs(MakeNode("if1", "If", {"c"}, {"a"}), {GraphAttr("then_branch", g), GraphAttr("else_branch", g)});
  Node if2 = WithAttrs(MakeNode("if2", "If", {"c"}, {"b"}), {GraphAttr("then_branch", g), GraphAttr("else_branch", g)});
  Model m = MakeModel({if1, if2}, {TensorInfo("c", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {3})},
                      {TensorInfo("a", DataType::kFloat, {3}), TensorInfo("b", DataType::kFloat, {3})});
  EXPECT_EQ(Cse(m), 0);
}

TEST(CommonSubexpressionElimination, MergesChainsOverRounds) {
  // Two copies of Relu(Neg(x)): the Negs merge, then the Relus.
  Model m = MakeModel({MakeNode("n1", "Neg", {"x"}, {"a1"}), MakeNode("r1", "Relu", {"a1"}, {"b1"}),
                       MakeNode("n2", "Neg", {"x"}, {"a2"}), MakeNode("r2", "Relu", {"a2"}, {"b2"}),
                       MakeNode("add", "Add", {"b1", "b2"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {3})}, {TensorInfo("y", DataType::kFloat, {3})});
  Model opt = ExpectSameResults(m, {{"x", Floats({-1, 0, 2}, {3})}}, OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), (std::vector<std::string>{"Neg", "Relu", "Add"}));
}

}  // namespace
}  // namespace tessera
