// The oneDNN EP: whole CNN blocks become one partition whose intermediates
// stay in oneDNN's layouts, activations and residual Adds fold into the
// convolutions, buffers are reused, and results match the CPU EP.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/base/json.h"
#include "tessera/base/mapped_file.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/ops/shape_inference.h"
#include "tessera/runtime/session.h"

#ifdef TESSERA_HAVE_DNNL
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_isa.h"
#include "tessera/providers/dnnl/dnnl_partition_kernel.h"
#endif

namespace tessera {
namespace {

using test::FloatAttr;
using test::IntAttr;
using test::IntsAttr;
using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

bool DnnlAvailable() {
  auto names = AvailableProviders();
  return std::find(names.begin(), names.end(), "dnnl") != names.end();
}

Tensor Seeded(std::vector<int64_t> shape, uint32_t seed, float scale = 1.0f) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f);
  }
  return Tensor::FromVector<float>(v, std::move(shape));
}

// A convolution's weights (seeded, scaled by 0.5) and its bias (the next
// seed), as the models below set them.
void SeedConv(Model& m, const std::string& w, const std::string& b, std::vector<int64_t> shape, uint32_t seed) {
  const int64_t out = shape[0];
  m.graph->initializers[w] = Seeded(std::move(shape), seed, 0.5f);
  m.graph->initializers[b] = Seeded({out}, seed + 1);
}

Tensor Scalar(float v) { return Tensor::FromVector<float>({v}, {}); }

Node Conv(const std::string& name, const std::string& x, const std::string& w, const std::string& b,
          const std::string& y, int64_t group = 1, int64_t stride = 1) {
  Node n = MakeNode(name, "Conv", {x, w, b}, {y});
  n.attributes = {IntsAttr("pads", {1, 1, 1, 1}), IntsAttr("strides", {stride, stride}), IntAttr("group", group)};
  return n;
}

// A residual block with a depthwise conv, SiLU, a pool and a classifier:
// conv -> relu -> depthwise conv -> (+ residual) -> relu -> x*sigmoid(x)
// -> maxpool -> global average pool -> flatten -> gemm.
Model Block() {
  Node pool = MakeNode("pool", "MaxPool", {"s"}, {"p"});
  pool.attributes = {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntsAttr("pads", {1, 1, 1, 1})};
  Node gemm = MakeNode("fc", "Gemm", {"f", "fc_w", "fc_b"}, {"y"});
  gemm.attributes = {IntAttr("transB", 1)};
  Model m = MakeModel({Conv("conv1", "x", "w1", "b1", "c1"), MakeNode("relu1", "Relu", {"c1"}, {"r1"}),
                       Conv("dw", "r1", "w2", "b2", "c2", 16), MakeNode("add", "Add", {"c2", "r1"}, {"a"}),
                       MakeNode("relu2", "Relu", {"a"}, {"r2"}), MakeNode("sig", "Sigmoid", {"r2"}, {"g"}),
                       MakeNode("mul", "Mul", {"r2", "g"}, {"s"}), pool,
                       MakeNode("gap", "GlobalAveragePool", {"p"}, {"q"}), MakeNode("flat", "Flatten", {"q"}, {"f"}),
                       gemm},
                      {TensorInfo("x", DataType::kFloat, {1, 8, 20, 20})},
                      {TensorInfo("y", DataType::kFloat, {1, 10})});
  auto& init = m.graph->initializers;
  SeedConv(m, "w1", "b1", {16, 8, 3, 3}, 1);
  SeedConv(m, "w2", "b2", {16, 1, 3, 3}, 3);
  init["fc_w"] = Seeded({10, 16}, 5);
  init["fc_b"] = Seeded({10}, 6);
  return m;
}

SessionOptions Options(int threads = 1) {
  SessionOptions o;
  o.intra_op_num_threads = threads;
  return o;
}

// Runs the model `build` makes on cpu and on `providers` (threads) with x
// fed as "x" and expects the same outputs; with all_dnnl, also that oneDNN
// took every node. (Each session gets its own model: sessions rewrite it.)
void ExpectMatchesCpu(const std::function<Model()>& build, const Tensor& x, int threads, bool all_dnnl,
                      std::vector<std::string> providers = {"dnnl"}) {
  Session cpu(build(), Options(), MakeProviders({"cpu"}));
  Session dnnl(build(), Options(threads), MakeProviders(providers));
  if (all_dnnl) {
    for (const auto& p : dnnl.Placement()) EXPECT_EQ(p.provider, "dnnl") << p.node;
  }
  Feeds feeds{{"x", Value(x)}};
  auto want = cpu.Run(feeds), got = dnnl.Run(feeds);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    auto r = CompareValues(got[i], want[i], 1e-4, 1e-5);
    EXPECT_TRUE(r.match) << "output " << i << ": " << r.message;
  }
}

TEST(DnnlPartition, CnnBlockIsOnePartitionAndMatchesCpu) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  Session cpu(Block(), Options(), MakeProviders({"cpu"}));
  Session dnnl(Block(), Options(), MakeProviders({"dnnl"}));
  for (const auto& p : dnnl.Placement()) {
    EXPECT_EQ(p.provider, "dnnl") << p.node;
    EXPECT_EQ(p.partition, 0) << p.node;
  }
  Feeds feeds{{"x", Value(Seeded({1, 8, 20, 20}, 7, 2.0f))}};
  auto want = cpu.Run(feeds), got = dnnl.Run(feeds);
  auto r = CompareValues(got[0], want[0], 1e-4, 1e-5);
  EXPECT_TRUE(r.match) << r.message;
}

TEST(DnnlPartition, SiluStepSplitsOverThreadsAndMatchesCpu) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  // 16 x 48 x 48 values: several chunks of the SiLU step's parallel loop.
  auto build = [] {
    Model m = MakeModel({Conv("conv", "x", "w", "b", "c"), MakeNode("sig", "Sigmoid", {"c"}, {"g"}),
                         MakeNode("mul", "Mul", {"g", "c"}, {"y"})},
                        {TensorInfo("x", DataType::kFloat, {1, 8, 48, 48})},
                        {TensorInfo("y", DataType::kFloat, {1, 16, 48, 48})});
    m.graph->initializers["w"] = Seeded({16, 8, 3, 3}, 1, 0.5f);
    m.graph->initializers["b"] = Seeded({16}, 2);
    return m;
  };
  ExpectMatchesCpu(build, Seeded({1, 8, 48, 48}, 7, 3.0f), 2, true);
}

