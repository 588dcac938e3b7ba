#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

TEST(ShapeFolding, ShapeAndSizeOfStaticValuesBecomeInitializers) {
  Node tail = WithAttrs(MakeNode("tail", "Shape", {"r"}, {"st"}), {IntAttr("start", -2)});
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("shape", "Shape", {"r"}, {"s"}), tail,
                       MakeNode("size", "Size", {"x"}, {"n"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3, 4})},
                      {TensorInfo("s", DataType::kInt64, {3}), TensorInfo("st", DataType::kInt64, {2}),
                       TensorInfo("n", DataType::kInt64, {}), TensorInfo("r", DataType::kFloat, {2, 3, 4})});
  EXPECT_EQ(ApplyPass(*MakeShapeFolding(), m), 3);
  EXPECT_EQ(OpTypes(*m.graph), std::vector<std::string>{"Relu"});
  EXPECT_EQ(m.graph->initializers["s"].ToInt64Vector(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(m.graph->initializers["st"].ToInt64Vector(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(m.graph->initializers["n"].ToInt64Vector(), (std::vector<int64_t>{24}));
}

TEST(ShapeFolding, LeavesSymbolicDims) {
  Model m = MakeModel({MakeNode("shape", "Shape", {"x"}, {"s"}), MakeNode("size", "Size", {"x"}, {"n"})},
                      {TensorInfo("x", DataType::kFloat, {-1, 3})},
                      {TensorInfo("s", DataType::kInt64, {2}), TensorInfo("n", DataType::kInt64, {})});
  EXPECT_EQ(ApplyPass(*MakeShapeFolding(), m), 0);
  EXPECT_EQ(m.graph->nodes.size(), 2u);
}

TEST(ShapeFolding, DoesNotTrustDeclaredValueInfo) {
  // value_info claims r is [5,3] but x's first dim is symbolic: a wrong
  // declaration must not become a wrong constant.
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("shape", "Shape", {"r"}, {"s"})},
                      {TensorInfo("x", DataType::kFloat, {-1, 3})}, {TensorInfo("s", DataType::kInt64, {2})});
  m.graph->value_info.push_back(TensorInfo("r", DataType::kFloat, {5, 3}));
  EXPECT_EQ(ApplyPass(*MakeShapeFolding(), m), 0);
  auto out = RunUnoptimized(Optimized(m, OptimizationLevel::kAll), {{"x", Floats({1, 2, 3, 4, 5, 6}, {2, 3})}});
  EXPECT_EQ(out[0].tensor().ToInt64Vector(), (std::vector<int64_t>{2, 3}));
}

TEST(ShapeFolding, InputWithADefaultOfAnotherShapeIsNotFolded) {
  // x is declared [1,3] but its default (used when not fed) is [2,3].
  Model m = MakeModel({MakeNode("shape", "Shape", {"x"}, {"s"})}, {TensorInfo("x", DataType::kFloat, {1, 3})},
                      {TensorInfo("s", DataType::kInt64, {2})});
  m.graph->initializers["x"] = Floats({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(ApplyPass(*MakeShapeFolding(), m), 0);
  m.graph->initializers["x"] = Floats({1, 2, 3}, {1, 3});
  EXPECT_EQ(ApplyPass(*MakeShapeFolding(), m), 1);
}

TEST(ShapeFolding, ShapeArithmeticFoldsAwayWithConstantFolding) {
  // Reshape(x, Concat(Gather(Shape(x), 0), [-1])): the target shape is
  // static, so the whole shape computation folds to one initializer.
  Node gather = WithAttrs(MakeNode("g", "Gather", {"s", "zero"}, {"d0"}), {IntAttr("axis", 0)});
  Node concat = WithAttrs(MakeNode("c", "Concat", {"d0", "minus1"}, {"target"}), {IntAttr("axis", 0)});
  Model m = MakeModel({MakeNode("shape", "Shape", {"x"}, {"s"}), gather, concat,
                       MakeNode("reshape", "Reshape", {"x", "target"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3, 2})}, {TensorInfo("y", DataType::kFloat, {2, 6})});
  m.graph->initializers["zero"] = Ints({0});
  m.graph->initializers["minus1"] = Ints({-1});
  std::vector<float> data(12);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  Model opt = ExpectSameResults(m, {{"x", Floats(data, {2, 3, 2})}}, OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Reshape"});
  EXPECT_EQ(opt.graph->initializers.at(opt.graph->nodes[0].inputs[1]).ToInt64Vector(), (std::vector<int64_t>{2, -1}));
}

TEST(ShapeFolding, IgnoresDeclaredSubgraphInputShapes) {
  // A Loop body's carried value may change shape between iterations, so
  // its declared shape is not trusted.
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {TensorInfo("i", DataType::kInt64, {}), TensorInfo("cond_in", DataType::kBool, {}),
                  TensorInfo("acc", DataType::kFloat, {1})};
  body->nodes = {MakeNode("shape", "Shape", {"acc"}, {"acc_shape"}),
                 WithAttrs(MakeNode("cat", "Concat", {"acc", "acc"}, {"acc_next"}), {IntAttr("axis", 0)}),
                 MakeNode("cid", "Identity", {"cond_in"}, {"cond_out"})};
  body->outputs = {TensorInfo("cond_out", DataType::kBool, {}), TensorInfo("acc_next", DataType::kFloat, {1}),
                   TensorInfo("acc_shape", DataType::kInt64, {1})};
  Node loop = WithAttrs(MakeNode("loop", "Loop", {"trip", "", "init"}, {"final", "shapes"}), {GraphAttr("body", body)});
  Model m = MakeModel({loop}, {TensorInfo("init", DataType::kFloat, {1})},
                      {TensorInfo("final", DataType::kFloat, {-1}), TensorInfo("shapes", DataType::kInt64, {3, 1})});
  m.graph->initializers["trip"] = Tensor::Scalar<int64_t>(3);
  Model opt = ExpectSameResults(m, {{"init", Floats({1}, {1})}});
  const Graph& b = *opt.graph->nodes[0].FindAttribute("body")->g;
  EXPECT_EQ(CountOp(b, "Shape"), 1);
}

}  // namespace
}  // namespace tessera
