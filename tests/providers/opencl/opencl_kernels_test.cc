// The OpenCL kernel families against the CPU EP on cases the ONNX node tests
// do not cover: broadcast batch dims, grouped/strided/dilated and big convs,
// empty tensors, negative axes, bad indices. Each case also checks that
// every node really ran on OpenCL (a declined node would pass trivially).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/providers/opencl/opencl_execution_provider.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;
using test::FloatAttr;
using test::IntAttr;
using test::IntsAttr;

Node With(Node n, std::vector<Attribute> attrs) {
  for (auto& a : attrs) n.attributes.push_back(std::move(a));
  return n;
}

// Deterministic values in [-1, 1).
Tensor Random(Shape shape, uint32_t seed) {
  Tensor t(DataType::kFloat, std::move(shape));
  uint32_t s = seed * 2654435761u + 12345u;
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

class OpenClKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!OpenClExecutionProvider::Create(&why)) GTEST_SKIP() << "OpenCL unavailable: " << why;
  }

  // Runs `model` on {opencl, cpu} and on {cpu}; outputs must agree and every
  // node must have been placed on OpenCL.
  static void ExpectMatchesCpu(const Model& model, const Feeds& feeds, double rtol = 1e-4, double atol = 1e-5) {
    SessionOptions opts;
    opts.graph_optimization_level = OptimizationLevel::kDisabled;
    Session ocl(model, opts, MakeProviders({"opencl", "cpu"}));
    Session cpu(model, opts, MakeProviders({"cpu"}));
    for (const auto& p : ocl.Placement()) {
      std::string why;
      for (const auto& d : p.declined) why += d + "; ";
      EXPECT_EQ(p.provider, "opencl") << p.node << " (" << p.op_type << ") declined: " << why;
    }
    std::vector<Value> got = ocl.Run(feeds);
    std::vector<Value> want = cpu.Run(feeds);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CompareResult r = CompareValues(got[i], want[i], rtol, atol);
      EXPECT_TRUE(r.match) << "output " << i << ": " << r.message;
    }
  }
};

TEST_F(OpenClKernels, MatMulBroadcastsBatchDims) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"a", "b"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {2, 1, 3, 37, 45}), TensorInfo("b", DataType::kFloat, {3, 45, 33})},
                      {TensorInfo("y", DataType::kFloat, {2, 3, 3, 37, 33})});
  ExpectMatchesCpu(m, {{"a", Random({2, 1, 3, 37, 45}, 1)}, {"b", Random({3, 45, 33}, 2)}});
}

TEST_F(OpenClKernels, MatMulVectorTimesBatchedMatrix) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"a", "b"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {70}), TensorInfo("b", DataType::kFloat, {2, 70, 3})},
                      {TensorInfo("y", DataType::kFloat, {2, 3})});
  ExpectMatchesCpu(m, {{"a", Random({70}, 3)}, {"b", Random({2, 70, 3}, 4)}});
}

TEST_F(OpenClKernels, MatMulWithEmptyDims) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"a", "b"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {0, 4}), TensorInfo("b", DataType::kFloat, {4, 3})},
                      {TensorInfo("y", DataType::kFloat, {0, 3})});
  ExpectMatchesCpu(m, {{"a", Random({0, 4}, 5)}, {"b", Random({4, 3}, 6)}});
  // K = 0: every output is 0.
  Model k0 = MakeModel({MakeNode("mm", "MatMul", {"a", "b"}, {"y"})},
                       {TensorInfo("a", DataType::kFloat, {3, 0}), TensorInfo("b", DataType::kFloat, {0, 5})},
                       {TensorInfo("y", DataType::kFloat, {3, 5})});
  ExpectMatchesCpu(k0, {{"a", Random({3, 0}, 5)}, {"b", Random({0, 5}, 6)}});
}

TEST_F(OpenClKernels, GemmTransposedWithRowBias) {
  Model m = MakeModel({With(MakeNode("gemm", "Gemm", {"a", "b", "c"}, {"y"}),
                            {IntAttr("transA", 1), IntAttr("transB", 1), FloatAttr("alpha", 0.5f), FloatAttr("beta", 2.0f)})},
                      {TensorInfo("a", DataType::kFloat, {40, 35}), TensorInfo("b", DataType::kFloat, {50, 40}),
                       TensorInfo("c", DataType::kFloat, {50})},
                      {TensorInfo("y", DataType::kFloat, {35, 50})}, 13);
  ExpectMatchesCpu(m, {{"a", Random({40, 35}, 7)}, {"b", Random({50, 40}, 8)}, {"c", Random({50}, 9)}});
}

