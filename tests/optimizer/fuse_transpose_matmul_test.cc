#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

TEST(TransposeMatMulFusion, FoldsLastTwoAxisTransposesIntoFusedMatMul) {
  // y = Transpose(a) x Transpose(b), batched.
  Model m = MakeModel({WithAttrs(MakeNode("ta", "Transpose", {"a"}, {"at"}), {IntsAttr("perm", {0, 2, 1})}),
                       WithAttrs(MakeNode("tb", "Transpose", {"b"}, {"bt"}), {IntsAttr("perm", {0, 2, 1})}),
                       MakeNode("mm", "MatMul", {"at", "bt"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {2, 4, 3}), TensorInfo("b", DataType::kFloat, {2, 5, 4})},
                      {TensorInfo("y", DataType::kFloat, {})});
  Feeds feeds = {{"a", RandomFloats({2, 4, 3}, 1)}, {"b", RandomFloats({2, 5, 4}, 2)}};
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeTransposeMatMulFusion(), m, feeds, &changes);
  EXPECT_EQ(changes, 2);
  ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"FusedMatMul"});
  const Node& n = opt.graph->nodes[0];
  EXPECT_EQ(n.FindAttribute("transA")->i, 1);
  EXPECT_EQ(n.FindAttribute("transB")->i, 1);
  EXPECT_EQ(n.inputs[0], "a");
  EXPECT_EQ(n.inputs[1], "b");
}

TEST(TransposeMatMulFusion, TogglesGemmFlags) {
  Model m = MakeModel({MakeNode("t", "Transpose", {"w"}, {"wt"}),  // default perm on 2-D: [1, 0]
                       WithAttrs(MakeNode("g", "Gemm", {"a", "wt", "c"}, {"y"}), {IntAttr("transB", 1)})},
                      {TensorInfo("a", DataType::kFloat, {3, 4}), TensorInfo("w", DataType::kFloat, {4, 5})},
                      {TensorInfo("y", DataType::kFloat, {})});
  m.graph->initializers["c"] = RandomFloats({5}, 3);
  Feeds feeds = {{"a", RandomFloats({3, 4}, 1)}, {"w", RandomFloats({4, 5}, 2)}};
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeTransposeMatMulFusion(), m, feeds, &changes);
  EXPECT_EQ(changes, 1);
  ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Gemm"});
  EXPECT_EQ(opt.graph->nodes[0].FindAttribute("transB")->i, 0);
}

TEST(TransposeMatMulFusion, LeavesOtherPermutationsAndSharedTransposes) {
  Feeds feeds = {{"a", RandomFloats({2, 3, 4}, 1)}, {"b", RandomFloats({3, 4, 5}, 2)}};
  // [1, 0, 2] moves a batch axis: not a flag.
  Model m = MakeModel({WithAttrs(MakeNode("ta", "Transpose", {"a"}, {"at"}), {IntsAttr("perm", {1, 0, 2})}),
                       MakeNode("mm", "MatMul", {"at", "b"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {2, 3, 4}), TensorInfo("b", DataType::kFloat, {3, 4, 5})},
                      {TensorInfo("y", DataType::kFloat, {})});
  int changes = 0;
  ApplyAndCompare(*MakeTransposeMatMulFusion(), m, feeds, &changes);
  EXPECT_EQ(changes, 0);
  // The transposed value is also a graph output.
  Model m2 = MakeModel({WithAttrs(MakeNode("ta", "Transpose", {"a"}, {"at"}), {IntsAttr("perm", {0, 2, 1})}),
                        MakeNode("mm", "MatMul", {"at", "b"}, {"y"})},
                       {TensorInfo("a", DataType::kFloat, {2, 4, 3}), TensorInfo("b", DataType::kFloat, {2, 4, 5})},
                       {TensorInfo("y", DataType::kFloat, {}), TensorInfo("at", DataType::kFloat, {})});
  EXPECT_EQ(ApplyPass(*MakeTransposeMatMulFusion(), m2), 0);
  // Default perm on rank 3 reverses all axes.
  Model m3 = MakeModel({MakeNode("ta", "Transpose", {"a"}, {"at"}), MakeNode("mm", "MatMul", {"at", "b"}, {"y"})},
                       {TensorInfo("a", DataType::kFloat, {4, 3, 2}), TensorInfo("b", DataType::kFloat, {2, 4, 5})},
                       {TensorInfo("y", DataType::kFloat, {})});
  EXPECT_EQ(ApplyPass(*MakeTransposeMatMulFusion(), m3), 0);
}

}  // namespace
}  // namespace tessera