TEST(DnnlPartition, ProfileShowsEveryPrimitiveAndReorder) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  SessionOptions opts = Options();
  opts.enable_profiling = true;
  opts.profile_file_prefix = ::testing::TempDir() + "tessera_dnnl_profile";
  Session dnnl(Block(), opts, MakeProviders({"dnnl"}));
  dnnl.Run({{"x", Value(Seeded({1, 8, 20, 20}, 7, 2.0f))}});
  Json trace = ParseJson(ReadFileToString(dnnl.EndProfiling()));
  int partitions = 0, steps = 0, reorders = 0;
  bool conv_step = false;
  for (const Json& e : trace.Find("traceEvents")->array) {
    std::string cat = e.StringOr("cat", "");
    const Json* args = e.Find("args");
    if (cat == "node") ++partitions;
    if (cat == "step" || cat == "reorder") {
      ASSERT_NE(args, nullptr);
      EXPECT_EQ(args->StringOr("provider", ""), "dnnl");
      EXPECT_EQ(args->NumberOr("partition", -1), 0);
      EXPECT_GT(args->NumberOr("bytes", 0), 0);
      // Which kernel oneDNN picked ("brgconv:avx512_core", "jit:uni"...).
      EXPECT_FALSE(args->StringOr("implementation", "").empty()) << e.StringOr("name", "");
      // Convolutions and the classifier carry their arithmetic, reorders none.
      const std::string name = e.StringOr("name", "");
      // The SiLU after dw is its own host step; below AVX-512 the classifier
      // is a host GEMM with its bias as a step of its own.
      const bool rated = (name.rfind("'conv1'", 0) == 0 || name.rfind("'dw'", 0) == 0 || name.rfind("'fc'", 0) == 0) &&
                         name.find("(SiLU)") == std::string::npos && name.find("bias and activation") == std::string::npos;
      EXPECT_EQ(args->NumberOr("flops", -1) > 0, rated) << name;
    }
    if (cat == "node") {
      ASSERT_NE(args, nullptr);
      EXPECT_GT(args->NumberOr("flops", -1), 2 * (16 * 20 * 20) * (8 * 9)) << "the partition sums its nodes";
    }
    if (cat == "step") ++steps;
    if (cat == "step" && e.StringOr("name", "").find("conv1") != std::string::npos) conv_step = true;
    if (cat == "reorder") ++reorders;
  }
  EXPECT_EQ(partitions, 1);  // one compiled partition, one node event
  EXPECT_TRUE(conv_step);
  // Two convolutions, pool, global pool, gemm; the input enters oneDNN's
  // layout and the pooled features leave it before Flatten: reorders.
  EXPECT_GE(steps, 5);
  EXPECT_GE(reorders, 2);
}

TEST(DnnlPartition, ConcurrentRunsMatch) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  Session dnnl(Block(), Options(2), MakeProviders({"dnnl"}));
  Feeds feeds{{"x", Value(Seeded({1, 8, 20, 20}, 7, 2.0f))}};
  const Tensor want = dnnl.Run(feeds)[0].tensor();
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i)
        if (!CompareTensors(dnnl.Run(feeds)[0].tensor(), want, 0, 0).match) ++mismatches[static_cast<size_t>(t)];
    });
  for (auto& t : threads) t.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(DnnlPartition, WrongInputShapeIsAClearError) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  Session dnnl(Block(), Options(), MakeProviders({"dnnl"}));
  try {
    dnnl.Run({{"x", Value(Seeded({1, 8, 10, 10}, 7))}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x"), std::string::npos) << e.what();
  }
}

// Nodes only oneDNN would take between nodes only the CPU EP runs: alone
// they would make a partition that moves data (Squeeze, Concat) and nothing
// else, so they stay on the CPU; one with arithmetic (Relu) keeps oneDNN.
Model BetweenCpuNodes(const std::string& middle) {
  Node squeeze = MakeNode("squeeze", "Squeeze", {"s", "axes"}, {"q"});
  Node cat = MakeNode("cat", "Concat", {"q", "q"}, {"k"});
  cat.attributes = {IntAttr("axis", 1)};
  std::vector<Node> nodes = {MakeNode("sin", "Sin", {"x"}, {"s"}), squeeze, cat};
  if (middle == "Relu") nodes.push_back(MakeNode("relu", "Relu", {"k"}, {"k2"}));
  nodes.push_back(MakeNode("cos", "Cos", {middle == "Relu" ? "k2" : "k"}, {"y"}));
  Model m = MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, {1, 4, 6})},
                      {TensorInfo("y", DataType::kFloat, {4, 12})});
  m.graph->initializers["axes"] = Tensor::FromVector<int64_t>({0}, {1});
  return m;
}

TEST(DnnlPartition, RunsThatOnlyMoveDataStayWithTheirCpuNeighbours) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  Session moves(BetweenCpuNodes("none"), Options(), MakeProviders({"dnnl", "cpu"}));
  for (const auto& p : moves.Placement()) {
    EXPECT_EQ(p.provider, "cpu") << p.node;
    if (p.op_type == "Squeeze" || p.op_type == "Concat") {
      ASSERT_FALSE(p.declined.empty()) << p.node;
      EXPECT_NE(p.declined.back().find("would only move data"), std::string::npos) << p.declined.back();
    }
  }
  Session computes(BetweenCpuNodes("Relu"), Options(), MakeProviders({"dnnl", "cpu"}));
  int on_dnnl = 0;
  for (const auto& p : computes.Placement()) on_dnnl += p.provider == "dnnl";
  EXPECT_EQ(on_dnnl, 3) << "Squeeze, Concat and Relu make a partition with arithmetic";
  Session cpu(BetweenCpuNodes("none"), Options(), MakeProviders({"cpu"}));
  Feeds feeds{{"x", Value(Seeded({1, 4, 6}, 3, 2.0f))}};
  auto r = CompareValues(moves.Run(feeds)[0], cpu.Run(feeds)[0], 0, 0);
  EXPECT_TRUE(r.match) << r.message;
}

TEST(DnnlPartition, DynamicShapesFallBackToCpuWithAReason) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {-1, 4})},
                      {TensorInfo("y", DataType::kFloat, {-1, 4})});
  Session s(std::move(m), Options(), MakeProviders({"dnnl"}));
  auto placement = s.Placement();
  ASSERT_EQ(placement.size(), 1u);
  EXPECT_EQ(placement[0].provider, "cpu");
  ASSERT_FALSE(placement[0].declined.empty());
  EXPECT_NE(placement[0].declined[0].find("not static"), std::string::npos) << placement[0].declined[0];
  auto out = s.Run({{"x", Value(Tensor::FromVector<float>({-1, 2, -3, 4}, {1, 4}))}});
  EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[0], 0.0f);
}

#ifdef TESSERA_HAVE_DNNL
// Compiles the block directly to look at the plan.
dnnl_ep::Plan CompileBlock(const Model& model, bool winograd = true) {
  GraphTypes types = InferGraphTypes(*model.graph, [&](const std::string& d) { return model.OpsetFor(d); });
  PartitionDef def;
  def.model = &model;
  def.types = &types;
  for (const auto& n : model.graph->nodes) def.nodes.push_back(&n);
  def.inputs = {"x"};
  for (const auto& [name, t] : model.graph->initializers) def.inputs.push_back(name);
  def.outputs = {"y"};
  def.winograd = winograd;
  dnnl_ep::Compiler compiler(def, dnnl::engine(dnnl::engine::kind::cpu, 0));
  return compiler.Compile();
}

