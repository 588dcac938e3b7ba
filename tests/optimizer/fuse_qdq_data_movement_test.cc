// QdqDataMovement: MaxPool, Concat and the reshaping ops between a
// DequantizeLinear and a QuantizeLinear with the same parameters run on the
// quantized values, exactly.
#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

Tensor Bytes(Shape s, uint32_t seed) {
  Tensor out(DataType::kUInt8, std::move(s));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < out.numel(); ++i) out.data<uint8_t>()[i] = static_cast<uint8_t>(gen());
  return out;
}

// a, b [1, 3, 6, 5] uint8 -> DQ -> MaxPool(3x3, stride 2, pads 1) / Concat -> Q -> y.
Model Movement(const std::string& op, float q_scale, uint8_t q_zero, float dq_scale = 0.04f) {
  std::vector<Node> n = {MakeNode("dqa", "DequantizeLinear", {"a", "s", "z"}, {"fa"})};
  if (op == "Concat") n.push_back(MakeNode("dqb", "DequantizeLinear", {"b", "s", "z"}, {"fb"}));
  Shape y_shape = {1, 3, 3, 3};
  if (op == "MaxPool") {
    Node p = MakeNode("pool", "MaxPool", {"fa"}, {"m"});
    p.attributes = {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntsAttr("pads", {1, 1, 1, 1})};
    n.push_back(p);
  } else {
    Node c = MakeNode("cat", "Concat", {"fa", "fb"}, {"m"});
    c.attributes = {IntAttr("axis", 1)};
    n.push_back(c);
    y_shape = {1, 6, 6, 5};
  }
  n.push_back(MakeNode("q", "QuantizeLinear", {"m", "qs", "qz"}, {"y"}));
  Model m = MakeModel(n, {TensorInfo("a", DataType::kUInt8, {1, 3, 6, 5}), TensorInfo("b", DataType::kUInt8, {1, 3, 6, 5})},
                      {TensorInfo("y", DataType::kUInt8, y_shape)}, 13);
  auto& init = m.graph->initializers;
  init["s"] = Scalar(dq_scale);
  init["z"] = Tensor::FromVector<uint8_t>({100}, {});
  init["qs"] = Scalar(q_scale);
  init["qz"] = Tensor::FromVector<uint8_t>({q_zero}, {});
  return m;
}

Feeds Inputs() { return {{"a", Bytes({1, 3, 6, 5}, 1)}, {"b", Bytes({1, 3, 6, 5}, 2)}}; }

TEST(QdqDataMovement, MaxPoolAndConcatRunOnTheQuantizedValues) {
  for (const char* op : {"MaxPool", "Concat"}) {
    SCOPED_TRACE(op);
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeQdqDataMovement(), Movement(op, 0.04f, 100), Inputs(), &changes, 0, 0);
    EXPECT_EQ(changes, 1);
    EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{op}) << "exact: no Q/DQ left";
    EXPECT_EQ(opt.graph->nodes[0].inputs[0], "a");
  }
}

TEST(QdqDataMovement, OtherParametersOrANegativeScaleStay) {
  int changes = 0;
  ApplyAndCompare(*MakeQdqDataMovement(), Movement("MaxPool", 0.05f, 100), Inputs(), &changes, 0, 0);
  EXPECT_EQ(changes, 0) << "another scale requantizes";
  ApplyAndCompare(*MakeQdqDataMovement(), Movement("MaxPool", 0.04f, 90), Inputs(), &changes, 0, 0);
  EXPECT_EQ(changes, 0) << "another zero point";
  ApplyAndCompare(*MakeQdqDataMovement(), Movement("MaxPool", -0.04f, 100, -0.04f), Inputs(), &changes, 0, 0);
  EXPECT_EQ(changes, 0) << "a negative scale turns max into min";
}

}  // namespace
}  // namespace tessera
