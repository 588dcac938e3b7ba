// Copy steps between memory spaces, checked with a provider whose "device"
// memory is host memory in disguise: every transfer is counted.
#include <atomic>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/base/json.h"
#include "tessera/base/mapped_file.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

// Claims Relu and Add (reusing the CPU kernels) and keeps its values in "fake" memory.
class FakeDeviceProvider : public ExecutionProvider {
 public:
  FakeDeviceProvider() : table_("fake", Rows()) {}
  std::string name() const override { return "fake"; }
  std::string memory_space() const override { return "fake"; }
  const KernelTable& kernels() const override { return table_; }
  Tensor CopyFromHost(const Tensor& t) const override {
    ++to_device;
    return t.Clone();
  }
  Tensor CopyToHost(const Tensor& t) const override {
    ++to_host;
    return t.Clone();
  }
  mutable std::atomic<int> to_device{0};
  mutable std::atomic<int> to_host{0};

 private:
  static std::vector<KernelRow> Rows() {
    std::vector<KernelRow> rows;
    for (const auto& r : CpuKernelTable().rows())
      if (r.op_type == "Relu" || r.op_type == "Add") rows.push_back(r);
    return rows;
  }
  KernelTable table_;
};

// x -> Relu (fake) -> Sigmoid (cpu) -> Add(., bias) (fake) -> y, plus Relu's
// output read again by a cpu Neg: one copy per value per destination.
Model Scattered() {
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("sig", "Sigmoid", {"r"}, {"s"}),
                       MakeNode("neg", "Neg", {"r"}, {"n"}), MakeNode("add", "Add", {"s", "bias"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3})},
                      {TensorInfo("y", DataType::kFloat, {2, 3}), TensorInfo("n", DataType::kFloat, {2, 3})});
  m.graph->initializers["bias"] = Tensor::FromVector<float>({1, 2, 3}, {3});
  return m;
}

TEST(CopyInsertion, OneCopyPerValuePerDestinationAndResultsMatchCpu) {
  auto fake = std::make_shared<FakeDeviceProvider>();
  SessionOptions opts;
  opts.enable_profiling = true;
  opts.profile_file_prefix = ::testing::TempDir() + "tessera_copy_test";
  Session mixed(Scattered(), opts, {fake, MakeCpuExecutionProvider()});
  Session cpu_only(Scattered(), SessionOptions{}, MakeProviders({"cpu"}));

  std::map<std::string, std::string> placed;
  for (const auto& p : mixed.Placement()) placed[p.node] = p.provider;
  EXPECT_EQ(placed, (std::map<std::string, std::string>{{"relu", "fake"}, {"sig", "cpu"}, {"neg", "cpu"},
                                                        {"add", "fake"}}));
  // Per run: x to fake; r to host (shared by sig and neg); s to fake; y back
  // to host. The constant bias moves to fake once, at session creation.
  std::set<std::string> copies;
  for (const auto& c : mixed.Copies()) copies.insert(c.value + ":" + c.from + "->" + c.to);
  EXPECT_EQ(copies, (std::set<std::string>{"x:host->fake", "r:fake->host", "s:host->fake", "y:fake->host"}));
  EXPECT_EQ(fake->to_device.load(), 1);  // the bias upload

  Tensor x = Tensor::FromVector<float>({-1, 2, -3, 4, -5, 6}, {2, 3});
  auto a = mixed.Run({{"x", x}});
  auto b = cpu_only.Run({{"x", x}});
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(CompareValues(a[i], b[i], 0, 0).match) << i;
  EXPECT_EQ(fake->to_device.load(), 3);  // bias once + x and s
  EXPECT_EQ(fake->to_host.load(), 2);

  // The profile shows each copy as an event of its own, with its bytes.
  Json trace = ParseJson(ReadFileToString(mixed.EndProfiling()));
  int copy_events = 0, node_events = 0;
  for (const Json& e : trace.Find("traceEvents")->array) {
    if (e.StringOr("cat", "") == "copy") {
      ++copy_events;
      EXPECT_NE(e.Find("args")->Find("bytes"), nullptr);
    }
    if (e.StringOr("cat", "") == "node") ++node_events;
  }
  EXPECT_EQ(copy_events, 4);
  EXPECT_EQ(node_events, 4);
}