// The layout the plan's first step for graph node `node` writes (its label
// starts with 'node'): dense channels-last, or blocked over channels.
const dnnl_ep::Desc* DstOf(const dnnl_ep::Plan& plan, const std::string& node) {
  for (const auto& step : plan.steps)
    if (step.label.rfind("'" + node + "'", 0) == 0)
      for (const auto& [arg, v] : step.args)
        if (arg == DNNL_ARG_DST) return &plan.values[static_cast<size_t>(v)].desc;
  return nullptr;
}
bool WritesChannelsLast(const dnnl_ep::Plan& plan, const std::string& node) {
  const dnnl_ep::Desc* d = DstOf(plan, node);
  return d != nullptr && dnnl_ep::IsChannelsLastDense(*d);
}
bool WritesChannelBlocked(const dnnl_ep::Plan& plan, const std::string& node) {
  const dnnl_ep::Desc* d = DstOf(plan, node);
  if (d == nullptr) return false;
  const auto& b = d->data.format_desc.blocking;
  return b.inner_nblks == 1 && b.inner_idxs[0] == 1;
}

// Three convolutions c0..c2 of two images x [2, 16, 10, 9] (weights of the
// given shapes; 3x3 ones padded), concatenated along channels and read by
// c3 into 8 channels.
Model ConcatOfThreeConvs(const std::vector<std::vector<int64_t>>& w, const std::vector<int64_t>& w3) {
  std::vector<Node> nodes;
  for (int i = 0; i < 3; ++i) {
    const std::string k = std::to_string(i);
    nodes.push_back(w[static_cast<size_t>(i)][2] == 1 ? MakeNode("c" + k, "Conv", {"x", "w" + k, "b" + k}, {"f" + k})
                                                      : Conv("c" + k, "x", "w" + k, "b" + k, "f" + k));
  }
  Node cat = MakeNode("cat", "Concat", {"f0", "f1", "f2"}, {"k"});
  cat.attributes = {IntAttr("axis", 1)};
  nodes.push_back(cat);
  nodes.push_back(w3[2] == 1 ? MakeNode("c3", "Conv", {"k", "w3", "b3"}, {"y"}) : Conv("c3", "k", "w3", "b3", "y"));
  Model m = MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, {2, 16, 10, 9})},
                      {TensorInfo("y", DataType::kFloat, {2, 8, 10, 9})});
  for (int i = 0; i < 3; ++i)
    SeedConv(m, "w" + std::to_string(i), "b" + std::to_string(i), w[static_cast<size_t>(i)], static_cast<uint32_t>(2 * i + 1));
  SeedConv(m, "w3", "b3", w3, 7);
  return m;
}

// A Winograd 3x3 convolution (blocked output on AVX-512), a 1x1 one
// (channels-last) and a 3x3 one of 16 channels.
Model MixedLayoutConcat() { return ConcatOfThreeConvs({{32, 16, 3, 3}, {24, 16, 1, 1}, {16, 16, 3, 3}}, {8, 72, 1, 1}); }

TEST(DnnlPartition, ConcatOfMixedLayoutsIsOneStepWithoutReorders) {
  for (int threads : {1, 2}) ExpectMatchesCpu(MixedLayoutConcat, Seeded({2, 16, 10, 9}, 9, 2.0f), threads, true);
  Model m = MixedLayoutConcat();
  dnnl_ep::Plan plan = CompileBlock(m);
  const bool blocked = WritesChannelBlocked(plan, "c0") || WritesChannelBlocked(plan, "c1");
  const bool channels_last = WritesChannelsLast(plan, "c0") || WritesChannelsLast(plan, "c1");
  if (!blocked || !channels_last) GTEST_SKIP() << "oneDNN chose one layout for both convolutions";
  int host_concats = 0, reorders_before = 0, input_to_blocked = 0;
  for (const auto& step : plan.steps) {
    if (step.label.find("'cat'") != std::string::npos) host_concats += static_cast<bool>(step.host);
    input_to_blocked += step.label.find("reorder abcd -> aBcd") == 0;
    if (host_concats == 0 && step.label.find("reorder aBcd") == 0 && step.label.find("-> acdb") != std::string::npos)
      ++reorders_before;
  }
  EXPECT_EQ(host_concats, 1);
  EXPECT_EQ(reorders_before, 0) << "no blocked input is brought to channels-last first";
  // c0 and c2 both read x blocked: one reorder serves both.
  EXPECT_EQ(input_to_blocked, 1);
}

// Squeeze-and-excitation on two images: x * sigmoid(conv(act(conv(gap(x)))))
// per image and channel, then a 1x1 convolution; act is Relu, LeakyRelu or
// SiLU. The excitation "se" is an output too (the scaling hides small
// errors in it).
Model SqueezeExcite(const std::string& act = "Relu") {
  std::vector<Node> nodes = {Conv("c", "x", "w", "b", "f"), MakeNode("gap", "GlobalAveragePool", {"f"}, {"g"}),
                             MakeNode("s1", "Conv", {"g", "ws1", "bs1"}, {"h"})};
  if (act == "SiLU") {
    nodes.push_back(MakeNode("act_sig", "Sigmoid", {"h"}, {"hs"}));
    nodes.push_back(MakeNode("act_mul", "Mul", {"h", "hs"}, {"r"}));
  } else {
    nodes.push_back(MakeNode("act", act, {"h"}, {"r"}));
    if (act == "LeakyRelu") nodes.back().attributes = {FloatAttr("alpha", 0.1f)};
  }
  nodes.push_back(MakeNode("s2", "Conv", {"r", "ws2", "bs2"}, {"e"}));
  nodes.push_back(MakeNode("sig", "Sigmoid", {"e"}, {"se"}));
  nodes.push_back(MakeNode("scale", "Mul", {"f", "se"}, {"m"}));
  nodes.push_back(MakeNode("out", "Conv", {"m", "wo", "bo"}, {"y"}));
  Model m = MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, {2, 8, 11, 9})},
                      {TensorInfo("y", DataType::kFloat, {2, 8, 11, 9}),
                       TensorInfo("se", DataType::kFloat, {2, 24, 1, 1})});
  SeedConv(m, "w", "b", {24, 8, 3, 3}, 1);
  SeedConv(m, "ws1", "bs1", {6, 24, 1, 1}, 3);
  SeedConv(m, "ws2", "bs2", {24, 6, 1, 1}, 5);
  SeedConv(m, "wo", "bo", {8, 24, 1, 1}, 7);
  return m;
}

TEST(DnnlPartition, SqueezeExciteRunsAsHostSteps) {
  for (const char* act : {"Relu", "LeakyRelu", "SiLU"}) {
    SCOPED_TRACE(act);
    for (int threads : {1, 2})
      ExpectMatchesCpu([&] { return SqueezeExcite(act); }, Seeded({2, 8, 11, 9}, 9, 2.0f), threads, true);
    Model m = SqueezeExcite(act);
    dnnl_ep::Plan plan = CompileBlock(m);
    int host_scale = 0, host_layers = 0;
    for (const auto& step : plan.steps) {
      if (step.label.find("'scale'") != std::string::npos) host_scale += static_cast<bool>(step.host);
      // The two 1x1 layers on the pooled vector: matrix-vector host steps
      // with their activations (which get no step of their own).
      if (step.label.rfind("'s1'", 0) == 0 || step.label.rfind("'s2'", 0) == 0)
        host_layers += static_cast<bool>(step.host);
      EXPECT_EQ(step.label.find("'act"), std::string::npos) << step.label;
      EXPECT_EQ(step.label.find("'sig'"), std::string::npos) << step.label;
    }
    EXPECT_EQ(host_layers, 2);
    if (WritesChannelsLast(plan, "c")) {  // (else oneDNN chose a blocked layout for 'c')
      EXPECT_EQ(host_scale, 1);
    }
  }
}

