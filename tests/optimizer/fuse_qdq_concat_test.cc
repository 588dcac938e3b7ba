// QdqToQLinearConcat: differently quantized inputs of a Concat between
// Q/DQ nodes become one QLinearConcat, exact against the QDQ model.
#include <gtest/gtest.h>

#include "optimizer/qdq_test_util.h"

namespace tessera {
namespace {

using namespace test;

const DataType U8 = DataType::kUInt8;

Model QdqConcat(bool third_is_float) {
  Model m = MakeModel({}, {TensorInfo("aq", U8, {1, 2, 3, 3}), TensorInfo("bq", U8, {1, 4, 3, 3}),
                           TensorInfo("c", DataType::kFloat, {1, 1, 3, 3})},
                      {TensorInfo("yq", U8, {1, third_is_float ? 7 : 6, 3, 3})}, 13);
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "aq", "a", 0.02f, U8, 128));
  n.push_back(QdqNode(m, "DequantizeLinear", "bq", "b", 0.05f, U8, 10));
  std::vector<std::string> in = {"a", "b"};
  if (third_is_float) in.push_back("c");
  n.push_back(WithAttrs(MakeNode("cat", "Concat", in, {"y"}), {IntAttr("axis", 1)}));
  n.push_back(QdqNode(m, "QuantizeLinear", "y", "yq", 0.03f, U8, 100));
  return m;
}

TEST(QdqToQLinearConcat, DifferentlyQuantizedInputsFuse) {
  int changes = 0;
  const Feeds feeds = {{"aq", QBytes(U8, {1, 2, 3, 3}, 1)}, {"bq", QBytes(U8, {1, 4, 3, 3}, 2)}, {"c", RandomFloats({1, 1, 3, 3}, 3)}};
  Model opt = ApplyAndCompareQ(*MakeQdqToQLinearConcat(), QdqConcat(false), feeds, &changes);
  EXPECT_EQ(changes, 1);
  ASSERT_EQ(opt.graph->nodes.size(), 1u);
  const Node& q = opt.graph->nodes[0];
  EXPECT_EQ(q.op_type, "QLinearConcat");
  EXPECT_EQ(q.inputs, (std::vector<std::string>{"yq_s", "yq_z", "aq", "a_s", "a_z", "bq", "b_s", "b_z"}));
  ASSERT_NE(q.FindAttribute("axis"), nullptr);
  EXPECT_EQ(q.FindAttribute("axis")->i, 1);
  // A float input that is no DequantizeLinear keeps the group float.
  const Model mixed = QdqConcat(true);
  ApplyAndCompareQ(*MakeQdqToQLinearConcat(), mixed, feeds, &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_NE(PassLog(*MakeQdqToQLinearConcat(), mixed).find("'cat' (Concat) stays float: an input is no per-tensor"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
