// A graph prepared for execution: nodes in order, kernels created, every value
// given a slot in a per-run frame, and each slot's last use known so
// intermediates are freed as soon as nothing else reads them.
#pragma once

#include <deque>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/base/thread_pool.h"
#include "tessera/ir/graph.h"
#include "tessera/ops/kernel.h"
#include "tessera/ops/shape_inference.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/partition/placed_step.h"
#include "tessera/runtime/memory_arena.h"
#include "tessera/runtime/profiler.h"

namespace tessera {

class CopyInserter;
struct NodeAssignment;

class CompiledGraph {
 public:
  // outer_names: values this graph reads from enclosing graphs (subgraphs only).
  // num_threads: the session's intra-op thread count, for providers that
  // compile partitions (their libraries size work at compile time);
  // winograd: SessionOptions::winograd_convolutions, for the same.
  CompiledGraph(const Model& model, std::shared_ptr<Graph> graph, const ProviderList& providers,
                const std::vector<std::string>& outer_names, const Logger& logger, int num_threads = 1,
                bool winograd = true);

  // inputs follow graph().inputs order (an empty Value for an omitted input);
  // outer follows outer_names order. Returns the graph outputs in order.
  // With a profiler, every executed node (and each run of consecutive nodes on
  // one provider, a partition) is recorded as a trace event.
  std::vector<Value> Execute(std::vector<Value> inputs, const std::vector<const Value*>& outer, ThreadPool* pool,
                             Profiler* profiler = nullptr) const;

  const Graph& graph() const { return *graph_; }
  const std::vector<std::string>& outer_names() const { return outer_names_; }
  struct NodeSite {
    const Node* node;
    std::string provider;
    std::vector<std::string> declined;  // "<ep>: <reason>" per higher-priority EP
    int partition = 0;  // index of the run of consecutive nodes on one provider
  };
  // Where each node runs, in execution order (copy steps excluded).
  std::vector<NodeSite> Placement() const;

  // A transfer inserted between memory spaces (partition/copy_insertion.h).
  using Copy = MemoryCopy;
  const std::vector<Copy>& copies() const { return copies_; }
  // Initializers placed in a device's memory once, at compile time.
  const std::vector<Copy>& uploads() const { return uploads_; }
  // Static types and constants inferred at compile time.
  const GraphTypes& types() const { return types_; }

  // The memory planner (memory_arena.h): on by default, with at most
  // `max_patterns` idle arenas (input-shape patterns) kept; applies to the
  // subgraphs too. Not to be called while the graph executes.
  void ConfigureMemory(bool enabled, size_t max_patterns);
  // The planner's totals, this graph and its subgraphs together.
  MemoryPlanStats MemoryStats() const;

 private:
  // A step of the execution order (partition/placed_step.h).
  using Step = PlacedStep;
  class FrameSubgraphRunner;

  // The slot of a value, made on first use; SlotOf: one that exists.
  int Slot(const std::string& name);
  int SlotOf(const std::string& name) const;
  // Compilation, in the constructor's order: the node steps (with the
  // copies their inputs need, their subgraphs and kernels), the graph
  // outputs back on the host, partition merging, and when each slot dies.
  void AddNodeSteps(const Model& model, const std::vector<NodeAssignment>& assignment, CopyInserter& copies,
                    const Logger& logger);
  void CompileSubgraphs(const Model& model, const Node& node, Step& step, CopyInserter& copies,
                        const Logger& logger);
  std::unique_ptr<OpKernel> CreateKernel(const Model& model, const Node& node, const NodeAssignment& assignment,
                                         int64_t opset) const;
  void PlaceOutputsOnHost(CopyInserter& copies);
  void MergePartitions(const Model& model);
  void LogPlacement(const Logger& logger) const;
  // Fills Step::release: each slot dies after its last reader.
  void PlanReleases();
  // Step::flops: the node's estimate, or the sum over a partition's members.
  int64_t EstimateStepFlops(const Step& step) const;
  // Drops initializers no step reads at run time (weights a compiled
  // partition copied into its own layout), so they are not held twice.
  // step_lists: every step that may still read an initializer.
  void ReleaseUnreadInitializers(std::initializer_list<std::span<const Step>> step_lists);
  // Drops one initializer no node needs any more (InitializerReaders).
  void ReleaseInitializer(const std::string& name);
  // Fills Step::donors.
  void PlanInPlace();
  void RecordNode(Profiler* profiler, const Step& step, int64_t start_us, const std::vector<const Value*>& inputs,
                  const std::vector<int>& output_slots, const std::vector<Value>& frame) const;

  std::shared_ptr<Graph> graph_;
  ProviderList providers_;
  std::vector<std::string> outer_names_;
  int num_threads_ = 1;
  bool winograd_ = true;
  std::unordered_map<std::string, int> slots_;
  int num_slots_ = 0;
  std::vector<std::pair<int, Tensor>> initializer_slots_;
  std::vector<int> input_slots_;
  std::vector<int> outer_slots_;
  std::vector<int> output_slots_;
  std::vector<Step> steps_;
  std::unordered_map<const Graph*, std::unique_ptr<CompiledGraph>> subgraphs_;
  std::deque<Node> synthetic_nodes_;  // nodes of copy and partition steps (stable addresses)
  std::vector<Copy> copies_;
  std::vector<Copy> uploads_;
  GraphTypes types_;
  std::shared_ptr<ArenaPool> arenas_ = std::make_shared<ArenaPool>(2);  // null: planner off
  std::unordered_map<std::string, std::string> host_alias_;  // device value -> its host copy, for subgraph reads
};

}  // namespace tessera
