#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// q(uint8) -> DequantizeLinear(s, z) -> QuantizeLinear(s2, z2) -> y
Model QdqPair(Tensor s2, Tensor z2, bool dq_output_used = false) {
  std::vector<Node> n = {MakeNode("dq", "DequantizeLinear", {"q", "s", "z"}, {"f"}),
                         MakeNode("ql", "QuantizeLinear", {"f", "s2", "z2"}, {"y"})};
  std::vector<ValueInfo> outs = {TensorInfo("y", DataType::kUInt8, {})};
  if (dq_output_used) outs.push_back(TensorInfo("f", DataType::kFloat, {}));
  Model m = MakeModel(n, {TensorInfo("q", DataType::kUInt8, {6})}, outs, 13);
  m.graph->initializers["s"] = Scalar(0.05f);
  m.graph->initializers["z"] = Tensor::FromVector<uint8_t>({7}, {});
  m.graph->initializers["s2"] = std::move(s2);
  m.graph->initializers["z2"] = std::move(z2);
  return m;
}

Feeds Input() { return {{"q", Tensor::FromVector<uint8_t>({0, 1, 7, 100, 254, 255}, {6})}}; }

TEST(QdqPairRemoval, RemovesIdenticalPairs) {
  // y is read by a Cast: after the removal the Cast reads q.
  Model m = QdqPair(Scalar(0.05f), Tensor::FromVector<uint8_t>({7}, {}));
  m.graph->nodes.push_back(MakeNode("c", "Cast", {"y"}, {"out"}));
  m.graph->nodes.back().attributes.push_back(IntAttr("to", static_cast<int64_t>(DataType::kInt32)));
  m.graph->outputs = {TensorInfo("out", DataType::kInt32, {})};
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeQdqPairRemoval(), m, Input(), &changes, 0, 0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Cast"});
  EXPECT_EQ(opt.graph->nodes[0].inputs[0], "q");
}

TEST(QdqPairRemoval, KeepsTheDequantizeWhenItsOutputIsUsed) {
  Model m = QdqPair(Scalar(0.05f), Tensor::FromVector<uint8_t>({7}, {}), true);
  m.graph->nodes.push_back(WithAttrs(MakeNode("c", "Cast", {"y"}, {"out"}), {IntAttr("to", 6)}));
  m.graph->outputs[0] = TensorInfo("out", DataType::kInt32, {});
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeQdqPairRemoval(), m, Input(), &changes, 0, 0);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(CountOp(*opt.graph, "DequantizeLinear"), 1);
  EXPECT_EQ(CountOp(*opt.graph, "QuantizeLinear"), 0);
}

TEST(QdqPairRemoval, LeavesPairsThatChangeValues) {
  for (auto [s2, z2] : std::vector<std::pair<Tensor, Tensor>>{
           {Scalar(0.1f), Tensor::FromVector<uint8_t>({7}, {})},   // other scale
           {Scalar(0.05f), Tensor::FromVector<uint8_t>({8}, {})},  // other zero point
           {Scalar(0.05f), Tensor::FromVector<int8_t>({7}, {})}}) {  // other type
    Model m = QdqPair(s2, z2);
    m.graph->nodes.push_back(WithAttrs(MakeNode("c", "Cast", {"y"}, {"out"}), {IntAttr("to", 6)}));
    m.graph->outputs = {TensorInfo("out", DataType::kInt32, {})};
    EXPECT_EQ(ApplyPass(*MakeQdqPairRemoval(), m), 0);
  }
  // A non-constant scale.
  Model m = QdqPair(Scalar(0.05f), Tensor::FromVector<uint8_t>({7}, {}));
  m.graph->inputs.push_back(TensorInfo("s2", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeQdqPairRemoval(), m), 0);
  // Graph output fed by a graph input: no node can produce y.
  Model direct = QdqPair(Scalar(0.05f), Tensor::FromVector<uint8_t>({7}, {}));
  EXPECT_EQ(ApplyPass(*MakeQdqPairRemoval(), direct), 0);
}

}  // namespace
}  // namespace tessera
