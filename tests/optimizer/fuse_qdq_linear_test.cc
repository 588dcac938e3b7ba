// QdqToQLinear: DequantizeLinear -> Conv [+ Relu/Clip] / MatMul -> QuantizeLinear
// with constant int8 weights becomes QLinearConv / QLinearMatMul. The fused
// model stays within one output step of the QDQ model.
#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

Tensor Bytes(DataType t, Shape s, uint32_t seed) {
  Tensor out(t, std::move(s));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < out.numel(); ++i) static_cast<uint8_t*>(out.raw_data())[i] = static_cast<uint8_t>(gen());
  return out;
}

struct ConvCase {
  bool relu = true;
  uint8_t y_zero = 0;         // 0: Relu folds; else it cannot
  int bias = 1;               // 0 none, 1 float, 2 int32 through DequantizeLinear
  bool constant_w = true;
  bool x_read_elsewhere = false;
  float clip_max = 0;  // > 0: Clip(0, clip_max) in place of Relu
  float y_scale = 0.05f;
};

// x_q [1, 8, 7, 6] uint8 -> DQ -> Conv 3x3 (pads 1, 6 channels, per-channel
// int8 weights) [+ Relu] -> Q (uint8) -> y_q.
Model QdqConv(const ConvCase& c) {
  std::vector<Node> n = {MakeNode("dqx", "DequantizeLinear", {"xq", "xs", "xz"}, {"x"}),
                         MakeNode("dqw", "DequantizeLinear", {"wq", "ws", "wz"}, {"w"})};
  n.back().attributes.push_back(IntAttr("axis", 0));
  std::vector<std::string> conv_in = {"x", "w"};
  if (c.bias == 1) conv_in.push_back("b");
  if (c.bias == 2) {
    n.push_back(MakeNode("dqb", "DequantizeLinear", {"bq", "bs"}, {"b"}));
    n.back().attributes.push_back(IntAttr("axis", 0));
    conv_in.push_back("b");
  }
  Node conv = MakeNode("conv", "Conv", conv_in, {c.relu ? "h" : "y"});
  conv.attributes = {IntsAttr("pads", {1, 1, 1, 1})};
  n.push_back(conv);
  if (c.relu && c.clip_max > 0) n.push_back(MakeNode("clip", "Clip", {"h", "clip_lo", "clip_hi"}, {"y"}));
  else if (c.relu) n.push_back(MakeNode("relu", "Relu", {"h"}, {"y"}));
  n.push_back(MakeNode("q", "QuantizeLinear", {"y", "ys", "yz"}, {"yq"}));
  std::vector<ValueInfo> outs = {TensorInfo("yq", DataType::kUInt8, {1, 6, 7, 6})};
  if (c.x_read_elsewhere) outs.push_back(TensorInfo("x", DataType::kFloat, {1, 8, 7, 6}));
  std::vector<ValueInfo> ins = {TensorInfo("xq", DataType::kUInt8, {1, 8, 7, 6})};
  if (!c.constant_w) ins.push_back(TensorInfo("wq", DataType::kInt8, {6, 8, 3, 3}));
  Model m = MakeModel(n, ins, outs, 13);
  auto& init = m.graph->initializers;
  init["xs"] = Scalar(0.02f);
  init["xz"] = Tensor::FromVector<uint8_t>({128}, {});
  if (c.constant_w) init["wq"] = Bytes(DataType::kInt8, {6, 8, 3, 3}, 3);
  std::vector<float> ws = {0.010f, 0.012f, 0.008f, 0.015f, 0.011f, 0.009f};
  init["ws"] = Tensor::FromVector<float>(ws, {6});
  init["wz"] = Tensor::FromVector<int8_t>({0, 0, 0, 0, 0, 0}, {6});
  if (c.bias == 1) init["b"] = RandomFloats({6}, 4, -0.5f, 0.5f);
  if (c.bias == 2) {
    init["bq"] = Tensor::FromVector<int32_t>({100, -2000, 30, 0, 777, -5}, {6});
    std::vector<float> bs(6);
    for (size_t i = 0; i < 6; ++i) bs[i] = 0.02f * ws[i];
    init["bs"] = Tensor::FromVector<float>(bs, {6});
  }
  init["ys"] = Scalar(c.y_scale);
  if (c.clip_max > 0) {
    init["clip_lo"] = Scalar(0.f);
    init["clip_hi"] = Scalar(c.clip_max);
  }
  init["yz"] = Tensor::FromVector<uint8_t>({c.y_zero}, {});
  return m;
}

Feeds XFeed() { return {{"xq", Bytes(DataType::kUInt8, {1, 8, 7, 6}, 1)}}; }

TEST(QdqToQLinear, ConvWithBiasAndReluBecomesOneQLinearConv) {
  for (int bias : {0, 1, 2}) {
    SCOPED_TRACE("bias form " + std::to_string(bias));
    ConvCase c;
    c.bias = bias;
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(c), XFeed(), &changes, 0, 1);
    EXPECT_EQ(changes, 1);
    EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"QLinearConv"});
    const Node& q = opt.graph->nodes[0];
    ASSERT_EQ(q.inputs.size(), bias ? 9u : 8u);
    EXPECT_EQ(q.inputs[0], "xq");
    EXPECT_EQ(q.inputs[3], "wq");
    if (bias == 2) {
      EXPECT_EQ(q.inputs[8], "bq") << "an int32 bias at xs * ws is taken as it is";
    }
    ASSERT_NE(q.FindAttribute("pads"), nullptr);
  }
}

