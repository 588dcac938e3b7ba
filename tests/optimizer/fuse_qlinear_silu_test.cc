// QLinearSiluFusion: QLinearMul(x, QLinearSigmoid(x)) becomes one
// ai.tessera:QLinearSilu table whose bytes are the pair's, bit for bit, on
// every 8-bit input; the Mul stays where it reads other parameters or the
// Sigmoid's output is read elsewhere.
#include <gtest/gtest.h>

#include "optimizer/qdq_test_util.h"

namespace tessera {
namespace {

using namespace test;

// SiLU as a QDQ exporter writes it: x dequantized once, read by the
// Sigmoid's group and by the Mul (as A, or as B when `swap`), the Sigmoid
// requantized and dequantized before the Mul. With `extra_reader` the
// Sigmoid's quantized output is a model output too.
Model QdqSilu(DataType t, bool swap, bool extra_reader) {
  std::vector<ValueInfo> outs = {TensorInfo("yq", t, {2, 300})};
  if (extra_reader) outs.push_back(TensorInfo("sq", t, {2, 300}));
  Model m = MakeModel({}, {TensorInfo("xq", t, {2, 300})}, outs, 13);
  const bool s8 = t == DataType::kInt8;
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "xq", "x", 0.045f, t, s8 ? -20 : 110));
  n.push_back(MakeNode("sig", "Sigmoid", {"x"}, {"s"}));
  n.push_back(QdqNode(m, "QuantizeLinear", "s", "sq", 1.0f / 256, t, s8 ? -128 : 0));
  m.graph->initializers["sd_s"] = m.graph->initializers["sq_s"];
  m.graph->initializers["sd_z"] = m.graph->initializers["sq_z"];
  n.push_back(MakeNode("sq_dq", "DequantizeLinear", {"sq", "sq_s", "sq_z"}, {"sd"}));
  n.push_back(MakeNode("mul", "Mul", swap ? std::vector<std::string>{"sd", "x"} : std::vector<std::string>{"x", "sd"}, {"y"}));
  n.push_back(QdqNode(m, "QuantizeLinear", "y", "yq", 0.03f, t, s8 ? -60 : 9));
  return m;
}

// The QDQ passes that make the QLinear pair, then SiLU fusion: the fused
// model's outputs equal the pair's exactly.
int FuseAndCompare(const Model& m, DataType t, Model* fused) {
  Model pair = CopyModel(m);
  ApplyPass(*MakeQdqToQLinearBinary(), pair);
  ApplyPass(*MakeQdqToQLinearLookup(), pair);
  for (const char* domain : {kTesseraDomain, kMicrosoftDomain})
    if (pair.OpsetFor(domain) < 0) pair.opset_imports.push_back({domain, 1});
  *fused = CopyModel(pair);
  const int changes = ApplyPass(*MakeQLinearSiluFusion(), *fused);
  // Every byte value, twice over, and then some.
  Tensor x(t, {2, 300});
  for (int64_t i = 0; i < x.numel(); ++i) static_cast<uint8_t*>(x.raw_data())[i] = static_cast<uint8_t>(i * 7);
  const Feeds feeds = {{"xq", x}};
  const std::vector<Value> want = RunUnoptimized(pair, feeds), got = RunUnoptimized(*fused, feeds);
  EXPECT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    const Tensor& w = want[i].tensor();
    const Tensor& g = got[i].tensor();
    EXPECT_EQ(g.shape(), w.shape());
    for (int64_t e = 0; e < g.numel() && e < w.numel(); ++e)
      EXPECT_EQ(g.GetAsInt64(e), w.GetAsInt64(e)) << "output " << i << " element " << e;
  }
  return changes;
}

int CountOp(const Model& m, const char* op) {
  int count = 0;
  for (const Node& n : m.graph->nodes) count += n.op_type == op;
  return count;
}

TEST(QLinearSiluFusion, TheSigmoidAndMulPairBecomesOneExactTable) {
  for (DataType t : {DataType::kUInt8, DataType::kInt8})
    for (bool swap : {false, true}) {
      SCOPED_TRACE(std::string(DataTypeName(t)) + (swap ? ", Sigmoid as A" : ", Sigmoid as B"));
      Model fused;
      EXPECT_EQ(FuseAndCompare(QdqSilu(t, swap, false), t, &fused), 1);
      ASSERT_EQ(fused.graph->nodes.size(), 1u);
      EXPECT_EQ(fused.graph->nodes[0].op_type, "QLinearSilu");
      EXPECT_EQ(fused.graph->nodes[0].domain, kTesseraDomain);
    }
}

TEST(QLinearSiluFusion, ASigmoidReadElsewhereStaysAPair) {
  Model fused;
  EXPECT_EQ(FuseAndCompare(QdqSilu(DataType::kUInt8, false, true), DataType::kUInt8, &fused), 0);
  EXPECT_EQ(CountOp(fused, "QLinearSigmoid"), 1);
  EXPECT_EQ(CountOp(fused, "QLinearMul"), 1);
}

TEST(QLinearSiluFusion, AMulAtOtherParametersStaysAPair) {
  Model m = QdqSilu(DataType::kUInt8, false, false);
  // The Mul reads the Sigmoid's bytes at a scale of their own.
  m.graph->initializers["sd_s"] = Scalar(1.0f / 200);
  for (Node& n : m.graph->nodes)
    if (n.name == "sq_dq") n.inputs = {"sq", "sd_s", "sd_z"};
  Model fused;
  EXPECT_EQ(FuseAndCompare(m, DataType::kUInt8, &fused), 0);
  EXPECT_EQ(CountOp(fused, "QLinearMul"), 1);
  Model pair = CopyModel(m);
  ApplyPass(*MakeQdqToQLinearBinary(), pair);
  ApplyPass(*MakeQdqToQLinearLookup(), pair);
  EXPECT_NE(PassLog(*MakeQLinearSiluFusion(), pair).find("reads x or the Sigmoid at other parameters"), std::string::npos);
}

}  // namespace
}  // namespace tessera