// EfficientNet's block tail on two images: a convolution with SiLU whose
// result feeds both the squeeze-and-excitation pool (also an output) and
// its scaling. 24
// channels x 29 x 31 pixels: more than one host chunk per image, the chunk
// boundary inside a pixel's channels.
Model SiluSqueezeExcite() {
  Model m = SqueezeExcite();
  auto& nodes = m.graph->nodes;
  nodes[0].outputs[0] = "c0";
  nodes.insert(nodes.begin() + 1, MakeNode("sig0", "Sigmoid", {"c0"}, {"g0"}));
  nodes.insert(nodes.begin() + 2, MakeNode("mul0", "Mul", {"c0", "g0"}, {"f"}));
  m.graph->inputs[0] = TensorInfo("x", DataType::kFloat, {2, 8, 29, 31});
  m.graph->outputs[0] = TensorInfo("y", DataType::kFloat, {2, 8, 29, 31});
  m.graph->outputs.pop_back();  // the excitation: the means "g" are checked instead
  // The pool's means as an output too: the scaling hides small errors in them.
  m.graph->outputs.push_back(TensorInfo("g", DataType::kFloat, {2, 24, 1, 1}));
  return m;
}

TEST(DnnlPartition, SiluAndSqueezeExcitePoolAreOneStep) {
  for (int threads : {1, 2}) ExpectMatchesCpu(SiluSqueezeExcite, Seeded({2, 8, 29, 31}, 9, 2.0f), threads, true);
  Model m = SiluSqueezeExcite();
  dnnl_ep::Plan plan = CompileBlock(m);
  int fused = 0, pools = 0;
  for (const auto& step : plan.steps) {
    fused += step.label.find("(SiLU) + 'gap'") != std::string::npos && static_cast<bool>(step.host);
    pools += step.label.rfind("'gap'", 0) == 0;
  }
  if (!WritesChannelsLast(plan, "c")) GTEST_SKIP() << "oneDNN chose a blocked layout for the convolution";
  EXPECT_EQ(fused, 1);
  EXPECT_EQ(pools, 0);
}

// Split of a convolution's result along channels and along the width, in
// uneven pieces: windows of its layout copied out.
TEST(DnnlPartition, SplitCopiesWindowsOfTheProducersLayout) {
  for (int64_t axis : {1, 3}) {
    SCOPED_TRACE(axis);
    auto build = [axis] {
      Node split = MakeNode("split", "Split", {"c", "sizes"}, {"y0", "y1"});
      split.attributes = {IntAttr("axis", axis)};
      std::vector<int64_t> y0 = {1, 16, 6, 9}, y1 = y0;
      y0[static_cast<size_t>(axis)] = axis == 1 ? 5 : 4;
      y1[static_cast<size_t>(axis)] = axis == 1 ? 11 : 5;
      Model m = MakeModel({Conv("conv", "x", "w", "b", "c"), split}, {TensorInfo("x", DataType::kFloat, {1, 8, 6, 9})},
                          {TensorInfo("y0", DataType::kFloat, y0), TensorInfo("y1", DataType::kFloat, y1)});
      m.graph->initializers["w"] = Seeded({16, 8, 3, 3}, 1, 0.5f);
      m.graph->initializers["b"] = Seeded({16}, 2);
      m.graph->initializers["sizes"] = Tensor::FromVector<int64_t>({y0[static_cast<size_t>(axis)], y1[static_cast<size_t>(axis)]}, {2});
      return m;
    };
    for (int threads : {1, 2}) ExpectMatchesCpu(build, Seeded({1, 8, 6, 9}, 3, 2.0f), threads, true);
  }
}

// Where with a constant mask repeated over the leading axes and a constant
// fill, the data on either side (GPT-2's causal mask, both ways round).
TEST(DnnlPartition, AttentionMaskWhereRunsOnTheHost) {
  for (bool data_first : {true, false}) {
    SCOPED_TRACE(data_first);
    auto build = [data_first] {
      Node where = MakeNode("where", "Where", {"mask", data_first ? "e" : "fill", data_first ? "fill" : "e"}, {"y"});
      Model m = MakeModel({MakeNode("exp", "Exp", {"x"}, {"e"}), where},
                          {TensorInfo("x", DataType::kFloat, {2, 3, 5, 7})}, {TensorInfo("y", DataType::kFloat, {2, 3, 5, 7})});
      std::vector<bool> mask;
      for (int i = 0; i < 35; ++i) mask.push_back((i * 7) % 3 != 0);
      m.graph->initializers["mask"] = Tensor::FromVector<bool>(mask, {1, 5, 7});
      m.graph->initializers["fill"] = Scalar(-1e4f);
      return m;
    };
    ExpectMatchesCpu(build, Seeded({2, 3, 5, 7}, 4, 2.0f), 1, true);
  }
}

// A 3x3 stride-1 convolution (+ Relu) and a 3x3 stride-2 one after it.
Model ThreeByThreeConvs() {
  Model m = MakeModel({Conv("conv1", "x", "w1", "b1", "c1"), MakeNode("relu", "Relu", {"c1"}, {"r"}),
                       Conv("conv2", "r", "w2", "b2", "y", 1, 2)},
                      {TensorInfo("x", DataType::kFloat, {1, 16, 14, 14})},
                      {TensorInfo("y", DataType::kFloat, {1, 32, 7, 7})});
  SeedConv(m, "w1", "b1", {32, 16, 3, 3}, 1);
  SeedConv(m, "w2", "b2", {32, 32, 3, 3}, 3);
  return m;
}

TEST(DnnlPartition, WinogradRunsStrideOne3x3ConvolutionsUnlessTurnedOff) {
  // oneDNN 2.6 has float Winograd kernels for AVX-512 only; elsewhere the
  // convolution stays direct whatever the setting.
  const bool has_kernel = (static_cast<int>(dnnl::get_effective_cpu_isa()) &
                           static_cast<int>(dnnl::cpu_isa::avx512_core)) == static_cast<int>(dnnl::cpu_isa::avx512_core);
  for (bool winograd : {true, false}) {
    Model m = ThreeByThreeConvs();
    dnnl_ep::Plan plan = CompileBlock(m, winograd);
    std::map<std::string, std::string> impl;
    for (const auto& s : plan.steps) {
      EXPECT_FALSE(s.implementation.empty()) << s.label;
      impl[s.label] = s.implementation;
    }
    const std::string conv1 = impl["'conv1' (Conv)"], conv2 = impl["'conv2' (Conv)"];
    EXPECT_EQ(conv1.find("wino") != std::string::npos, winograd && has_kernel) << conv1;
    EXPECT_EQ(conv2.find("wino"), std::string::npos) << "stride 2: " << conv2;

    SessionOptions o = Options();
    o.winograd_convolutions = winograd;
    Session cpu(ThreeByThreeConvs(), Options(), MakeProviders({"cpu"}));
    Session dnnl(ThreeByThreeConvs(), o, MakeProviders({"dnnl"}));
    Feeds feeds{{"x", Value(Seeded({1, 16, 14, 14}, 7, 2.0f))}};
    auto r = CompareValues(dnnl.Run(feeds)[0], cpu.Run(feeds)[0], 1e-4, 1e-5);
    EXPECT_TRUE(r.match) << "winograd " << winograd << ": " << r.message;
  }
}