TEST(QdqToQLinear, ReluStaysUnlessTheZeroPointIsTheLowestValue) {
  ConvCase c;
  c.y_zero = 10;
  int changes = 0;
  ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(c), XFeed(), &changes, 0, 0);
  EXPECT_EQ(changes, 0);
  c.relu = false;
  Model opt = ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(c), XFeed(), &changes, 0, 1);
  EXPECT_EQ(changes, 1) << "without Relu the zero point may be anything";
}

// Relu6 as ORT's quantizer leaves it: Clip(0, 6) before a Q whose range is
// [0, 6] folds (saturation clips the same); a Clip inside the range stays.
TEST(QdqToQLinear, ClipFoldsWhereSaturationDoesItsWork) {
  ConvCase c;
  c.clip_max = 6.f;
  c.y_scale = 6.f / 255.f;
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(c), XFeed(), &changes, 0, 1);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"QLinearConv"});
  c.clip_max = 3.f;
  c.y_scale = 0.05f;  // the quantized range reaches 12.75: the Clip does work
  ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(c), XFeed(), &changes, 0, 0);
  EXPECT_EQ(changes, 0);
}

TEST(QdqToQLinear, NeedsConstantWeightsAndKeepsADequantizeStillRead) {
  ConvCase fed;
  fed.constant_w = false;
  Model m = QdqConv(fed);
  Feeds feeds = XFeed();
  feeds.push_back({"wq", Bytes(DataType::kInt8, {6, 8, 3, 3}, 3)});
  int changes = 0;
  ApplyAndCompare(*MakeQdqToQLinear(), m, feeds, &changes, 0, 0);
  EXPECT_EQ(changes, 0);
  ConvCase shared;
  shared.x_read_elsewhere = true;
  Model opt = ApplyAndCompare(*MakeQdqToQLinear(), QdqConv(shared), XFeed(), &changes, 0, 1);
  EXPECT_EQ(changes, 1);
  EXPECT_NE(FindOp(*opt.graph, "DequantizeLinear"), nullptr) << "x is a graph output too";
}

TEST(QdqToQLinear, MatMulBecomesQLinearMatMul) {
  std::vector<Node> n = {MakeNode("dqa", "DequantizeLinear", {"aq", "as", "az"}, {"a"}),
                         MakeNode("dqb", "DequantizeLinear", {"bq", "bs", "bz"}, {"b"}),
                         MakeNode("mm", "MatMul", {"a", "b"}, {"y"}),
                         MakeNode("q", "QuantizeLinear", {"y", "ys", "yz"}, {"yq"})};
  n[1].attributes.push_back(IntAttr("axis", 1));
  Model m = MakeModel(n, {TensorInfo("aq", DataType::kUInt8, {2, 5, 40})}, {TensorInfo("yq", DataType::kInt8, {2, 5, 12})},
                      13);
  auto& init = m.graph->initializers;
  init["as"] = Scalar(0.03f);
  init["az"] = Tensor::FromVector<uint8_t>({120}, {});
  init["bq"] = Bytes(DataType::kInt8, {40, 12}, 5);
  init["bs"] = RandomFloats({12}, 6, 0.001f, 0.01f);
  init["bz"] = Tensor(DataType::kInt8, {12});
  for (int64_t i = 0; i < 12; ++i) init["bz"].data<int8_t>()[i] = 0;
  init["ys"] = Scalar(0.2f);
  init["yz"] = Tensor::FromVector<int8_t>({-3}, {});
  int changes = 0;
  Model opt = ApplyAndCompare(*MakeQdqToQLinear(), m, {{"aq", Bytes(DataType::kUInt8, {2, 5, 40}, 7)}}, &changes, 0, 1);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"QLinearMatMul"});
}

// In a session at the default level, with the default providers order: the
// QDQ convolution runs as QLinearConv on the CPU EP, within one step.
TEST(QdqToQLinear, ASessionRunsTheFusedConvolution) {
  const Model m = QdqConv(ConvCase{});
  Model all = Optimized(m, OptimizationLevel::kAll);
  EXPECT_NE(FindOp(*all.graph, "QLinearConv"), nullptr);
  EXPECT_EQ(FindOp(*all.graph, "Conv"), nullptr);
  SessionOptions o;
  o.intra_op_num_threads = 2;
  Session s(CopyModel(m), o, MakeProviders({"cpu"}));
  bool fused = false;
  for (const auto& p : s.Placement()) fused |= p.op_type == "QLinearConv" && p.provider == "cpu";
  EXPECT_TRUE(fused);
  const std::vector<Value> want = RunUnoptimized(m, XFeed()), got = s.Run(XFeed());
  ASSERT_EQ(got.size(), 1u);
  CompareResult c = CompareValues(got[0], want[0], 0, 1);
  EXPECT_TRUE(c.match) << c.message;
}

}  // namespace
}  // namespace tessera
