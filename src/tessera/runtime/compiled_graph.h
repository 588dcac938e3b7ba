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
#include "tessera/runtime/memory_arena.h"
#include "tessera/runtime/profiler.h"

namespace tessera {

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

  // A transfer the runtime inserted between memory spaces.
  struct Copy {
    std::string value;  // the graph value copied
    std::string from;   // memory space
    std::string to;
    // Bytes per run: a number when the value's shape is static, a product of
    // symbolic dims ("batch*seq*4") otherwise, "?" when unknown.
    std::string bytes;
  };
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
  struct Member {
    const Node* node;
    std::vector<std::string> declined;
  };
  struct Step {
    const Node* node = nullptr;  // for a compiled partition, its synthetic node
    std::unique_ptr<OpKernel> kernel;
    size_t provider = 0;
    std::vector<int> inputs;    // -1 = omitted
    std::vector<int> outputs;   // -1 = omitted
    std::vector<int> implicit;  // slots the node's subgraphs read
    std::vector<int> release;   // slots whose last reader is this step
    // Input slots dying here whose buffer the (elementwise) kernel may
    // write its output into.
    std::vector<int> donors;
    bool is_copy = false;
    std::vector<std::string> declined;
    std::vector<Member> members;  // the nodes of a compiled partition
    int partition = -1;           // node steps: the run of one provider they belong to
    int64_t flops = -1;           // estimated per run (ops/flop_estimate.h); -1 = unknown or a copy
  };
  class FrameSubgraphRunner;

  int SlotOf(const std::string& name) const;
  // Step::flops: the node's estimate, or the sum over a partition's members.
  int64_t EstimateStepFlops(const Step& step) const;
  // Replaces runs of steps on providers that compile partitions by one step each.
  void MergeCompiledPartitions(const Model& model);
  // Drops initializers no step reads at run time (weights a compiled
  // partition copied into its own layout), so they are not held twice.
  // step_lists: every step that may still read an initializer.
  void ReleaseUnreadInitializers(std::initializer_list<std::span<const Step>> step_lists);
  // Drops one initializer no node needs any more (InitializerReaders).
  void ReleaseInitializer(const std::string& name);
  // Numbers the runs of consecutive node steps on one provider.
  void NumberPartitions();
  // Fills Step::donors.
  void PlanInPlace(const Model& model);
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
