#include "tessera/optimizer/graph_validation.h"

#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"

namespace tessera {
namespace {

using namespace test;

std::string Problem(const Graph& g, std::vector<std::string> outer = {}) {
  Status st = CatchStatus([&] { ValidateGraph(g, outer, "SomePass"); });
  if (st.ok()) return "";
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("after pass SomePass"), std::string::npos) << st.message();
  return st.message();
}

Model Valid() {
  return MakeModel({MakeNode("a", "Relu", {"x"}, {"r"}), MakeNode("b", "Neg", {"r"}, {"y"})},
                   {TensorInfo("x", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
}

TEST(GraphValidation, AcceptsAValidGraph) { EXPECT_EQ(Problem(*Valid().graph), ""); }

TEST(GraphValidation, FindsEachKindOfBreakage) {
  Model unsorted = Valid();
  std::swap(unsorted.graph->nodes[0], unsorted.graph->nodes[1]);
  EXPECT_NE(Problem(*unsorted.graph).find("produced later"), std::string::npos);

  Model dangling = Valid();
  dangling.graph->nodes[1].inputs[0] = "ghost";
  EXPECT_NE(Problem(*dangling.graph).find("reads 'ghost', which is not defined"), std::string::npos);
  // ... unless an enclosing graph defines it.
  EXPECT_EQ(Problem(*dangling.graph, {"ghost"}), "");

  Model twice = Valid();
  twice.graph->nodes.push_back(MakeNode("c", "Abs", {"x"}, {"r"}));
  EXPECT_NE(Problem(*twice.graph).find("more than one producer"), std::string::npos);

  Model shadow = Valid();
  shadow.graph->initializers["r"] = Floats({1, 2}, {2});
  EXPECT_NE(Problem(*shadow.graph).find("also a graph input or initializer"), std::string::npos);

  Model no_output = Valid();
  no_output.graph->outputs.push_back(TensorInfo("missing", DataType::kFloat, {2}));
  EXPECT_NE(Problem(*no_output.graph).find("output 'missing' is not defined"), std::string::npos);
}

TEST(GraphValidation, ChecksSubgraphsWithTheirScope) {
  auto body = std::make_shared<Graph>();
  body->name = "then";
  body->nodes = {MakeNode("t", "Neg", {"r"}, {"t_out"})};  // reads the outer r
  body->outputs = {TensorInfo("t_out", DataType::kFloat, {2})};
  Node iff = WithAttrs(MakeNode("if", "If", {"c"}, {"z"}), {GraphAttr("then_branch", body), GraphAttr("else_branch", body)});
  Model m = Valid();
  m.graph->inputs.push_back(TensorInfo("c", DataType::kBool, {}));
  m.graph->nodes.push_back(iff);
  EXPECT_EQ(Problem(*m.graph), "");
  // The If placed before r's producer: the subgraph read comes too early.
  m.graph->nodes.insert(m.graph->nodes.begin(), m.graph->nodes.back());
  m.graph->nodes.pop_back();
  EXPECT_NE(Problem(*m.graph).find("subgraph 'then'"), std::string::npos);
  // A broken node inside the subgraph.
  Model inner = Valid();
  inner.graph->inputs.push_back(TensorInfo("c", DataType::kBool, {}));
  auto bad = std::make_shared<Graph>(*body);
  bad->nodes[0].inputs[0] = "nowhere";
  inner.graph->nodes.push_back(
      WithAttrs(MakeNode("if", "If", {"c"}, {"z"}), {GraphAttr("then_branch", bad), GraphAttr("else_branch", body)}));
  EXPECT_NE(Problem(*inner.graph).find("'nowhere'"), std::string::npos);
}

}  // namespace
}  // namespace tessera