// The flops of the first step whose label starts with node `node`, or -2
// when no step does.
int64_t FlopsOf(const dnnl_ep::Plan& plan, const std::string& node) {
  for (const auto& step : plan.steps)
    if (step.label.rfind("'" + node + "'", 0) == 0) return step.flops;
  return -2;
}

TEST(DnnlPartition, StepsCountTheirMultiplyAddsForProfiles) {
  // Winograd or not, a convolution counts the direct method's work.
  for (bool winograd : {true, false}) {
    Model m = ThreeByThreeConvs();
    dnnl_ep::Plan plan = CompileBlock(m, winograd);
    EXPECT_EQ(FlopsOf(plan, "conv1"), 2 * (32 * 14 * 14) * (16 * 9)) << "winograd " << winograd;
    EXPECT_EQ(FlopsOf(plan, "conv2"), 2 * (32 * 7 * 7) * (32 * 9)) << "stride 2";
  }
  Model block = Block();
  dnnl_ep::Plan plan = CompileBlock(block);
  EXPECT_EQ(FlopsOf(plan, "conv1"), 2 * (16 * 20 * 20) * (8 * 9));
  EXPECT_EQ(FlopsOf(plan, "dw"), 2 * (16 * 20 * 20) * 9) << "depthwise: one channel per output";
  EXPECT_EQ(FlopsOf(plan, "fc"), 2 * 10 * 16);
  for (const auto& step : plan.steps) {
    const bool host_gemm = !step.primitive && step.label.rfind("'fc'", 0) == 0;  // counted above
    if ((!step.primitive && !host_gemm) || (step.primitive && (step.primitive.get_kind() == dnnl::primitive::kind::reorder ||
                                                              step.primitive.get_kind() == dnnl::primitive::kind::pooling))) {
      EXPECT_EQ(step.flops, -1) << step.label << ": memory-bound steps are not rated";
    }
  }
  // The squeeze-and-excitation layers, host matrix-vector steps on 2 images.
  Model se = SqueezeExcite();
  dnnl_ep::Plan se_plan = CompileBlock(se);
  EXPECT_EQ(FlopsOf(se_plan, "s1"), 2 * 2 * 6 * 24);
  EXPECT_EQ(FlopsOf(se_plan, "s2"), 2 * 2 * 24 * 6);
}

TEST(DnnlPartition, ActivationsAndResidualAddBecomePostOpsAndSiluRunsInPlace) {
  Model m = Block();
  dnnl_ep::Plan plan = CompileBlock(m);
  std::vector<std::string> labels;
  for (const auto& s : plan.steps) labels.push_back(s.label);
  // Relu, Add, Relu are post-ops of the two convolutions, and Sigmoid and
  // Mul one SiLU step: no step is labelled with them.
  for (const char* fused : {"relu1", "add", "relu2", "sig", "mul"})
    for (const auto& l : labels) EXPECT_EQ(l.find(std::string("'") + fused + "'"), std::string::npos) << l;
  int convs = 0, silus = 0;
  for (const auto& s : plan.steps) {
    const std::string& l = s.label;
    convs += l.size() >= 6 && l.compare(l.size() - 6, 6, "(Conv)") == 0;
    if (l.find("(SiLU)") == std::string::npos) continue;
    ++silus;
    // Our own kernel, writing over the convolution's result.
    EXPECT_TRUE(static_cast<bool>(s.host)) << l;
    EXPECT_FALSE(static_cast<bool>(s.primitive)) << l;
    ASSERT_EQ(s.args.size(), 2u);
    EXPECT_EQ(plan.values[static_cast<size_t>(s.args[0].second)].buffer,
              plan.values[static_cast<size_t>(s.args[1].second)].buffer);
  }
  EXPECT_EQ(convs, 2);
  EXPECT_EQ(silus, 1);
}

// A DenseNet layer: the concatenation of three feature maps, normalized
// (BatchNormalization with constant parameters), Relu, then a convolution.
Model DenseLayer(bool relu) {
  std::vector<Node> nodes = {Conv("c0", "x", "w0", "b0", "f0"), Conv("c1", "x", "w1", "b1", "f1"),
                             Conv("c2", "x", "w2", "b2", "f2"), MakeNode("cat", "Concat", {"f0", "f1", "f2"}, {"k"}),
                             MakeNode("bn", "BatchNormalization", {"k", "s", "t", "m", "v"}, {"n"})};
  nodes[3].attributes = {IntAttr("axis", 1)};
  if (relu) nodes.push_back(MakeNode("relu", "Relu", {"n"}, {"r"}));
  nodes.push_back(Conv("c3", relu ? "r" : "n", "w3", "b3", "y"));
  Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {1, 8, 9, 7})},
                      {TensorInfo("y", DataType::kFloat, {1, 4, 9, 7})});
  auto& init = m.graph->initializers;
  SeedConv(m, "w0", "b0", {8, 8, 3, 3}, 12);
  SeedConv(m, "w1", "b1", {16, 8, 3, 3}, 1);
  init["w2"] = Seeded({5, 8, 3, 3}, 3, 0.5f);  // a width off the vector length
  init["b2"] = Seeded({5}, 4);
  init["s"] = Seeded({29}, 5, 2.0f);
  init["t"] = Seeded({29}, 6);
  init["m"] = Seeded({29}, 7);
  std::vector<float> var(29);
  for (size_t i = 0; i < var.size(); ++i) var[i] = 0.25f + 0.1f * static_cast<float>(i);
  init["v"] = Tensor::FromVector<float>(var, {29});
  SeedConv(m, "w3", "b3", {4, 29, 3, 3}, 8);
  return m;
}

// The channel block of what the plan's step for `node` writes; 0 when it
// writes no channel-blocked layout.
int64_t BlockOf(const dnnl_ep::Plan& plan, const std::string& node) {
  return WritesChannelBlocked(plan, node) ? DstOf(plan, node)->data.format_desc.blocking.inner_blks[0] : 0;
}

TEST(DnnlPartition, ConcatAndBatchNormRunAsOnePass) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  for (bool relu : {true, false}) {
    SCOPED_TRACE(relu ? "with Relu" : "without Relu");
    for (int threads : {1, 2}) ExpectMatchesCpu([&] { return DenseLayer(relu); }, Seeded({1, 8, 9, 7}, 11, 3.0f), threads, true);
    // The fused pass needs a convolution that writes channels-last (oneDNN's
    // choice on AVX-512), or all three blocked alike with the first two
    // (8 and 16 channels) filling whole blocks: by 8, as below AVX-512.
    Model m = DenseLayer(relu);
    dnnl_ep::Plan plan = CompileBlock(m);
    const bool channels_last =
        WritesChannelsLast(plan, "c0") || WritesChannelsLast(plan, "c1") || WritesChannelsLast(plan, "c2");
    const bool blocked_by_8 = BlockOf(plan, "c0") == 8 && BlockOf(plan, "c1") == 8 && BlockOf(plan, "c2") == 8;
    int fused = 0, alone = 0;
    for (const auto& step : plan.steps) {
      if (step.label.find("'cat'") != std::string::npos) {
        fused += step.label.find("'bn'") != std::string::npos && static_cast<bool>(step.host);
      } else if (step.label.find("'bn'") != std::string::npos || step.label.find("'relu'") != std::string::npos) {
        ++alone;
      }
    }
    if (!channels_last && !blocked_by_8) GTEST_SKIP() << "oneDNN chose layouts the fused pass does not take";
    EXPECT_EQ(fused, 1);
    EXPECT_EQ(alone, 0);
    if (blocked_by_8) {
      EXPECT_EQ(BlockOf(plan, "cat"), 8) << "the result keeps the inputs' block";
    }
  }
}

