// QdqToQLinearLookup: DQ -> Sigmoid / LeakyRelu -> Q becomes QLinearSigmoid
// / QLinearLeakyRelu (alpha kept), within one step of the QDQ model.
#include <gtest/gtest.h>

#include "optimizer/qdq_test_util.h"

namespace tessera {
namespace {

using namespace test;

Model QdqUnary(const std::string& op, DataType t, DataType out_type) {
  Model m = MakeModel({}, {TensorInfo("xq", t, {3, 50})}, {TensorInfo("yq", out_type, {3, 50})}, 13);
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "xq", "x", 0.06f, t, t == DataType::kInt8 ? 5 : 128));
  Node f = MakeNode("f", op, {"x"}, {"y"});
  if (op == "LeakyRelu") f.attributes.push_back(FloatAttr("alpha", 0.2f));
  n.push_back(f);
  n.push_back(QdqNode(m, "QuantizeLinear", "y", "yq", op == "Sigmoid" ? 1.0f / 256 : 0.05f, out_type,
                      out_type == DataType::kInt8 ? -128 : 0));
  return m;
}

TEST(QdqToQLinearLookup, SigmoidAndLeakyReluFuse) {
  for (const char* op : {"Sigmoid", "LeakyRelu"})
    for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeName(t));
      int changes = 0;
      Model opt = ApplyAndCompareQ(*MakeQdqToQLinearLookup(), QdqUnary(op, t, t), {{"xq", QBytes(t, {3, 50}, 9)}}, &changes);
      EXPECT_EQ(changes, 1);
      ASSERT_EQ(opt.graph->nodes.size(), 1u);
      EXPECT_EQ(opt.graph->nodes[0].op_type, std::string("QLinear") + op);
      if (std::string(op) == "LeakyRelu") {
        ASSERT_NE(opt.graph->nodes[0].FindAttribute("alpha"), nullptr);
        EXPECT_FLOAT_EQ(opt.graph->nodes[0].FindAttribute("alpha")->f, 0.2f);
      }
    }
}

TEST(QdqToQLinearLookup, MixedTypesStayFloat) {
  const Model m = QdqUnary("Sigmoid", DataType::kUInt8, DataType::kInt8);
  int changes = 0;
  ApplyAndCompareQ(*MakeQdqToQLinearLookup(), m, {{"xq", QBytes(DataType::kUInt8, {3, 50}, 9)}}, &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_NE(PassLog(*MakeQdqToQLinearLookup(), m).find("'f' (Sigmoid) stays float: its input and output 8-bit types differ"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
