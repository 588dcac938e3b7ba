#include "tessera/ops/shape_inference.h"

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeNode;

std::string TypeOf(const Session& s, const std::string& name) {
  const TypeInfo* t = s.ValueType(name);
  return t ? t->ToString() : "none";
}

TEST(ShapeInference, PropagatesSymbolicBatchThroughTheDefaultModel) {
  SessionOptions opts;
  opts.graph_optimization_level = OptimizationLevel::kDisabled;  // c1 is fused away otherwise
  auto s = Session::FromFile(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx", opts,
                             MakeProviders({"cpu"}));
  EXPECT_EQ(TypeOf(*s, "c1"), "tensor(float)[batch,8,32,32]");
  EXPECT_EQ(TypeOf(*s, "p1"), "tensor(float)[batch,8,16,16]");
  EXPECT_EQ(TypeOf(*s, "g"), "tensor(float)[batch,16,1,1]");
  EXPECT_EQ(TypeOf(*s, "f"), "tensor(float)[?,16]");
  EXPECT_EQ(TypeOf(*s, "logits"), "tensor(float)[?,10]");
  EXPECT_EQ(s->outputs()[0].type.ToString(), "tensor(float)[batch,10]");  // declared type kept
}

// opset 0: 17 for ai.onnx, 1 (their one version) for the other domains.
std::vector<TypeInfo> Infer(const Node& n, std::vector<TypeInfo> inputs, std::vector<const Tensor*> consts = {},
                            int64_t opset = 0) {
  if (opset == 0) opset = n.domain == kOnnxDomain ? 17 : 1;
  consts.resize(inputs.size(), nullptr);
  return InferOutputTypes(InferenceInput{n, opset, std::move(inputs), std::move(consts)});
}

TypeInfo T(std::vector<int64_t> dims, DataType dt = DataType::kFloat) {
  std::vector<Dim> d;
  for (int64_t x : dims) d.push_back(x < 0 ? Dim::Symbol("n") : Dim::Known(x));
  return TypeInfo::Tensor(dt, d);
}

TEST(ShapeInference, BroadcastsAndComparisons) {
  EXPECT_EQ(Infer(MakeNode("a", "Add", {"x", "y"}, {"z"}), {T({-1, 1, 4}), T({3, 1})})[0].ToString(),
            "tensor(float)[n,3,4]");
  EXPECT_EQ(Infer(MakeNode("e", "Equal", {"x", "y"}, {"z"}), {T({2, 3}), T({3})})[0].ToString(),
            "tensor(bool)[2,3]");
  // Incompatible dims leave the shape unknown; the kernel reports the error.
  EXPECT_FALSE(Infer(MakeNode("a", "Add", {"x", "y"}, {"z"}), {T({2, 3}), T({4})})[0].shape.has_value());
}

// com.microsoft's QLinear ops take the types of the ai.onnx ops they quantize.
TEST(ShapeInference, MicrosoftQLinearOps) {
  const DataType u8 = DataType::kUInt8;
  const TypeInfo s = T({}), z = T({}, u8);
  Node add = MakeNode("a", "QLinearAdd", {"a", "as", "az", "b", "bs", "bz", "cs", "cz"}, {"c"});
  add.domain = kMicrosoftDomain;
  EXPECT_EQ(Infer(add, {T({2, 3, 4, 5}, u8), s, z, T({1, 3, 1, 1}, u8), s, z, s, z})[0].ToString(),
            "tensor(uint8)[2,3,4,5]");
  Node cat = MakeNode("c", "QLinearConcat", {"ys", "yz", "x0", "s0", "z0", "x1", "s1", "z1"}, {"y"});
  cat.domain = kMicrosoftDomain;
  cat.attributes = {test::IntAttr("axis", 1)};
  EXPECT_EQ(Infer(cat, {s, z, T({1, 2, 3}, u8), s, z, T({1, 5, 3}, u8), s, z})[0].ToString(), "tensor(uint8)[1,7,3]");
  Node gap = MakeNode("g", "QLinearGlobalAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"});
  gap.domain = kMicrosoftDomain;
  EXPECT_EQ(Infer(gap, {T({2, 8, 7, 7}, u8), s, z, s, z})[0].ToString(), "tensor(uint8)[2,8,1,1]");
  gap.attributes = {test::IntAttr("channels_last", 1)};
  EXPECT_EQ(Infer(gap, {T({2, 7, 7, 8}, u8), s, z, s, z})[0].ToString(), "tensor(uint8)[2,1,1,8]");
  Node pool = MakeNode("p", "QLinearAveragePool", {"x", "xs", "xz", "ys", "yz"}, {"y"});
  pool.domain = kMicrosoftDomain;
  pool.attributes = {test::IntsAttr("kernel_shape", {2, 2}), test::IntsAttr("strides", {2, 2})};
  EXPECT_EQ(Infer(pool, {T({1, 3, 8, 8}, u8), s, z, s, z})[0].ToString(), "tensor(uint8)[1,3,4,4]");
}