// Three 3x3 convolutions (blocked output from Winograd on AVX-512, and from
// every convolution below it) of 16, 16 and 12 channels.
Model BlockedConcat() { return ConcatOfThreeConvs({{16, 16, 3, 3}, {16, 16, 3, 3}, {12, 16, 3, 3}}, {8, 44, 3, 3}); }

TEST(DnnlPartition, ConcatOfBlockedInputsIsOneHostStepKeepingTheBlock) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  for (int threads : {1, 2}) ExpectMatchesCpu(BlockedConcat, Seeded({2, 16, 10, 9}, 9, 2.0f), threads, true);
  Model m = BlockedConcat();
  dnnl_ep::Plan plan = CompileBlock(m);
  const int64_t block = BlockOf(plan, "c0");
  if (block == 0 || BlockOf(plan, "c1") != block || BlockOf(plan, "c2") != block)
    GTEST_SKIP() << "oneDNN chose other layouts than one channel block for the convolutions";
  int host_concats = 0;
  for (const auto& step : plan.steps)
    if (step.label.find("'cat'") != std::string::npos) host_concats += static_cast<bool>(step.host);
  EXPECT_EQ(host_concats, 1);
  EXPECT_EQ(BlockOf(plan, "cat"), block);
}

// A 3x3 convolution of two 8-channel images into 12 channels (a block and a
// half at 8, less than one at 16), then MaxPool with the given attributes.
Model ConvMaxPool(std::vector<Attribute> pool_attrs, std::vector<int64_t> y_shape) {
  Node pool = MakeNode("pool", "MaxPool", {"f"}, {"y"});
  pool.attributes = std::move(pool_attrs);
  Model m = MakeModel({Conv("c", "x", "w", "b", "f"), pool}, {TensorInfo("x", DataType::kFloat, {2, 8, 12, 11})},
                      {TensorInfo("y", DataType::kFloat, std::move(y_shape))});
  SeedConv(m, "w", "b", {12, 8, 3, 3}, 2);
  return m;
}

TEST(DnnlPartition, MaxPoolOverChannelBlocksRunsOnHostAndMatchesCpu) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  struct Variant {
    const char* name;
    std::vector<Attribute> attrs;
    std::vector<int64_t> y;
  };
  auto k = [](int64_t a) { return IntsAttr("kernel_shape", {a, a}); };
  auto s = [](int64_t a) { return IntsAttr("strides", {a, a}); };
  const std::vector<Variant> variants = {
      {"3x3 stride 2, ceil_mode (the last row's window leaves the input)",
       {k(3), s(2), IntAttr("ceil_mode", 1)},
       {2, 12, 6, 5}},
      {"3x3 stride 1, padded", {k(3), s(1), IntsAttr("pads", {1, 1, 1, 1})}, {2, 12, 12, 11}},
      {"2x2 stride 2", {k(2), s(2)}, {2, 12, 6, 5}},
      {"3x3 dilated by 2, padded", {k(3), s(2), IntsAttr("dilations", {2, 2}), IntsAttr("pads", {2, 2, 2, 2})},
       {2, 12, 6, 6}},
      {"asymmetric pads", {k(3), s(2), IntsAttr("pads", {0, 1, 1, 0})}, {2, 12, 6, 5}},
  };
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    auto build = [&] { return ConvMaxPool(v.attrs, v.y); };
    for (int threads : {1, 2}) ExpectMatchesCpu(build, Seeded({2, 8, 12, 11}, 4, 2.0f), threads, true);
    Model m = build();
    dnnl_ep::Plan plan = CompileBlock(m);
    bool on_host = false;
    for (const auto& step : plan.steps)
      if (step.label.rfind("'pool'", 0) == 0) on_host = static_cast<bool>(step.host);
    EXPECT_EQ(on_host, BlockOf(plan, "c") != 0) << "the host step exactly when the convolution writes channel blocks";
  }
}

// y = GELU(h) with GELU written out with Erf, as exporters do before
// opset 20, where h is x W (source 0), x W + b (1) or x itself (2);
// half_first multiplies h by 0.5 before (1 + erf).
Model GeluMlp(int source, bool half_first) {
  std::vector<Node> nodes;
  if (source < 2) nodes.push_back(MakeNode("mm", "MatMul", {"x", "w"}, {source == 1 ? "p" : "h"}));
  if (source == 1) nodes.push_back(MakeNode("bias", "Add", {"p", "b"}, {"h"}));
  const std::string h = source == 2 ? "x" : "h";
  nodes.push_back(MakeNode("div", "Div", {h, "sqrt2"}, {"d"}));
  nodes.push_back(MakeNode("erf", "Erf", {"d"}, {"e"}));
  nodes.push_back(MakeNode("one", "Add", {"e", "c1"}, {"a"}));
  if (half_first) {
    nodes.push_back(MakeNode("half", "Mul", {h, "c05"}, {"m"}));
    nodes.push_back(MakeNode("out", "Mul", {"a", "m"}, {"y"}));
  } else {
    nodes.push_back(MakeNode("byx", "Mul", {h, "a"}, {"m"}));
    nodes.push_back(MakeNode("out", "Mul", {"m", "c05"}, {"y"}));
  }
  const int64_t width = source == 2 ? 8 : 16;
  Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {1, 5, 8})},
                      {TensorInfo("y", DataType::kFloat, {1, 5, width})});
  auto& init = m.graph->initializers;
  if (source < 2) init["w"] = Seeded({8, 16}, 1, 2.0f);
  if (source == 1) init["b"] = Seeded({16}, 2);
  init["sqrt2"] = Scalar(1.4142135f);
  init["c1"] = Scalar(1.0f);
  init["c05"] = Scalar(0.5f);
  return m;
}

TEST(DnnlPartition, GeluWrittenWithErfRunsAsOneOneDnnlOp) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  for (int source : {0, 1, 2})
    for (bool half_first : {false, true}) {
      SCOPED_TRACE("source " + std::to_string(source) + (half_first ? ", 0.5 * h first" : ""));
      ExpectMatchesCpu([&] { return GeluMlp(source, half_first); }, Seeded({1, 5, 8}, 7, 2.0f), 1, true);
      // (Compiled without the optimizer.) A post-op of the MatMul or of the
      // bias Add; on a partition input, one eltwise step.
      Model m = GeluMlp(source, half_first);
      dnnl_ep::Plan plan = CompileBlock(m);
      int gelu_steps = 0;
      for (const auto& step : plan.steps) {
        for (const char* absorbed : {"'div'", "'erf'", "'one'", "'half'", "'byx'", "'out'"})
          if (step.label.find(absorbed) != std::string::npos && step.label.find("(GELU)") == std::string::npos)
            ADD_FAILURE() << "a step of its own: " << step.label;
        gelu_steps += step.label.find("(GELU)") != std::string::npos;
      }
      EXPECT_EQ(gelu_steps, source == 2 ? 1 : 0);
    }
}