TEST(CopyInsertion, HostOnlyProvidersNeedNoCopies) {
  Session s(Scattered(), SessionOptions{}, MakeProviders({"cpu"}));
  EXPECT_TRUE(s.Copies().empty());
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(CpuFallback, DisableCpuFallbackListsEveryUnclaimedNodeWithReasons) {
  auto fake = std::make_shared<FakeDeviceProvider>();
  SessionOptions opts;
  opts.disable_cpu_fallback = true;
  Status st = CatchStatus([&] { Session s(Scattered(), opts, {fake, MakeCpuExecutionProvider()}); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("2 node(s) would fall back to cpu"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("node 'sig' (Sigmoid): [fake: fake has no kernel for ai.onnx:Sigmoid]"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("node 'neg' (Neg)"), std::string::npos) << st.message();
}

TEST(CpuFallback, AllowedByDefaultAndWhenEveryNodeIsClaimed) {
  auto fake = std::make_shared<FakeDeviceProvider>();
  Session allowed(Scattered(), SessionOptions{}, {fake, MakeCpuExecutionProvider()});
  EXPECT_EQ(allowed.Placement()[1].declined.size(), 1u);  // sig: the fake provider said why
  SessionOptions strict;
  strict.disable_cpu_fallback = true;
  Model claimed = MakeModel({MakeNode("relu", "Relu", {"x"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {2})},
                            {TensorInfo("y", DataType::kFloat, {2})});
  Session s(claimed, strict, {fake, MakeCpuExecutionProvider()});
  EXPECT_EQ(s.Placement()[0].provider, "fake");
}

TEST(CpuFallback, PolicyFailsOnTooLargeAShareOrTooManyPartitions) {
  auto fake = std::make_shared<FakeDeviceProvider>();
  SessionOptions share;
  share.max_cpu_fallback_share = 0.25;  // 2 of 4 nodes fall back
  share.fallback_policy_fail = true;
  Status st = CatchStatus([&] { Session s(Scattered(), share, {fake, MakeCpuExecutionProvider()}); });
  EXPECT_NE(st.message().find("2 of 4 nodes fall back to cpu"), std::string::npos) << st.message();
  SessionOptions parts;
  parts.max_partitions = 2;  // fake | cpu | fake
  parts.fallback_policy_fail = true;
  st = CatchStatus([&] { Session s(Scattered(), parts, {fake, MakeCpuExecutionProvider()}); });
  EXPECT_NE(st.message().find("partitions (limit 2)"), std::string::npos) << st.message();
  parts.fallback_policy_fail = false;  // warn only
  EXPECT_TRUE(CatchStatus([&] { Session s(Scattered(), parts, {fake, MakeCpuExecutionProvider()}); }).ok());
}

TEST(CopyInsertion, FallbackPolicyOnEstimatedFlops) {
  // relu and add run on fake (12 element-ops), sig and neg fall back (12):
  // half the estimated FLOPs.
  auto fake = std::make_shared<FakeDeviceProvider>();
  SessionOptions opts;
  opts.graph_optimization_level = OptimizationLevel::kDisabled;
  opts.fallback_policy_fail = true;
  opts.max_cpu_fallback_flops_share = 0.6;
  EXPECT_NO_THROW(Session(Scattered(), opts, {fake, MakeCpuExecutionProvider()}));
  opts.max_cpu_fallback_flops_share = 0.4;
  Status st = CatchStatus([&] { Session s(Scattered(), opts, {fake, MakeCpuExecutionProvider()}); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("50% of the estimated FLOPs (12 of 24)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'sig'"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace tessera
