// The QDQ and dynamic writers on small models built in memory: the graph
// they write, that it runs close to the float model, and their errors.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "support/model_builder.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/quantization/quantizer.h"

namespace tessera::quant {
namespace {

using test::IntAttr;
using test::IntsAttr;
using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

Tensor Random(Shape shape, float stddev, uint32_t seed) {
  Tensor t(DataType::kFloat, shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, stddev);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(gen);
  return t;
}

// x -> Conv(+bias) -> Relu -> MaxPool -> Reshape -> MatMul -> y
Model SmallCnn() {
  Node conv = MakeNode("conv", "Conv", {"x", "w", "b"}, {"c"});
  conv.attributes.push_back(IntsAttr("pads", {1, 1, 1, 1}));
  Node pool = MakeNode("pool", "MaxPool", {"r"}, {"p"});
  pool.attributes.push_back(IntsAttr("kernel_shape", {2, 2}));
  pool.attributes.push_back(IntsAttr("strides", {2, 2}));
  Model m = MakeModel({conv, MakeNode("relu", "Relu", {"c"}, {"r"}), pool,
                       MakeNode("reshape", "Reshape", {"p", "shape"}, {"flat"}),
                       MakeNode("fc", "MatMul", {"flat", "wf"}, {"y"}), MakeNode("soft", "Softmax", {"y"}, {"z"})},
                      {TensorInfo("x", DataType::kFloat, {1, 2, 4, 4})}, {TensorInfo("z", DataType::kFloat, {1, 5})});
  m.graph->initializers["w"] = Random({4, 2, 3, 3}, 0.5f, 1);
  m.graph->initializers["b"] = Random({4}, 0.1f, 2);
  m.graph->initializers["shape"] = Tensor::FromVector<int64_t>({1, 16}, {2});
  m.graph->initializers["wf"] = Random({16, 5}, 0.3f, 3);
  return m;
}

FeedSource RandomBatches(int count, Shape shape) {
  auto left = std::make_shared<int>(count);
  return [left, shape](Feeds& feeds) {
    if ((*left)-- <= 0) return false;
    feeds.emplace_back("x", Value(Random(shape, 1.0f, static_cast<uint32_t>(100 + *left))));
    return true;
  };
}

std::map<std::string, int> OpCounts(const Model& m) {
  std::map<std::string, int> c;
  for (const auto& n : m.graph->nodes) ++c[n.op_type];
  return c;
}

const Node& Producer(const Model& m, const std::string& value) {
  for (const auto& n : m.graph->nodes)
    for (const auto& o : n.outputs)
      if (o == value) return n;
  throw std::runtime_error("no producer of " + value);
}

std::vector<float> RunModel(const Model& m, const Tensor& x) {
  Session s(m, SessionOptions{}, {MakeCpuExecutionProvider()});
  Value y = s.Run({{"x", Value(x)}})[0];
  const Tensor& t = y.tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return ab / std::sqrt(aa * bb);
}

TEST(QdqWriter, WritesTheGroupsTheOptimizerFuses) {
  Model m = SmallCnn();
  const Model original = m;
  QuantizeOptions o;
  o.per_channel = true;
  o.activation_type = QuantType::kQUInt8;
  QuantizeReport r = QuantizeModel(m, o, RandomBatches(3, {1, 2, 4, 4}));
  EXPECT_EQ(r.calibration_batches, 3);
  EXPECT_EQ(r.quantized["Conv"], 1);
  EXPECT_EQ(r.quantized["MatMul"], 1);
  EXPECT_EQ(r.quantized["MaxPool"], 1);
  ASSERT_EQ(r.left_float.size(), 1u);
  EXPECT_EQ(r.left_float[0].op_type, "Softmax");

  // Conv reads DQ(x), DQ(int8 w, axis 0) and DQ(int32 b) at xs * ws.
  const Node* conv = nullptr;
  for (const auto& n : m.graph->nodes)
    if (n.op_type == "Conv") conv = &n;
  ASSERT_NE(conv, nullptr);
  const Node& dx = Producer(m, conv->inputs[0]);
  const Node& dw = Producer(m, conv->inputs[1]);
  const Node& db = Producer(m, conv->inputs[2]);
  ASSERT_EQ(dx.op_type, "DequantizeLinear");
  ASSERT_EQ(dw.op_type, "DequantizeLinear");
  ASSERT_EQ(db.op_type, "DequantizeLinear");
  EXPECT_EQ(m.graph->initializers.at(dw.inputs[0]).dtype(), DataType::kInt8);
  EXPECT_EQ(m.graph->initializers.at(dw.inputs[1]).shape(), Shape({4}));
  EXPECT_EQ(dw.FindAttribute("axis")->i, 0);
  const Tensor& bias = m.graph->initializers.at(db.inputs[0]);
  EXPECT_EQ(bias.dtype(), DataType::kInt32);
  const float xs = m.graph->initializers.at(dx.inputs[1]).data<float>()[0];
  const Tensor& ws = m.graph->initializers.at(dw.inputs[1]);
  EXPECT_FLOAT_EQ(m.graph->initializers.at(db.inputs[1]).data<float>()[2], xs * ws.data<float>()[2]);
  // The Conv's output goes straight to the Relu; the pair sits after it.
  EXPECT_EQ(Producer(m, "c").op_type, "Conv");
  for (const auto& n : m.graph->nodes)
    if (n.op_type == "Relu") {
      EXPECT_EQ(n.inputs[0], "c");
    }
  // MaxPool's output pair reuses its input's parameters.
  const Node* pool = nullptr;
  for (const auto& n : m.graph->nodes)
    if (n.op_type == "MaxPool") pool = &n;
  const Node& pool_in = Producer(m, pool->inputs[0]);
  ASSERT_EQ(pool_in.op_type, "DequantizeLinear");
  EXPECT_EQ(Producer(m, pool_in.inputs[0]).inputs[0], "r");
  // The float weights are gone; the model still runs close to the float one.
  EXPECT_EQ(m.graph->initializers.count("w"), 0u);
  EXPECT_EQ(m.graph->initializers.count("wf"), 0u);
  Tensor x = Random({1, 2, 4, 4}, 1.0f, 9);
  EXPECT_GT(Cosine(RunModel(original, x), RunModel(m, x)), 0.99);
}

TEST(QdqWriter, ExcludedNodesAndOpTypesStayFloat) {
  Model m = SmallCnn();
  QuantizeOptions o;
  o.nodes_to_exclude = {"fc"};
  o.op_types_to_exclude = {"MaxPool"};
  QuantizeReport r = QuantizeModel(m, o, RandomBatches(1, {1, 2, 4, 4}));
  EXPECT_EQ(r.quantized.count("MatMul"), 0u);
  EXPECT_EQ(r.quantized.count("MaxPool"), 0u);
  EXPECT_EQ(m.graph->initializers.count("wf"), 1u);
  EXPECT_EQ(OpCounts(m)["DequantizeLinear"] > 0, true);
}

TEST(QdqWriter, Errors) {
  Model m = SmallCnn();
  QuantizeOptions o;
  try {
    QuantizeModel(m, o, nullptr);
    FAIL() << "no calibration data accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs calibration data"), std::string::npos) << e.what();
  }
  o.op_types_to_quantize = {"Softmax"};
  EXPECT_THROW(QuantizeModel(m, o, RandomBatches(1, {1, 2, 4, 4})), Error);
  o.op_types_to_quantize = {};
  o.weight_type = QuantType::kQInt4;
  EXPECT_THROW(QuantizeModel(m, o, RandomBatches(1, {1, 2, 4, 4})), Error);
  o.weight_type = QuantType::kQInt8;
  // A feed that names no input.
  auto wrong = [](Feeds& f) {
    f.emplace_back("image", Value(Random({1, 2, 4, 4}, 1.0f, 1)));
    return true;
  };
  try {
    QuantizeModel(m, o, wrong);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("calibration input 'image' is not an input"), std::string::npos);
  }
  // per-channel needs opset 13.
  Model old = SmallCnn();
  old.opset_imports[0].version = 12;
  o.per_channel = true;
  EXPECT_THROW(QuantizeModel(old, o, RandomBatches(1, {1, 2, 4, 4})), Error);
  // The model is left as it was after an error.
  EXPECT_EQ(OpCounts(old)["QuantizeLinear"], 0);
}