// FusedMatMul's transBatch moves axis 0 to the row position before trans.
TEST(ShapeInference, MicrosoftFusedMatMulTransBatch) {
  Node mm = MakeNode("m", "FusedMatMul", {"a", "b"}, {"y"});
  mm.domain = kMicrosoftDomain;
  mm.attributes = {test::IntAttr("transBatchA", 1), test::IntAttr("transA", 1)};
  EXPECT_EQ(Infer(mm, {T({2, 3, 4, 5}), T({3, 4, 2, 6})})[0].ToString(), "tensor(float)[3,4,5,6]");
  mm.attributes = {test::IntAttr("transBatchB", 1)};
  EXPECT_EQ(Infer(mm, {T({3, 4, 5, 6}), T({6, 3, 4, 7})})[0].ToString(), "tensor(float)[3,4,5,7]");
  EXPECT_EQ(Infer(mm, {T({5, 6}), T({6, 7})})[0].ToString(), "unknown") << "rank 2: the kernel's error";
}

TEST(ShapeInference, RecurrencesGiveSequenceAndStateShapes) {
  Node lstm = MakeNode("l", "LSTM", {"x", "w", "r"}, {"y", "y_h", "y_c"});
  lstm.attributes = {test::IntAttr("hidden_size", 5)};
  auto out = Infer(lstm, {T({7, 3, 4}), T({1, 20, 4}), T({1, 20, 5})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].ToString(), "tensor(float)[7,1,3,5]");
  EXPECT_EQ(out[1].ToString(), "tensor(float)[1,3,5]");
  EXPECT_EQ(out[2].ToString(), "tensor(float)[1,3,5]");
  // Bidirectional GRU, batch first, hidden from R, symbolic batch.
  Node gru = MakeNode("g", "GRU", {"x", "w", "r"}, {"y", "y_h"});
  gru.attributes = {test::StringAttr("direction", "bidirectional"), test::IntAttr("layout", 1)};
  auto g = Infer(gru, {T({-1, 6, 4}), T({2, 18, 4}), T({2, 18, 6})}, {}, 22);
  EXPECT_EQ(g[0].ToString(), "tensor(float)[n,6,2,6]");
  EXPECT_EQ(g[1].ToString(), "tensor(float)[n,2,6]");
  // An input of the wrong rank leaves the shapes unknown (the kernel says why).
  EXPECT_FALSE(Infer(MakeNode("r", "RNN", {"x", "w", "r"}, {"y"}), {T({7, 4}), T({1, 3, 4}), T({1, 3, 3})})[0]
                   .shape.has_value());
}

TEST(ShapeInference, MatMulAndGemm) {
  EXPECT_EQ(Infer(MakeNode("m", "MatMul", {"a", "b"}, {"c"}), {T({5, 2, 3, 4}), T({4, 7})})[0].ToString(),
            "tensor(float)[5,2,3,7]");
  EXPECT_EQ(Infer(MakeNode("m", "MatMul", {"a", "b"}, {"c"}), {T({4}), T({2, 4, 7})})[0].ToString(),
            "tensor(float)[2,7]");
  Node gemm = MakeNode("g", "Gemm", {"a", "b"}, {"c"});
  Attribute trans_b;
  trans_b.name = "transB";
  trans_b.type = AttributeType::kInt;
  trans_b.i = 1;
  gemm.attributes.push_back(trans_b);
  EXPECT_EQ(Infer(gemm, {T({8, 16}), T({10, 16})})[0].ToString(), "tensor(float)[8,10]");
}

TEST(ShapeInference, ReshapeUsesConstantShapes) {
  Tensor shape = Tensor::FromVector<int64_t>({0, -1}, {2});
  EXPECT_EQ(Infer(MakeNode("r", "Reshape", {"x", "s"}, {"y"}), {T({2, 3, 4}), T({2}, DataType::kInt64)},
                  {nullptr, &shape})[0]
                .ToString(),
            "tensor(float)[2,12]");
}

TEST(ShapeInference, SliceAndReduceWithConstantInputs) {
  Tensor starts = Tensor::FromVector<int64_t>({1}, {1}), ends = Tensor::FromVector<int64_t>({-1}, {1});
  Tensor axes = Tensor::FromVector<int64_t>({1}, {1});
  EXPECT_EQ(Infer(MakeNode("s", "Slice", {"x", "b", "e", "a"}, {"y"}),
                  {T({4, 10}), T({1}, DataType::kInt64), T({1}, DataType::kInt64), T({1}, DataType::kInt64)},
                  {nullptr, &starts, &ends, &axes})[0]
                .ToString(),
            "tensor(float)[4,8]");
  EXPECT_EQ(Infer(MakeNode("r", "ReduceSum", {"x", "a"}, {"y"}), {T({4, 10}), T({1}, DataType::kInt64)},
                  {nullptr, &axes})[0]
                .ToString(),
            "tensor(float)[4,1]");
}

TEST(ShapeInference, DataDependentShapesStayDynamic) {
  auto out = Infer(MakeNode("nz", "NonZero", {"x"}, {"y"}), {T({3, 4})});
  EXPECT_EQ(out[0].ToString(), "tensor(int64)[2,?]");
}

}  // namespace
}  // namespace tessera
