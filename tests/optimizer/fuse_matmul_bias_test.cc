#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// a[a_shape] -> MatMul(w[4,5]) -> Add(k) -> y
Model MatMulAdd(Shape a_shape, Shape k_shape, bool bias_first = false) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"a", "w"}, {"c"}),
                       MakeNode("add", "Add", bias_first ? std::vector<std::string>{"k", "c"}
                                                         : std::vector<std::string>{"c", "k"},
                                {"y"})},
                      {TensorInfo("a", DataType::kFloat, a_shape)}, {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["w"] = RandomFloats({4, 5}, 1);
  m.graph->initializers["k"] = RandomFloats(k_shape, 2);
  return m;
}

TEST(MatMulBiasFusion, TwoDimensionalMatMulAddBecomesGemm) {
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeMatMulBiasFusion(), MatMulAdd({3, 4}, {5}, true), {{"a", RandomFloats({3, 4}, 3)}},
                              &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Gemm"});
  EXPECT_EQ(opt.graph->nodes[0].domain, kOnnxDomain);
}

TEST(MatMulBiasFusion, BatchedMatMulAddBecomesFusedMatMul) {
  for (Shape k : {Shape{5}, Shape{1, 5}, Shape{1, 1, 5}}) {
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeMatMulBiasFusion(), MatMulAdd({2, 3, 4}, k), {{"a", RandomFloats({2, 3, 4}, 3)}},
                                &changes);
    EXPECT_EQ(changes, 1) << ShapeToString(k);
    EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"FusedMatMul"});
  }
}

TEST(MatMulBiasFusion, VectorTimesMatrixTakesAVectorBias) {
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeMatMulBiasFusion(), MatMulAdd({4}, {5}), {{"a", RandomFloats({4}, 3)}}, &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"FusedMatMul"});
}

TEST(MatMulBiasFusion, GemmWithoutCTakesTheBias) {
  Model m = MakeModel({WithAttrs(MakeNode("g", "Gemm", {"a", "w"}, {"c"}), {IntAttr("transB", 1), FloatAttr("beta", 0.5f)}),
                       MakeNode("add", "Add", {"c", "k"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {3, 4})}, {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["w"] = RandomFloats({5, 4}, 1);
  m.graph->initializers["k"] = RandomFloats({5}, 2);
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeMatMulBiasFusion(), m, {{"a", RandomFloats({3, 4}, 3)}}, &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Gemm"});
  // A Gemm that already has C is left alone.
  Model with_c = m;
  with_c.graph = m.graph->DeepCopy();
  with_c.graph->nodes[0].inputs.push_back("k");
  EXPECT_EQ(ApplyPass(*MakeMatMulBiasFusion(), with_c), 0);
}

TEST(MatMulBiasFusion, LeavesAddsThatAreNotABiasVector) {
  // Varies along rows ([3,1]), a full matrix, grows the output's rank
  // ([1,1,1,5]; [1,5] after a vector-times-matrix product of shape [5]).
  for (auto [a, k] : std::vector<std::pair<Shape, Shape>>{
           {{3, 4}, {3, 1}}, {{3, 4}, {3, 5}}, {{2, 3, 4}, {1, 1, 1, 5}}, {{4}, {1, 5}}}) {
    int changes = 0;
    Feeds feeds = {{"a", RandomFloats(a, 3)}};
    ApplyAndCompare(*MakeMatMulBiasFusion(), MatMulAdd(a, k), feeds, &changes);
    EXPECT_EQ(changes, 0) << ShapeToString(k);
  }
}

TEST(MatMulBiasFusion, LeavesSharedProductsNonConstantBiasesAndIntegers) {
  Model m = MatMulAdd({3, 4}, {5});
  m.graph->outputs.push_back(TensorInfo("c", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeMatMulBiasFusion(), m), 0);
  Model m2 = MatMulAdd({3, 4}, {5});
  m2.graph->initializers.erase("k");
  m2.graph->inputs.push_back(TensorInfo("k", DataType::kFloat, {5}));
  EXPECT_EQ(ApplyPass(*MakeMatMulBiasFusion(), m2), 0);
  Model m3 = MatMulAdd({2, 3, 4}, {5});
  m3.graph->inputs[0] = TensorInfo("a", DataType::kInt32, {2, 3, 4});
  m3.graph->initializers["w"] = Tensor(DataType::kInt32, {4, 5});
  m3.graph->initializers["k"] = Tensor(DataType::kInt32, {5});
  EXPECT_EQ(ApplyPass(*MakeMatMulBiasFusion(), m3), 0);
}

}  // namespace
}  // namespace tessera
