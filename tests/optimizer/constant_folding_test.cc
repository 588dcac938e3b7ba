#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

TEST(ConstantFolding, FoldsConstantChainIntoInitializers) {
  Model m = MakeModel({MakeNode("add", "Add", {"a", "b"}, {"ab"}), MakeNode("mul", "Mul", {"ab", "x"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["a"] = Floats({1, 2}, {2});
  m.graph->initializers["b"] = Floats({10, 20}, {2});
  auto pass = MakeConstantFolding();
  EXPECT_EQ(ApplyPass(*pass, m), 1);
  EXPECT_EQ(OpTypes(*m.graph), std::vector<std::string>{"Mul"});
  ASSERT_TRUE(m.graph->initializers.count("ab"));
  EXPECT_EQ(m.graph->initializers["ab"].data<float>()[1], 22.0f);
  // a and b are no longer read: dropped.
  EXPECT_FALSE(m.graph->initializers.count("a"));
  auto out = RunUnoptimized(m, {{"x", Floats({2, 3}, {2})}});
  EXPECT_EQ(out[0].tensor().data<float>()[1], 66.0f);
}

TEST(ConstantFolding, ConstantNodesBecomeInitializersEvenAsGraphOutputs) {
  Node c = WithAttrs(MakeNode("c", "Constant", {}, {"k"}), {TensorAttr("value", Floats({1, 2, 3}, {3}))});
  Node d = WithAttrs(MakeNode("d", "Constant", {}, {"out"}), {FloatAttr("value_float", 4.5f)});
  Model m = MakeModel({c, d, MakeNode("add", "Add", {"x", "k"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {3})},
                      {TensorInfo("y", DataType::kFloat, {3}), TensorInfo("out", DataType::kFloat, {})});
  Model opt = ExpectSameResults(m, {{"x", Floats({1, 1, 1}, {3})}}, OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Add"});
  EXPECT_TRUE(opt.graph->initializers.count("k"));
  EXPECT_TRUE(opt.graph->initializers.count("out"));
}

TEST(ConstantFolding, LeavesNonDeterministicNodes) {
  Node r = WithAttrs(MakeNode("r", "RandomUniform", {}, {"u"}), {IntsAttr("shape", {2})});
  Node rl = MakeNode("rl", "RandomNormalLike", {"a"}, {"v"});
  Node b = MakeNode("b", "Bernoulli", {"p"}, {"w"});
  Model m = MakeModel({r, rl, b}, {},
                      {TensorInfo("u", DataType::kFloat, {2}), TensorInfo("v", DataType::kFloat, {2}),
                       TensorInfo("w", DataType::kFloat, {2})});
  m.graph->initializers["a"] = Floats({1, 2}, {2});
  m.graph->initializers["p"] = Floats({0.5f, 0.5f}, {2});
  auto pass = MakeConstantFolding();
  EXPECT_EQ(ApplyPass(*pass, m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 3u);
}

// The QDQ form of a quantized product keeps its weight's DequantizeLinear
// (QdqToQLinear needs it): a MatMul whose output is quantized, directly or
// after a Relu. One that feeds anything else folds: a MatMul left float, a
// Gemm (no int8 form), an Add.
TEST(ConstantFolding, KeepsTheDequantizeOfAQuantizedWeight) {
  struct Case {
    const char* reader;
    int after;  // 0: the reader's output is the graph's; 1: a Q reads it; 2: Relu then Q
    bool kept;
  };
  for (const Case& c : {Case{"MatMul", 1, true}, Case{"MatMul", 2, true}, Case{"MatMul", 0, false},
                        Case{"Gemm", 1, false}, Case{"Add", 1, false}}) {
    SCOPED_TRACE(testing::Message() << c.reader << " then " << c.after);
    std::vector<Node> nodes = {MakeNode("dq", "DequantizeLinear", {"wq", "ws"}, {"w"}),
                               MakeNode("r", c.reader, {"x", "w"}, {c.after == 0 ? "y" : "p"})};
    if (c.after == 2) nodes.push_back(MakeNode("relu", "Relu", {"p"}, {"pr"}));
    if (c.after > 0) nodes.push_back(MakeNode("q", "QuantizeLinear", {c.after == 2 ? "pr" : "p", "ws"}, {"y"}));
    const DataType yt = c.after == 0 ? DataType::kFloat : DataType::kUInt8;
    Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {2, 2})}, {TensorInfo("y", yt, {2, 2})}, 13);
    m.graph->initializers["wq"] = Tensor::FromVector<int8_t>({1, -2, 3, 127}, {2, 2});
    m.graph->initializers["ws"] = Floats({0.5f}, {});
    auto pass = MakeConstantFolding();
    EXPECT_EQ(ApplyPass(*pass, m), c.kept ? 0 : 1);
    EXPECT_EQ(m.graph->nodes.size(), nodes.size() - (c.kept ? 0 : 1));
  }
}

TEST(ConstantFolding, LeavesNodesReadingFeedsOrOverridableInitializers) {
  // "b" has an initializer but is also a graph input: a feed may replace it.
  Model m = MakeModel({MakeNode("add", "Add", {"a", "b"}, {"y"})}, {TensorInfo("b", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["a"] = Floats({1, 2}, {2});
  m.graph->initializers["b"] = Floats({1, 2}, {2});
  auto pass = MakeConstantFolding();
  EXPECT_EQ(ApplyPass(*pass, m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 1u);
}

TEST(ConstantFolding, LeavesSubgraphNodesSequencesAndOversizedResults) {
  auto branch = std::make_shared<Graph>();
  branch->name = "then";
  branch->nodes.push_back(MakeNode("id", "Identity", {"a"}, {"t"}));
  branch->outputs.push_back(TensorInfo("t", DataType::kFloat, {2}));
  auto other = std::make_shared<Graph>(*branch);
  other->name = "else";
  other->nodes[0].outputs = {"e"};
  other->outputs[0].name = "e";
  Node iff = WithAttrs(MakeNode("if", "If", {"cond"}, {"r"}), {GraphAttr("then_branch", branch), GraphAttr("else_branch", other)});
  Node seq = MakeNode("seq", "SequenceConstruct", {"a", "a"}, {"s"});
  Node big = WithAttrs(MakeNode("big", "ConstantOfShape", {"shape"}, {"z"}), {TensorAttr("value", Floats({1}, {1}))});
  Model m = MakeModel({iff, seq, big}, {},
                      {TensorInfo("r", DataType::kFloat, {2}), ValueInfo{"s", TypeInfo{}, ""},
                       TensorInfo("z", DataType::kFloat, {1000, 1000})});
  m.graph->initializers["cond"] = Tensor::Scalar<bool>(true);
  m.graph->initializers["a"] = Floats({1, 2}, {2});
  m.graph->initializers["shape"] = Ints({1000, 1000});
  PassContext ctx = CpuContext(m);
  ctx.max_folded_bytes = 1 << 20;  // z would be 4 MB
  auto pass = MakeConstantFolding();
  EXPECT_EQ(ApplyPass(*pass, m, ctx), 0);
  EXPECT_EQ(OpTypes(*m.graph), (std::vector<std::string>{"If", "SequenceConstruct", "ConstantOfShape"}));
  ctx.max_folded_bytes = 8 << 20;
  EXPECT_EQ(ApplyPass(*pass, m, ctx), 1);  // now z fits
  EXPECT_EQ(m.graph->initializers["z"].numel(), 1000000);
}

TEST(ConstantFolding, GrowingOpsAreSizedBeforeTheyAreComputed) {
  // Expand of one value to 10^10 elements: never computed (it would take
  // 40 GB); Tile and Range within the cap still fold.
  Model m = MakeModel({MakeNode("e", "Expand", {"one", "huge"}, {"y"}), MakeNode("t", "Tile", {"v", "reps"}, {"z"}),
                       MakeNode("r", "Range", {"s", "l", "d"}, {"w"})},
                      {}, {TensorInfo("y", DataType::kFloat, {100000, 100000}), TensorInfo("z", DataType::kFloat, {4}),
                           TensorInfo("w", DataType::kInt64, {5})});
  m.graph->initializers["one"] = Floats({1}, {1});
  m.graph->initializers["huge"] = Ints({100000, 100000});
  m.graph->initializers["v"] = Floats({1, 2}, {2});
  m.graph->initializers["reps"] = Ints({2});
  m.graph->initializers["s"] = Tensor::Scalar<int64_t>(0);
  m.graph->initializers["l"] = Tensor::Scalar<int64_t>(10);
  m.graph->initializers["d"] = Tensor::Scalar<int64_t>(2);
  EXPECT_EQ(ApplyPass(*MakeConstantFolding(), m), 2);
  EXPECT_EQ(OpTypes(*m.graph), std::vector<std::string>{"Expand"});
  EXPECT_EQ(m.graph->initializers["w"].ToInt64Vector(), (std::vector<int64_t>{0, 2, 4, 6, 8}));
  EXPECT_EQ(m.graph->initializers["z"].numel(), 4);
}

TEST(ConstantFolding, LeavesNodesWhoseKernelFails) {
  // A Reshape of 6 elements to 4: the error must surface at run time, not now.
  Model m = MakeModel({MakeNode("r", "Reshape", {"a", "s"}, {"y"})}, {}, {TensorInfo("y", DataType::kFloat, {4})});
  m.graph->initializers["a"] = Floats({1, 2, 3, 4, 5, 6}, {6});
  m.graph->initializers["s"] = Ints({4});
  auto pass = MakeConstantFolding();
  EXPECT_EQ(ApplyPass(*pass, m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 1u);
}

TEST(ConstantFolding, WithoutKernelsFoldsNothing) {
  Model m = MakeModel({MakeNode("neg", "Neg", {"a"}, {"y"})}, {}, {TensorInfo("y", DataType::kFloat, {2})});
  m.graph->initializers["a"] = Floats({1, 2}, {2});
  PassContext ctx = CpuContext(m);
  ctx.cpu_kernels = nullptr;
  EXPECT_EQ(ApplyPass(*MakeConstantFolding(), m, ctx), 0);
}

TEST(ConstantFolding, FoldsInsideSubgraphs) {
  // The then-branch adds two of its own constants to an outer value.
  auto then_g = std::make_shared<Graph>();
  then_g->name = "then";
  then_g->initializers["c1"] = Floats({1, 1}, {2});
  then_g->initializers["c2"] = Floats({2, 2}, {2});
  then_g->nodes = {MakeNode("cadd", "Add", {"c1", "c2"}, {"c3"}), MakeNode("use", "Add", {"x", "c3"}, {"t"})};
  then_g->outputs.push_back(TensorInfo("t", DataType::kFloat, {2}));
  auto else_g = std::make_shared<Graph>();
  else_g->name = "else";
  else_g->nodes = {MakeNode("eid", "Identity", {"x"}, {"e"})};
  else_g->outputs.push_back(TensorInfo("e", DataType::kFloat, {2}));
  Node iff = WithAttrs(MakeNode("if", "If", {"cond"}, {"y"}), {GraphAttr("then_branch", then_g), GraphAttr("else_branch", else_g)});
  Model m = MakeModel({iff}, {TensorInfo("cond", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})});
  for (bool c : {true, false}) {
    Model opt = ExpectSameResults(m, {{"cond", Tensor::Scalar<bool>(c)}, {"x", Floats({5, 6}, {2})}},
                                  OptimizationLevel::kBasic);
    const Graph& t = *opt.graph->nodes[0].FindAttribute("then_branch")->g;
    EXPECT_EQ(OpTypes(t), std::vector<std::string>{"Add"});
    EXPECT_TRUE(t.initializers.count("c3"));
  }
}

}  // namespace
}  // namespace tessera
