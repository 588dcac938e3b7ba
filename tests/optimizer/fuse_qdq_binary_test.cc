// QdqToQLinearBinary: DQ -> Add/Mul -> Q becomes QLinearAdd/QLinearMul
// (the residual Add after QLinearConv too), within one output step of the
// QDQ model; declined groups stay float and the log says why.
#include <gtest/gtest.h>

#include "optimizer/qdq_test_util.h"

namespace tessera {
namespace {

using namespace test;

const DataType U8 = DataType::kUInt8;

// a_q [2, 3, 4, 5] and b_q (shape b) uint8 -> DQ -> op [-> Relu] -> Q -> y_q.
Model QdqBinary(const std::string& op, Shape b, bool relu = false, int y_zero = 128, bool sum_is_output = false) {
  Model m = MakeModel({}, {TensorInfo("aq", U8, {2, 3, 4, 5}), TensorInfo("bq", U8, std::vector<int64_t>(b.begin(), b.end()))},
                      {TensorInfo("yq", U8, {2, 3, 4, 5})}, 13);
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "aq", "a", 0.02f, U8, 120));
  n.push_back(QdqNode(m, "DequantizeLinear", "bq", "b", 0.031f, U8, 135));
  n.push_back(MakeNode("op", op, {"a", "b"}, {relu ? "s" : "y"}));
  if (relu) n.push_back(MakeNode("relu", "Relu", {"s"}, {"y"}));
  n.push_back(QdqNode(m, "QuantizeLinear", "y", "yq", op == "Mul" ? 0.3f : 0.045f, U8, y_zero));
  if (sum_is_output) m.graph->outputs.push_back(TensorInfo(relu ? "s" : "y", DataType::kFloat, {2, 3, 4, 5}));
  return m;
}

Feeds BinaryFeeds(Shape b) { return {{"aq", QBytes(U8, {2, 3, 4, 5}, 1)}, {"bq", QBytes(U8, std::move(b), 2)}}; }

TEST(QdqToQLinearBinary, AddAndMulBecomeQLinearOpsWithBroadcasting) {
  for (const char* op : {"Add", "Mul"})
    for (const Shape& b : {Shape{2, 3, 4, 5}, Shape{1, 3, 1, 1}, Shape{}}) {
      SCOPED_TRACE(std::string(op) + " " + ShapeToString(b));
      int changes = 0;
      Model opt = ApplyAndCompareQ(*MakeQdqToQLinearBinary(), QdqBinary(op, b), BinaryFeeds(b), &changes);
      EXPECT_EQ(changes, 1);
      ASSERT_EQ(opt.graph->nodes.size(), 1u);
      const Node& q = opt.graph->nodes[0];
      EXPECT_EQ(q.op_type, std::string("QLinear") + op);
      EXPECT_EQ(q.domain, kMicrosoftDomain);
      EXPECT_EQ(q.inputs, (std::vector<std::string>{"aq", "a_s", "a_z", "bq", "b_s", "b_z", "yq_s", "yq_z"}));
    }
}

TEST(QdqToQLinearBinary, ReluFoldsOnlyAtTheLowestZeroPoint) {
  int changes = 0;
  Model opt = ApplyAndCompareQ(*MakeQdqToQLinearBinary(), QdqBinary("Add", {2, 3, 4, 5}, true, 0), BinaryFeeds({2, 3, 4, 5}),
                              &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"QLinearAdd"});
  const Model kept = QdqBinary("Add", {2, 3, 4, 5}, true, 128);
  ApplyAndCompareQ(*MakeQdqToQLinearBinary(), kept, BinaryFeeds({2, 3, 4, 5}), &changes);
  EXPECT_EQ(changes, 0);
  const std::string log = PassLog(*MakeQdqToQLinearBinary(), kept);
  EXPECT_NE(log.find("'op' (Add) stays float: a Relu follows"), std::string::npos) << log;
}

TEST(QdqToQLinearBinary, DeclinesAndSaysWhy) {
  int changes = 0;
  // The sum is a graph output too.
  const Model shared = QdqBinary("Add", {2, 3, 4, 5}, false, 128, true);
  ApplyAndCompareQ(*MakeQdqToQLinearBinary(), shared, BinaryFeeds({2, 3, 4, 5}), &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_NE(PassLog(*MakeQdqToQLinearBinary(), shared).find("read elsewhere"), std::string::npos);
  // A fed scale.
  Model fed = QdqBinary("Mul", {2, 3, 4, 5});
  fed.graph->initializers.erase("b_s");
  fed.graph->inputs.push_back(TensorInfo("b_s", DataType::kFloat, {}));
  Feeds feeds = BinaryFeeds({2, 3, 4, 5});
  feeds.push_back({"b_s", Scalar(0.03f)});
  ApplyAndCompareQ(*MakeQdqToQLinearBinary(), fed, feeds, &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_NE(PassLog(*MakeQdqToQLinearBinary(), fed).find("stays float: an operand is no per-tensor"), std::string::npos);
}

// The residual block of a quantized CNN: QLinearConv's output and the
// block's input, both dequantized, added and quantized.
TEST(QdqToQLinearBinary, ResidualAddAfterTheConvolutionFuses) {
  Model m = MakeModel({}, {TensorInfo("xq", U8, {1, 4, 6, 6})}, {TensorInfo("yq", U8, {1, 4, 6, 6})}, 13);
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "xq", "x", 0.02f, U8, 128));
  n.push_back(MakeNode("dqw", "DequantizeLinear", {"wq", "ws", "wz"}, {"w"}));
  m.graph->initializers["wq"] = QBytes(DataType::kInt8, {4, 4, 3, 3}, 3);
  m.graph->initializers["ws"] = Scalar(0.004f);
  m.graph->initializers["wz"] = ZeroPoint(DataType::kInt8, 0);
  n.push_back(WithAttrs(MakeNode("conv", "Conv", {"x", "w"}, {"h"}), {IntsAttr("pads", {1, 1, 1, 1})}));
  n.push_back(QdqNode(m, "QuantizeLinear", "h", "hq", 0.05f, U8, 128));
  n.push_back(QdqNode(m, "DequantizeLinear", "hq", "hd", 0.05f, U8, 128));
  n.push_back(MakeNode("residual", "Add", {"hd", "x"}, {"s"}));
  n.push_back(MakeNode("relu", "Relu", {"s"}, {"r"}));
  n.push_back(QdqNode(m, "QuantizeLinear", "r", "yq", 0.04f, U8, 0));
  const Feeds feeds = {{"xq", QBytes(U8, {1, 4, 6, 6}, 4)}};
  Model opt = Optimized(m, OptimizationLevel::kExtended);
  EXPECT_EQ(OpTypes(*opt.graph), (std::vector<std::string>{"QLinearConv", "QLinearAdd"}));
  // The Add's group alone against the model with its convolution fused.
  Model conv = CopyModel(m);
  ApplyPass(*MakeQdqToQLinear(), conv);
  int changes = 0;
  ApplyAndCompareQ(*MakeQdqToQLinearBinary(), conv, feeds, &changes);
  EXPECT_EQ(changes, 1);
  // --level basic keeps the QDQ graph as written.
  EXPECT_EQ(CountOp(*Optimized(m, OptimizationLevel::kBasic).graph, "Add"), 1);
}

}  // namespace
}  // namespace tessera
