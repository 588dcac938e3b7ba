#include "tessera/optimizer/graph_editor.h"

#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"

namespace tessera {
namespace {

using namespace test;

Model Chain() {
  // x -> relu -> r -> neg -> n -> (y = abs(n)), r also read by a subgraph.
  auto then_g = std::make_shared<Graph>();
  then_g->name = "then";
  then_g->nodes = {MakeNode("tid", "Sigmoid", {"r"}, {"t"})};
  then_g->outputs = {TensorInfo("t", DataType::kFloat, {2})};
  auto else_g = std::make_shared<Graph>();
  else_g->name = "else";
  else_g->nodes = {MakeNode("eid", "Tanh", {"x"}, {"e"})};
  else_g->outputs = {TensorInfo("e", DataType::kFloat, {2})};
  Node iff = WithAttrs(MakeNode("if", "If", {"c"}, {"z"}), {GraphAttr("then_branch", then_g), GraphAttr("else_branch", else_g)});
  return MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("neg", "Neg", {"r"}, {"n"}),
                    MakeNode("abs", "Abs", {"n"}, {"y"}), iff},
                   {TensorInfo("c", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2})},
                   {TensorInfo("y", DataType::kFloat, {2}), TensorInfo("z", DataType::kFloat, {2})});
}

TEST(GraphEditor, IndexesProducersAndConsumersIncludingSubgraphReads) {
  Model m = Chain();
  GraphEditor e(*m.graph);
  EXPECT_EQ(e.Producer("r"), 0);
  EXPECT_EQ(e.Producer("x"), -1);
  EXPECT_EQ(e.Consumers("r"), (std::vector<int>{1, 3}));
  EXPECT_EQ(e.UseCount("r"), 2u);
  EXPECT_EQ(e.UseCount("y"), 1u);  // graph output
  EXPECT_TRUE(e.IsGraphInput("x"));
}

TEST(GraphEditor, ReplaceUsesRenamesSubgraphReads) {
  Model m = Chain();
  GraphEditor e(*m.graph);
  e.ReplaceUses("r", "x");
  EXPECT_EQ(e.UseCount("r"), 0u);
  EXPECT_EQ(e.Consumers("x"), (std::vector<int>{0, 1, 3}));
  const Graph& then_g = *m.graph->nodes[3].FindAttribute("then_branch")->g;
  EXPECT_EQ(then_g.nodes[0].inputs[0], "x");
  e.RemoveNode(0);
  e.Commit();
  ValidateGraph(*m.graph, {}, "test");
  EXPECT_EQ(m.graph->nodes.size(), 3u);
}

TEST(GraphEditor, ReplaceUsesLeavesSubgraphsThatShadowTheName) {
  // The then-branch defines its own "r" (an older model's shadowing): its
  // reads of "r" are its own value and must not follow the outer rename.
  auto then_g = std::make_shared<Graph>();
  then_g->name = "then";
  then_g->nodes = {MakeNode("inner", "Abs", {"x"}, {"r"}), MakeNode("use", "Neg", {"r"}, {"t"})};
  then_g->outputs = {TensorInfo("t", DataType::kFloat, {2})};
  auto else_g = std::make_shared<Graph>();
  else_g->name = "else";
  else_g->nodes = {MakeNode("eneg", "Neg", {"r"}, {"e"})};
  else_g->outputs = {TensorInfo("e", DataType::kFloat, {2})};
  Node iff = WithAttrs(MakeNode("if", "If", {"c"}, {"z"}), {GraphAttr("then_branch", then_g), GraphAttr("else_branch", else_g)});
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), iff},
                      {TensorInfo("c", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2})},
                      {TensorInfo("z", DataType::kFloat, {2})});
  GraphEditor e(*m.graph);
  e.ReplaceUses("r", "x");
  EXPECT_EQ(then_g->nodes[1].inputs[0], "r");
  EXPECT_EQ(else_g->nodes[0].inputs[0], "x");
}

TEST(GraphEditor, ForwardOntoAGraphOutputRenamesTheProducer) {
  Model m = Chain();
  GraphEditor e(*m.graph);
  // abs is redundant (pretend): y should be produced by neg.
  EXPECT_TRUE(e.Forward("y", "n"));
  e.RemoveNode(2);
  e.Commit();
  ValidateGraph(*m.graph, {}, "test");
  GraphEditor after(*m.graph);
  int p = after.Producer("y");
  ASSERT_GE(p, 0);
  EXPECT_EQ(after.node(p).op_type, "Neg");
  // Neither a graph input nor another graph output can take the name.
  EXPECT_FALSE(after.Forward("y", "x"));
  EXPECT_FALSE(after.Forward("y", "z"));
}

TEST(GraphEditor, ForwardWithArgumentsAliasingNodeStrings) {
  // Callers often pass node(i).outputs[0] itself; Forward renames that string.
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("id", "Identity", {"r"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
  GraphEditor e(*m.graph);
  EXPECT_TRUE(e.Forward(e.node(1).outputs[0], e.node(1).inputs[0]));
  e.RemoveNode(1);
  e.Commit();
  ValidateGraph(*m.graph, {}, "test");
  ASSERT_EQ(m.graph->nodes.size(), 1u);
  EXPECT_EQ(m.graph->nodes[0].outputs[0], "y");
}

TEST(GraphEditor, SetInputReplaceNodeAndFreshNames) {
  Model m = Chain();
  GraphEditor e(*m.graph);
  e.SetInput(1, 0, "x");
  EXPECT_EQ(e.Consumers("r"), (std::vector<int>{3}));
  EXPECT_EQ(e.Consumers("x"), (std::vector<int>{0, 1, 3}));  // the else branch reads x
  int k = e.ReplaceNode(2, MakeNode("abs2", "Sqrt", {"n"}, {"y"}));
  EXPECT_TRUE(e.removed(2));
  EXPECT_EQ(e.Producer("y"), k);
  // Names defined inside subgraphs are taken too.
  EXPECT_NE(e.FreshName("t"), "t");
  EXPECT_NE(e.FreshName("relu"), "relu");
  std::string a = e.FreshName("new"), b = e.FreshName("new");
  EXPECT_NE(a, b);
  e.Commit();
  ValidateGraph(*m.graph, {}, "test");
  EXPECT_EQ(OpTypes(*m.graph).size(), 4u);
}

TEST(GraphEditor, CommitDropsUnreadInitializersAndStaleValueInfo) {
  Model m = Chain();
  m.graph->initializers["unread"] = Floats({1}, {1});
  m.graph->initializers["x"] = Floats({1, 2}, {2});  // default of input x: kept
  m.graph->value_info.push_back(TensorInfo("n", DataType::kFloat, {2}));
  GraphEditor e(*m.graph);
  EXPECT_EQ(e.Constant("x"), nullptr);  // overridable by a feed
  EXPECT_TRUE(e.Forward("n", "r"));
  e.RemoveNode(1);
  e.Commit();
  EXPECT_FALSE(m.graph->initializers.count("unread"));
  EXPECT_TRUE(m.graph->initializers.count("x"));
  EXPECT_TRUE(m.graph->value_info.empty());
}

}  // namespace
}  // namespace tessera
