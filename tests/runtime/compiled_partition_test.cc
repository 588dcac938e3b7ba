// Providers that compile whole partitions: the runtime hands them each run
// of consecutive claimed nodes once and runs the result as a single step.
#include <deque>
#include <map>

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

// Runs a partition's nodes in order with the CPU kernels on a private map of
// values, as a graph compiler's generated code would.
class PartitionKernel final : public OpKernel {
 public:
  explicit PartitionKernel(const PartitionDef& def) : def_(def) {
    for (const Node* n : def.nodes) {
      nodes_.push_back(*n);
      std::string why;
      const KernelRow* row = CpuKernelTable().Find(n->domain, n->op_type, def.model->OpsetFor(n->domain), &why);
      if (row == nullptr) TS_THROW(kInternal, why);
      kernels_.push_back(row->create(KernelInfo(nodes_.back(), def.model->OpsetFor(n->domain))));
    }
  }
  void Compute(KernelContext& ctx) const override {
    std::map<std::string, Value> values;
    for (size_t i = 0; i < def_.inputs.size(); ++i) values[def_.inputs[i]] = ctx.input_value(i);
    for (size_t k = 0; k < nodes_.size(); ++k) {
      std::vector<const Value*> ins;
      for (const auto& in : nodes_[k].inputs) ins.push_back(&values.at(in));
      std::vector<Value> outs(nodes_[k].outputs.size());
      KernelContext sub(nodes_[k], ins, &outs, ctx.thread_pool(), nullptr);
      kernels_[k]->Compute(sub);
      for (size_t o = 0; o < outs.size(); ++o) values[nodes_[k].outputs[o]] = std::move(outs[o]);
    }
    for (size_t o = 0; o < def_.outputs.size(); ++o) ctx.set_output(o, values.at(def_.outputs[o]));
  }

 private:
  PartitionDef def_;
  std::deque<Node> nodes_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
};

class CompilingProvider : public ExecutionProvider {
 public:
  CompilingProvider() : table_("compiler", Rows()) {}
  std::string name() const override { return "compiler"; }
  std::string memory_space() const override { return "compiler"; }
  Tensor CopyFromHost(const Tensor& t) const override { return t.Clone(); }
  Tensor CopyToHost(const Tensor& t) const override { return t.Clone(); }
  const KernelTable& kernels() const override { return table_; }
  bool CompilesPartitions() const override { return true; }
  std::unique_ptr<OpKernel> CompilePartition(const PartitionDef& def) const override {
    std::vector<std::string> names;
    for (const Node* n : def.nodes) names.push_back(n->name);
    compiled.push_back({names, def.inputs, def.outputs});
    return std::make_unique<PartitionKernel>(def);
  }
  struct Compiled {
    std::vector<std::string> nodes, inputs, outputs;
  };
  mutable std::vector<Compiled> compiled;

 private:
  static std::vector<KernelRow> Rows() {
    std::vector<KernelRow> rows;
    for (const auto& r : CpuKernelTable().rows())
      if (r.op_type == "Relu" || r.op_type == "Add" || r.op_type == "Sigmoid") rows.push_back(r);
    return rows;
  }
  KernelTable table_;
};

// relu, add (compiler) -> sign (cpu) -> sigmoid, relu2 (compiler); b is both
// a graph output and read by the cpu node.
Model TwoPartitions() {
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"a"}), MakeNode("add", "Add", {"a", "bias"}, {"b"}),
                       MakeNode("sign", "Sign", {"b"}, {"c"}), MakeNode("sigmoid", "Sigmoid", {"c"}, {"d"}),
                       MakeNode("relu2", "Relu", {"d"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3})},
                      {TensorInfo("y", DataType::kFloat, {2, 3}), TensorInfo("b", DataType::kFloat, {2, 3})});
  m.graph->initializers["bias"] = Tensor::FromVector<float>({-1, 0, 1}, {3});
  return m;
}

TEST(CompiledPartitions, EachRunOfClaimedNodesBecomesOneStep) {
  auto compiler = std::make_shared<CompilingProvider>();
  SessionOptions opts;
  opts.graph_optimization_level = OptimizationLevel::kDisabled;
  opts.enable_profiling = true;
  opts.profile_file_prefix = ::testing::TempDir() + "tessera_compiled_partition";
  Session s(TwoPartitions(), opts, {compiler, MakeCpuExecutionProvider()});

  ASSERT_EQ(compiler->compiled.size(), 2u);
  EXPECT_EQ(compiler->compiled[0].nodes, (std::vector<std::string>{"relu", "add"}));
  EXPECT_EQ(compiler->compiled[0].inputs, (std::vector<std::string>{"x", "bias"}));
  EXPECT_EQ(compiler->compiled[0].outputs, (std::vector<std::string>{"b"}));  // "a" stays inside
  EXPECT_EQ(compiler->compiled[1].nodes, (std::vector<std::string>{"sigmoid", "relu2"}));
  EXPECT_EQ(compiler->compiled[1].inputs, (std::vector<std::string>{"c"}));
  EXPECT_EQ(compiler->compiled[1].outputs, (std::vector<std::string>{"y"}));

  std::vector<std::pair<std::string, int>> placed;
  for (const auto& p : s.Placement()) placed.push_back({p.node + "@" + p.provider, p.partition});
  EXPECT_EQ(placed, (std::vector<std::pair<std::string, int>>{
                        {"relu@compiler", 0}, {"add@compiler", 0}, {"sign@cpu", 1}, {"sigmoid@compiler", 2},
                        {"relu2@compiler", 2}}));

  Tensor x = Tensor::FromVector<float>({-2, -0.5f, 0, 0.5f, 1, 3}, {2, 3});
  std::vector<Value> out = s.Run({{"x", x}});
  Session cpu(TwoPartitions(), SessionOptions{}, MakeProviders({"cpu"}));
  std::vector<Value> ref = cpu.Run({{"x", x}});
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    CompareResult c = CompareValues(out[i], ref[i], 1e-6, 1e-7);
    EXPECT_TRUE(c.match) << i << ": " << c.message;
  }

  // One trace event per compiled partition, naming its nodes.
  Json trace = ParseJson(ReadFileToString(s.EndProfiling()));
  int partition_events = 0;
  for (const Json& e : trace.Find("traceEvents")->array) {
    if (e.StringOr("cat", "") != "node" || e.Find("args")->StringOr("op_type", "") != "CompiledPartition") continue;
    ++partition_events;
    EXPECT_EQ(e.Find("args")->Find("nodes")->array.size(), 2u);
  }
  EXPECT_EQ(partition_events, 2);
}

}  // namespace
}  // namespace tessera