TEST_F(OpenClKernels, GemmColumnBias) {
  Model m = MakeModel({MakeNode("gemm", "Gemm", {"a", "b", "c"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {5, 7}), TensorInfo("b", DataType::kFloat, {7, 4}),
                       TensorInfo("c", DataType::kFloat, {5, 1})},
                      {TensorInfo("y", DataType::kFloat, {5, 4})}, 13);
  ExpectMatchesCpu(m, {{"a", Random({5, 7}, 10)}, {"b", Random({7, 4}, 11)}, {"c", Random({5, 1}, 12)}});
}

// The local-memory tiled GEMM (chosen on GPUs) forced on this device: the
// same models must still match the CPU.
struct ForceTiledGemm {
  ForceTiledGemm() { setenv("TESSERA_OPENCL_GEMM", "tiled", 1); }
  ~ForceTiledGemm() { unsetenv("TESSERA_OPENCL_GEMM"); }
};

TEST_F(OpenClKernels, TiledGemmPathMatchesCpu) {
  ForceTiledGemm forced;
  Model mm = MakeModel({MakeNode("mm", "MatMul", {"a", "b"}, {"y"})},
                       {TensorInfo("a", DataType::kFloat, {2, 1, 37, 45}), TensorInfo("b", DataType::kFloat, {3, 45, 70})},
                       {TensorInfo("y", DataType::kFloat, {2, 3, 37, 70})});
  ExpectMatchesCpu(mm, {{"a", Random({2, 1, 37, 45}, 50)}, {"b", Random({3, 45, 70}, 51)}});
  Model gemm = MakeModel({With(MakeNode("gemm", "Gemm", {"a", "b", "c"}, {"y"}), {IntAttr("transB", 1)})},
                         {TensorInfo("a", DataType::kFloat, {33, 40}), TensorInfo("b", DataType::kFloat, {20, 40}),
                          TensorInfo("c", DataType::kFloat, {33, 20})},
                         {TensorInfo("y", DataType::kFloat, {33, 20})}, 13);
  ExpectMatchesCpu(gemm, {{"a", Random({33, 40}, 52)}, {"b", Random({20, 40}, 53)}, {"c", Random({33, 20}, 54)}});
}

Model ConvModel(Shape x, Shape w, std::vector<Attribute> attrs, bool bias, int64_t opset = 17) {
  std::vector<std::string> in = {"x", "w"};
  std::vector<ValueInfo> infos = {TensorInfo("x", DataType::kFloat, x), TensorInfo("w", DataType::kFloat, w)};
  if (bias) {
    in.push_back("b");
    infos.push_back(TensorInfo("b", DataType::kFloat, {w[0]}));
  }
  return MakeModel({With(MakeNode("conv", "Conv", in, {"y"}), std::move(attrs))}, infos,
                   {TensorInfo("y", DataType::kFloat, {-1, -1, -1, -1})}, opset);
}

TEST_F(OpenClKernels, ConvGroupedStridedDilatedAsymmetricPads) {
  Model m = ConvModel({2, 6, 11, 9}, {9, 2, 3, 3},
                      {IntAttr("group", 3), IntsAttr("strides", {2, 1}), IntsAttr("dilations", {1, 2}),
                       IntsAttr("pads", {1, 0, 2, 1})},
                      true);
  ExpectMatchesCpu(m, {{"x", Random({2, 6, 11, 9}, 13)}, {"w", Random({9, 2, 3, 3}, 14)}, {"b", Random({9}, 15)}});
}

TEST_F(OpenClKernels, ConvDepthwiseSameLower) {
  Model m = ConvModel({1, 8, 10, 7}, {8, 1, 4, 3},
                      {IntAttr("group", 8), IntsAttr("strides", {2, 2}), test::StrAttr("auto_pad", "SAME_LOWER")}, false);
  ExpectMatchesCpu(m, {{"x", Random({1, 8, 10, 7}, 16)}, {"w", Random({8, 1, 4, 3}, 17)}});
}

TEST_F(OpenClKernels, ConvPointwiseGroupedBatch) {
  // 1x1, stride 1, no pads: the GEMM reads X directly.
  Model m = ConvModel({3, 4, 5, 6}, {6, 2, 1, 1}, {IntAttr("group", 2)}, true);
  ExpectMatchesCpu(m, {{"x", Random({3, 4, 5, 6}, 18)}, {"w", Random({6, 2, 1, 1}, 19)}, {"b", Random({6}, 20)}});
}

TEST_F(OpenClKernels, Conv1dAnd3d) {
  Model c1 = MakeModel({With(MakeNode("conv", "Conv", {"x", "w"}, {"y"}), {IntsAttr("pads", {2, 1}), IntsAttr("strides", {3})})},
                       {TensorInfo("x", DataType::kFloat, {2, 3, 20}), TensorInfo("w", DataType::kFloat, {4, 3, 5})},
                       {TensorInfo("y", DataType::kFloat, {-1, -1, -1})});
  ExpectMatchesCpu(c1, {{"x", Random({2, 3, 20}, 21)}, {"w", Random({4, 3, 5}, 22)}});
  Model c3 = MakeModel({With(MakeNode("conv", "Conv", {"x", "w"}, {"y"}), {IntsAttr("pads", {1, 0, 1, 1, 0, 1})})},
                       {TensorInfo("x", DataType::kFloat, {1, 2, 5, 6, 7}), TensorInfo("w", DataType::kFloat, {3, 2, 3, 2, 3})},
                       {TensorInfo("y", DataType::kFloat, {-1, -1, -1, -1, -1})});
  ExpectMatchesCpu(c3, {{"x", Random({1, 2, 5, 6, 7}, 23)}, {"w", Random({3, 2, 3, 2, 3}, 24)}});
}

TEST_F(OpenClKernels, ConvBig) {
  Model m = ConvModel({1, 32, 56, 56}, {64, 32, 3, 3}, {IntsAttr("pads", {1, 1, 1, 1})}, true);
  ExpectMatchesCpu(m, {{"x", Random({1, 32, 56, 56}, 25)}, {"w", Random({64, 32, 3, 3}, 26)}, {"b", Random({64}, 27)}},
                   1e-3, 1e-4);
}

TEST_F(OpenClKernels, TiledGemmPathConv) {
  ForceTiledGemm forced;
  Model m = ConvModel({2, 6, 11, 9}, {9, 2, 3, 3}, {IntAttr("group", 3), IntsAttr("pads", {1, 1, 1, 1})}, true);
  ExpectMatchesCpu(m, {{"x", Random({2, 6, 11, 9}, 55)}, {"w", Random({9, 2, 3, 3}, 56)}, {"b", Random({9}, 57)}});
}

TEST_F(OpenClKernels, ConvEmptyBatch) {
  Model m = ConvModel({0, 2, 5, 5}, {3, 2, 3, 3}, {}, true);
  ExpectMatchesCpu(m, {{"x", Random({0, 2, 5, 5}, 28)}, {"w", Random({3, 2, 3, 3}, 29)}, {"b", Random({3}, 30)}});
}

TEST_F(OpenClKernels, PoolsWithCeilModeAndPads) {
  Model m = MakeModel(
      {With(MakeNode("max", "MaxPool", {"x"}, {"m"}),
            {IntsAttr("kernel_shape", {3, 2}), IntsAttr("strides", {2, 2}), IntAttr("ceil_mode", 1),
             IntsAttr("pads", {1, 0, 1, 1}), IntsAttr("dilations", {1, 2})}),
       With(MakeNode("avg", "AveragePool", {"x"}, {"a"}),
            {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntAttr("ceil_mode", 1),
             IntAttr("count_include_pad", 1), IntsAttr("pads", {1, 1, 1, 1})}),
       With(MakeNode("avg2", "AveragePool", {"x"}, {"a2"}),
            {IntsAttr("kernel_shape", {2, 3}), test::StrAttr("auto_pad", "SAME_UPPER")}),
       MakeNode("gap", "GlobalAveragePool", {"x"}, {"g"}), MakeNode("gmp", "GlobalMaxPool", {"x"}, {"gm"})},
      {TensorInfo("x", DataType::kFloat, {2, 3, 9, 8})},
      {TensorInfo("m", DataType::kFloat, {-1, -1, -1, -1}), TensorInfo("a", DataType::kFloat, {-1, -1, -1, -1}),
       TensorInfo("a2", DataType::kFloat, {-1, -1, -1, -1}), TensorInfo("g", DataType::kFloat, {2, 3, 1, 1}),
       TensorInfo("gm", DataType::kFloat, {2, 3, 1, 1})},
      19);
  ExpectMatchesCpu(m, {{"x", Random({2, 3, 9, 8}, 31)}});
}

TEST_F(OpenClKernels, NegativeAxes) {
  Model m = MakeModel(
      {With(MakeNode("sm", "Softmax", {"x"}, {"s"}), {IntAttr("axis", -2)}),
       With(MakeNode("lsm", "LogSoftmax", {"x"}, {"ls"}), {IntAttr("axis", -3)}),
       With(MakeNode("rm", "ReduceMean", {"x", "axes"}, {"r"}), {IntAttr("keepdims", 0)}),
       With(MakeNode("cat", "Concat", {"x", "x"}, {"c"}), {IntAttr("axis", -1)}),
       With(MakeNode("tr", "Transpose", {"x"}, {"t"}), {IntsAttr("perm", {2, 0, 1})}),
       With(MakeNode("ln", "LayerNormalization", {"x", "scale", "bias"}, {"n", "mean", "inv"}), {IntAttr("axis", -2)})},
      {TensorInfo("x", DataType::kFloat, {3, 4, 5})},
      {TensorInfo("s", DataType::kFloat, {3, 4, 5}), TensorInfo("ls", DataType::kFloat, {3, 4, 5}),
       TensorInfo("r", DataType::kFloat, {3, 4}), TensorInfo("c", DataType::kFloat, {3, 4, 10}),
       TensorInfo("t", DataType::kFloat, {5, 3, 4}), TensorInfo("n", DataType::kFloat, {3, 4, 5}),
       TensorInfo("mean", DataType::kFloat, {3, 1, 1}), TensorInfo("inv", DataType::kFloat, {3, 1, 1})},
      18);
  m.graph->initializers["axes"] = Tensor::FromVector<int64_t>({-1}, {1});
  m.graph->initializers["scale"] = Random({4, 5}, 32);
  m.graph->initializers["bias"] = Random({4, 5}, 33);
  ExpectMatchesCpu(m, {{"x", Random({3, 4, 5}, 34)}});
}

TEST_F(OpenClKernels, EmptyTensorsThroughLayoutAndReduce) {
  Model m = MakeModel(
      {With(MakeNode("cat", "Concat", {"x", "e"}, {"c"}), {IntAttr("axis", 1)}),
       MakeNode("sl", "Slice", {"x", "starts", "ends"}, {"s"}),
       With(MakeNode("sum", "ReduceSum", {"e", "axes"}, {"r"}), {IntAttr("keepdims", 1)}),
       With(MakeNode("mx", "ReduceMax", {"x"}, {"mx"}), {IntsAttr("axes", {0}), IntAttr("keepdims", 0)})},
      {TensorInfo("x", DataType::kFloat, {2, 3}), TensorInfo("e", DataType::kFloat, {2, 0})},
      {TensorInfo("c", DataType::kFloat, {2, 3}), TensorInfo("s", DataType::kFloat, {-1, -1}),
       TensorInfo("r", DataType::kFloat, {2, 1}), TensorInfo("mx", DataType::kFloat, {3})},
      17);
  m.graph->initializers["starts"] = Tensor::FromVector<int64_t>({1, 2}, {2});
  m.graph->initializers["ends"] = Tensor::FromVector<int64_t>({1, 3}, {2});
  m.graph->initializers["axes"] = Tensor::FromVector<int64_t>({1}, {1});
  ExpectMatchesCpu(m, {{"x", Random({2, 3}, 35)}, {"e", Random({2, 0}, 36)}});
}

TEST_F(OpenClKernels, GatherNegativeIndicesAndWordSizes) {
  Model m = MakeModel({With(MakeNode("g", "Gather", {"x", "idx"}, {"y"}), {IntAttr("axis", -1)}),
                       MakeNode("gi", "Gather", {"xi", "idx"}, {"yi"}),
                       With(MakeNode("ti", "Transpose", {"xb"}, {"tb"}), {IntsAttr("perm", {1, 0})}),
                       MakeNode("pi", "Pad", {"xi", "pads"}, {"pi_out"})},
                      {TensorInfo("x", DataType::kFloat, {3, 4}), TensorInfo("xi", DataType::kInt64, {4, 2}),
                       TensorInfo("xb", DataType::kUInt8, {2, 3})},
                      {TensorInfo("y", DataType::kFloat, {3, 2, 2}), TensorInfo("yi", DataType::kInt64, {2, 2, 2}),
                       TensorInfo("tb", DataType::kUInt8, {3, 2}), TensorInfo("pi_out", DataType::kInt64, {-1, -1})},
                      13);
  m.graph->initializers["idx"] = Tensor::FromVector<int64_t>({-1, 0, 2, -3}, {2, 2});
  m.graph->initializers["pads"] = Tensor::FromVector<int64_t>({1, 0, 0, 2}, {4});
  ExpectMatchesCpu(m, {{"x", Random({3, 4}, 37)},
                       {"xi", Tensor::FromVector<int64_t>({1, -2, 3, -4, 5, -6, 7, -8}, {4, 2})},
                       {"xb", Tensor::FromVector<uint8_t>({1, 2, 3, 250, 251, 252}, {2, 3})}});
}

TEST_F(OpenClKernels, GatherOutOfRangeIndexFailsClearly) {
  Model m = MakeModel({MakeNode("g", "Gather", {"x", "idx"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {3, 2}), TensorInfo("idx", DataType::kInt64, {2})},
                      {TensorInfo("y", DataType::kFloat, {2, 2})}, 13);
  SessionOptions opts;
  opts.graph_optimization_level = OptimizationLevel::kDisabled;
  Session ocl(m, opts, MakeProviders({"opencl", "cpu"}));
  ASSERT_EQ(ocl.Placement().at(0).provider, "opencl");
  for (int64_t bad : {3, -4}) {
    try {
      ocl.Run({{"x", Random({3, 2}, 38)}, {"idx", Tensor::FromVector<int64_t>({0, bad}, {2})}});
      ADD_FAILURE() << "index " << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
    }
  }
}

TEST_F(OpenClKernels, NormalizationsMatchCpu) {
  Model m = MakeModel({MakeNode("bn", "BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}),
                       MakeNode("in", "InstanceNormalization", {"x", "s", "b"}, {"z"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3, 4, 5})},
                      {TensorInfo("y", DataType::kFloat, {2, 3, 4, 5}), TensorInfo("z", DataType::kFloat, {2, 3, 4, 5})},
                      15);
  m.graph->initializers["s"] = Random({3}, 39);
  m.graph->initializers["b"] = Random({3}, 40);
  m.graph->initializers["mean"] = Random({3}, 41);
  m.graph->initializers["var"] = Tensor::FromVector<float>({0.5f, 1.0f, 2.0f}, {3});
  ExpectMatchesCpu(m, {{"x", Random({2, 3, 4, 5}, 42)}});
}

TEST_F(OpenClKernels, ExpandTileSplitDepthToSpace) {
  Model m = MakeModel({MakeNode("ex", "Expand", {"v", "shape"}, {"e"}), MakeNode("ti", "Tile", {"x", "reps"}, {"t"}),
                       With(MakeNode("sp", "Split", {"x", "split"}, {"s0", "s1"}), {IntAttr("axis", -1)}),
                       With(MakeNode("d2s", "DepthToSpace", {"x"}, {"d"}), {IntAttr("blocksize", 2), test::StrAttr("mode", "CRD")}),
                       With(MakeNode("s2d", "SpaceToDepth", {"x"}, {"u"}), {IntAttr("blocksize", 2)})},
                      {TensorInfo("x", DataType::kFloat, {1, 8, 2, 4}), TensorInfo("v", DataType::kFloat, {3, 1})},
                      {TensorInfo("e", DataType::kFloat, {2, 3, 4}), TensorInfo("t", DataType::kFloat, {2, 8, 2, 12}),
                       TensorInfo("s0", DataType::kFloat, {1, 8, 2, 1}), TensorInfo("s1", DataType::kFloat, {1, 8, 2, 3}),
                       TensorInfo("d", DataType::kFloat, {1, 2, 4, 8}), TensorInfo("u", DataType::kFloat, {1, 32, 1, 2})},
                      13);
  m.graph->initializers["shape"] = Tensor::FromVector<int64_t>({2, 1, 4}, {3});
  m.graph->initializers["reps"] = Tensor::FromVector<int64_t>({2, 1, 1, 3}, {4});
  m.graph->initializers["split"] = Tensor::FromVector<int64_t>({1, 3}, {2});
  ExpectMatchesCpu(m, {{"x", Random({1, 8, 2, 4}, 43)}, {"v", Random({3, 1}, 44)}});
}

}  // namespace
}  // namespace tessera