// GPT-2's GELU: 0.5 * h * (1 + tanh(sqrt(2/pi) * (h + 0.044715 h^3))) after a
// MatMul, with h^3 as h*h*h or Pow(h, 3), and constants written first.
Model TanhGeluMlp(bool pow) {
  std::vector<Node> nodes = {MakeNode("mm", "MatMul", {"x", "w"}, {"h"})};
  if (pow) {
    nodes.push_back(MakeNode("cube", "Pow", {"h", "c3"}, {"h3"}));
  } else {
    nodes.push_back(MakeNode("sq", "Mul", {"h", "h"}, {"h2"}));
    nodes.push_back(MakeNode("cube", "Mul", {"h", "h2"}, {"h3"}));
  }
  for (Node n : {MakeNode("k", "Mul", {"c0044", "h3"}, {"t1"}), MakeNode("inner", "Add", {"h", "t1"}, {"t2"}),
                 MakeNode("scale", "Mul", {"csqrt", "t2"}, {"t3"}), MakeNode("tanh", "Tanh", {"t3"}, {"t4"}),
                 MakeNode("one", "Add", {"c1", "t4"}, {"t5"}), MakeNode("byx", "Mul", {"h", "t5"}, {"t6"}),
                 MakeNode("out", "Mul", {"c05", "t6"}, {"y"})})
    nodes.push_back(n);
  Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {1, 5, 8})},
                      {TensorInfo("y", DataType::kFloat, {1, 5, 16})});
  auto& init = m.graph->initializers;
  init["w"] = Seeded({8, 16}, 1, 2.0f);
  init["c3"] = Scalar(3.0f);
  init["c0044"] = Scalar(0.044715f);
  init["csqrt"] = Scalar(0.7978845834732056f);
  init["c1"] = Scalar(1.0f);
  init["c05"] = Scalar(0.5f);
  return m;
}

TEST(DnnlPartition, GeluWrittenWithTanhBecomesAPostOp) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  for (bool pow : {false, true}) {
    SCOPED_TRACE(pow ? "Pow(h, 3)" : "h * h * h");
    // Pow has no oneDNN row: that GELU stays split (and right).
    ExpectMatchesCpu([&] { return TanhGeluMlp(pow); }, Seeded({1, 5, 8}, 7, 2.0f), 1, !pow, {"dnnl", "cpu"});
    if (pow) continue;
    Model m = TanhGeluMlp(pow);
    dnnl_ep::Plan plan = CompileBlock(m);
    // The MatMul alone with GELU as its post-op; below AVX-512 a host GEMM
    // and one step for its epilogue.
    ASSERT_GE(plan.steps.size(), 1u);
    ASSERT_LE(plan.steps.size(), 2u) << "the MatMul and GELU as its post-op";
    for (const auto& step : plan.steps) EXPECT_EQ(step.label.rfind("'mm'", 0), 0u) << step.label;
    if (plan.steps.size() == 2) {
      EXPECT_NE(plan.steps[1].label.find("bias and activation"), std::string::npos);
    }
  }
}

// Products with constant weights: MatMul over a batch of rows, Gemm with B
// transposed, alpha, beta and a row bias, then Relu, a single-row Gemm (a
// CNN's classifier), and a Gemm whose C is a whole matrix.
Model ConstantWeightProduct(int form) {
  std::vector<Node> nodes;
  std::vector<int64_t> x = {2, 5, 24}, y = {2, 5, 40};
  if (form == 0) {
    nodes.push_back(MakeNode("mm", "MatMul", {"x", "w"}, {"y"}));
  } else {
    x = {form == 2 ? 1 : 10, 24};
    y = {x[0], 40};
    Node g = MakeNode("mm", "Gemm", form == 2 ? std::vector<std::string>{"x", "w"} : std::vector<std::string>{"x", "w", "c"},
                      {form == 1 ? "g" : "y"});
    if (form != 2) g.attributes = {IntAttr("transB", 1), FloatAttr("alpha", 0.7f), FloatAttr("beta", 0.3f)};
    nodes.push_back(g);
    if (form == 1) nodes.push_back(MakeNode("relu", "Relu", {"g"}, {"y"}));
  }
  Model m = MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, x)}, {TensorInfo("y", DataType::kFloat, y)});
  auto& init = m.graph->initializers;
  init["w"] = form == 1 || form == 3 ? Seeded({40, 24}, 1, 0.5f) : Seeded({24, 40}, 1, 0.5f);
  if (form == 1) init["c"] = Seeded({40}, 2);
  if (form == 3) init["c"] = Seeded({10, 40}, 2);
  return m;
}

TEST(DnnlPartition, ConstantWeightProductsRunOnTheHostGemmBelowAvx512) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  const bool below_avx512 = dnnl_ep::DnnlIsaInUse().rfind("avx512", 0) != 0;
  const std::vector<int64_t> inputs[] = {{2, 5, 24}, {10, 24}, {1, 24}, {10, 24}};
  for (int form = 0; form < 4; ++form) {
    SCOPED_TRACE("form " + std::to_string(form));
    for (int threads : {1, 2})
      ExpectMatchesCpu([&] { return ConstantWeightProduct(form); }, Seeded(inputs[form], 3, 2.0f), threads, true);
    Model m = ConstantWeightProduct(form);
    dnnl_ep::Plan plan = CompileBlock(m);
    int host = 0, epilogue = 0;
    for (const auto& step : plan.steps) {
      host += !step.primitive && step.label.rfind("'mm'", 0) == 0;
      epilogue += step.label.find("bias and activation") != std::string::npos;
    }
    // A whole-matrix C stays with oneDNN; so does everything with brgemm.
    EXPECT_EQ(host, below_avx512 && form != 3 ? 1 : 0);
    EXPECT_EQ(epilogue, below_avx512 && form == 1 ? 1 : 0) << "bias and Relu in one step after the product";
    if (host == 1) {
      EXPECT_EQ(FlopsOf(plan, "mm"), 2 * inputs[form][inputs[form].size() - 2] * 40 * 24 * (form == 0 ? 2 : 1));
    }
  }
}