TEST(DynamicWriter, MatMulBecomesMatMulInteger) {
  Node gemm = MakeNode("gemm", "Gemm", {"h", "wg", "bg"}, {"y"});
  gemm.attributes.push_back(IntAttr("transB", 1));
  Model m = MakeModel({MakeNode("mm", "MatMul", {"x", "w"}, {"h"}), gemm},
                      {TensorInfo("x", DataType::kFloat, {3, 8})}, {TensorInfo("y", DataType::kFloat, {3, 4})});
  m.graph->initializers["w"] = Random({8, 6}, 0.3f, 1);
  m.graph->initializers["wg"] = Random({4, 6}, 0.3f, 2);
  m.graph->initializers["bg"] = Random({4}, 0.1f, 3);
  const Model original = m;
  QuantizeOptions o;
  o.mode = QuantMode::kDynamic;
  o.format = QuantFormat::kQOperator;
  o.per_channel = true;
  QuantizeReport r = QuantizeModel(m, o);
  EXPECT_EQ(r.quantized["MatMul"], 1);
  EXPECT_EQ(r.quantized["Gemm"], 1);
  auto c = OpCounts(m);
  EXPECT_EQ(c["DynamicQuantizeLinear"], 2);
  EXPECT_EQ(c["MatMulInteger"], 2);
  EXPECT_EQ(c["Cast"], 2);
  EXPECT_EQ(c["Mul"], 4);
  EXPECT_EQ(c["Add"], 1);
  EXPECT_EQ(c.count("MatMul") + c.count("Gemm"), 0u);
  // Gemm's transposed B is stored as [K, N] with one scale per column.
  const Node& mmi = Producer(m, Producer(m, Producer(m, Producer(m, "y").inputs[0]).inputs[0]).inputs[0]);
  ASSERT_EQ(mmi.op_type, "MatMulInteger");
  EXPECT_EQ(m.graph->initializers.at(mmi.inputs[1]).shape(), Shape({6, 4}));
  EXPECT_EQ(m.graph->initializers.at(mmi.inputs[3]).shape(), Shape({4}));
  Tensor x = Random({3, 8}, 1.0f, 5);
  EXPECT_GT(Cosine(RunModel(original, x), RunModel(m, x)), 0.999);
}

TEST(DynamicWriter, NonConstantBStaysFloat) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"x", "x2"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2, 2}), TensorInfo("x2", DataType::kFloat, {2, 2})},
                      {TensorInfo("y", DataType::kFloat, {2, 2})});
  QuantizeOptions o;
  o.mode = QuantMode::kDynamic;
  QuantizeReport r = QuantizeModel(m, o);
  EXPECT_TRUE(r.quantized.empty());
  ASSERT_EQ(r.left_float.size(), 1u);
  EXPECT_EQ(r.left_float[0].reason, "its B is not a constant float initializer");
}

}  // namespace
}  // namespace tessera::quant