// A ShuffleNet unit's tail: two convolutions' outputs concatenated, shuffled
// (Reshape, Transpose, Reshape) and, with split, cut into channel halves by
// two Slices that feed a convolution each; without, one convolution reads it.
Model ShuffleUnit(bool split, int64_t half) {
  const int64_t c = 2 * half;
  std::vector<Node> nodes = {Conv("ca", "x", "wa", "ba", "a"), Conv("cb", "x", "wb", "bb", "b"),
                             MakeNode("cat", "Concat", {"a", "b"}, {"k"}),
                             MakeNode("r5", "Reshape", {"k", "shape5"}, {"k5"}),
                             MakeNode("tr", "Transpose", {"k5"}, {"t5"}),
                             MakeNode("r4", "Reshape", {"t5", "shape4"}, {"s"})};
  nodes[2].attributes = {IntAttr("axis", 1)};
  nodes[4].attributes = {IntsAttr("perm", {0, 2, 1, 3, 4})};
  if (split) {
    nodes.push_back(MakeNode("lo", "Slice", {"s", "start0", "mid", "axis1"}, {"s0"}));
    nodes.push_back(MakeNode("hi", "Slice", {"s", "mid", "big", "axis1"}, {"s1"}));
    nodes.push_back(Conv("c0", "s0", "w0", "b0", "y0"));
    nodes.push_back(Conv("c1", "s1", "w1", "b1", "y1"));
  } else {
    nodes.push_back(Conv("c0", "s", "w0", "b0", "y0"));
  }
  std::vector<ValueInfo> outs = {TensorInfo("y0", DataType::kFloat, {1, 4, 6, 5})};
  if (split) outs.push_back(TensorInfo("y1", DataType::kFloat, {1, 4, 6, 5}));
  Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {1, 8, 6, 5})}, outs);
  auto& init = m.graph->initializers;
  SeedConv(m, "wa", "ba", {half, 8, 3, 3}, 1);
  SeedConv(m, "wb", "bb", {half, 8, 3, 3}, 3);
  init["shape5"] = Tensor::FromVector<int64_t>({1, 2, half, 6, 5}, {5});
  init["shape4"] = Tensor::FromVector<int64_t>({1, -1, 6, 5}, {4});
  init["start0"] = Tensor::FromVector<int64_t>({0}, {1});
  init["mid"] = Tensor::FromVector<int64_t>({half}, {1});
  init["big"] = Tensor::FromVector<int64_t>({std::numeric_limits<int64_t>::max()}, {1});
  init["axis1"] = Tensor::FromVector<int64_t>({1}, {1});
  SeedConv(m, "w0", "b0", {4, split ? half : c, 3, 3}, 5);
  SeedConv(m, "w1", "b1", {4, half, 3, 3}, 7);
  return m;
}

TEST(DnnlPartition, ChannelShuffleAndSplitRunAsOneStep) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  for (bool split : {true, false})
    for (int64_t half : {16, 7}) {  // 7: halves that split a channel pair
      SCOPED_TRACE(std::string(split ? "split" : "whole") + ", half " + std::to_string(half));
      for (int threads : {1, 2}) ExpectMatchesCpu([&] { return ShuffleUnit(split, half); }, Seeded({1, 8, 6, 5}, 11, 3.0f), threads, true);
      Model m = ShuffleUnit(split, half);
      GraphTypes types = InferGraphTypes(*m.graph, [&](const std::string& d) { return m.OpsetFor(d); });
      PartitionDef def;
      def.model = &m;
      def.types = &types;
      for (const auto& n : m.graph->nodes) def.nodes.push_back(&n);
      def.inputs = {"x"};
      for (const auto& [name, t] : m.graph->initializers) def.inputs.push_back(name);
      def.outputs = split ? std::vector<std::string>{"y0", "y1"} : std::vector<std::string>{"y0"};
      dnnl_ep::Plan plan = dnnl_ep::Compiler(def, dnnl::engine(dnnl::engine::kind::cpu, 0)).Compile();
      const bool channels_last = WritesChannelsLast(plan, "ca");
      int shuffles = 0, moves = 0;
      for (const auto& step : plan.steps) {
        if (step.label.find("channel shuffle") != std::string::npos) ++shuffles;
        for (const char* absorbed : {"'r5'", "'tr'", "'r4'", "'lo'", "'hi'"})
          moves += step.label.find(absorbed) != std::string::npos;
      }
      if (!channels_last) continue;  // a blocked layout keeps the general lowering
      EXPECT_EQ(shuffles, 1);
      EXPECT_EQ(moves, 0);
    }
}

TEST(DnnlPartition, ErfOutsideAGeluRunsOnTheVectorizedKernel) {
  if (!DnnlAvailable()) GTEST_SKIP() << "oneDNN EP not built";
  auto build = [] {
    return MakeModel({MakeNode("erf", "Erf", {"x"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {3, 50, 70})},
                     {TensorInfo("y", DataType::kFloat, {3, 50, 70})});
  };
  Session dnnl(build(), Options(2), MakeProviders({"dnnl"}));
  ASSERT_EQ(dnnl.Placement().size(), 1u);
  EXPECT_EQ(dnnl.Placement()[0].provider, "dnnl");
  Tensor x = Seeded({3, 50, 70}, 3, 8.0f);
  auto got = dnnl.Run({{"x", Value(x)}});
  const float* in = x.data<float>();
  const float* out = got[0].tensor().data<float>();
  for (int64_t i = 0; i < x.numel(); ++i)
    ASSERT_NEAR(out[i], std::erf(static_cast<double>(in[i])), 3e-7) << "x = " << in[i];
}

TEST(DnnlPartition, CopiedWeightsAreNotReadAtRunTime) {
  // The runtime frees initializers no kernel reads at run time; the plan
  // says which partition inputs it only read while compiling.
  Model m = Block();
  dnnl_ep::PartitionKernel kernel(CompileBlock(m));
  std::vector<std::string> inputs = {"x"};
  for (const auto& [name, t] : m.graph->initializers) inputs.push_back(name);
  EXPECT_TRUE(kernel.ReadsInput(0)) << "x";
  for (size_t i = 1; i < inputs.size(); ++i) EXPECT_FALSE(kernel.ReadsInput(i)) << inputs[i];
}

TEST(DnnlPartition, ArenaReusesBuffersOfDeadValues) {
  // A chain of eight out-of-place Tanh... each input dies at its consumer, so
  // the chain runs in place in one buffer.
  std::vector<Node> nodes;
  std::string prev = "x";
  for (int i = 0; i < 8; ++i) {
    std::string out = i == 7 ? "y" : "t" + std::to_string(i);
    nodes.push_back(MakeNode("tanh" + std::to_string(i), "Tanh", {prev}, {out}));
    prev = out;
  }
  // Exp first so the chain starts in a buffer of the partition's own.
  nodes.insert(nodes.begin(), MakeNode("exp", "Exp", {"x"}, {"e"}));
  nodes[1].inputs[0] = "e";
  Model m = MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, {64, 64})},
                      {TensorInfo("y", DataType::kFloat, {64, 64})});
  GraphTypes types = InferGraphTypes(*m.graph, [&](const std::string& d) { return m.OpsetFor(d); });
  PartitionDef def;
  def.model = &m;
  def.types = &types;
  for (const auto& n : m.graph->nodes) def.nodes.push_back(&n);
  def.inputs = {"x"};
  def.outputs = {"y"};
  dnnl_ep::Plan plan = dnnl_ep::Compiler(def, dnnl::engine(dnnl::engine::kind::cpu, 0)).Compile();
  const size_t one = 64 * 64 * sizeof(float);
  EXPECT_LE(plan.arena_bytes, one) << "nine values of " << one << " bytes each";
}
#endif

}  // namespace
}  // namespace tessera
