// An inference session: a loaded model, prepared once, run many times
// (concurrently from several threads if the caller wants).
#pragma once

#include <memory>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/base/thread_pool.h"
#include "tessera/ir/graph.h"
#include "tessera/optimizer/pass_manager.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/runtime/compiled_graph.h"
#include "tessera/runtime/profiler.h"
#include "tessera/runtime/session_options.h"

namespace tessera {

using Feeds = std::vector<std::pair<std::string, Value>>;

struct NodePlacement {
  std::string node;
  std::string op_type;
  std::string domain;
  std::string provider;
  std::vector<std::string> declined;  // why each higher-priority provider did not take it
  int partition = 0;                  // run of consecutive nodes on one provider, in execution order
  int64_t flops = -1;                 // estimated per run (ops/flop_estimate.h); -1 = shapes unknown
};

class Session {
 public:
  // providers in priority order; the last one should be the CPU EP.
  // profiler: one already recording (FromFile passes it so loading is traced).
  Session(Model model, const SessionOptions& options, ProviderList providers,
          std::shared_ptr<Profiler> profiler = nullptr);
  // files: external-data files held in memory (format/model_loader.h).
  static std::unique_ptr<Session> FromFile(const std::string& path, const SessionOptions& options,
                                           ProviderList providers, const InMemoryFiles& files = {});
  static std::unique_ptr<Session> FromBytes(const void* data, size_t size, const SessionOptions& options,
                                            ProviderList providers, const InMemoryFiles& files = {});

  // Graph inputs the caller feeds (initializer-backed inputs are optional and
  // not listed) and graph outputs, with their declared types.
  const std::vector<ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ValueInfo>& outputs() const { return outputs_; }
  // The statically inferred type of any value in the main graph (nullptr
  // when neither declared nor inferable before running).
  const TypeInfo* ValueType(const std::string& value_name) const;
  const Model& model() const { return model_; }
  const ProviderList& providers() const { return providers_; }
  std::vector<NodePlacement> Placement() const;
  // The instruction sets the session's kernels run with, one entry per
  // library ("highway" = "AVX2", "onednn" = "avx2", "openblas" =
  // "Haswell"), from its providers; and the same as one line for logs.
  std::vector<std::pair<std::string, std::string>> IsaInUse() const;
  std::string IsaSummary() const;
  // Copy steps inserted where values cross memory spaces (main graph).
  const std::vector<CompiledGraph::Copy>& Copies() const { return graph_->copies(); }

  // Runs the model. output_names empty = all outputs, in graph order.
  // Throws Error with a message naming the feed or node at fault.
  std::vector<Value> Run(const Feeds& feeds, const std::vector<std::string>& output_names = {}) const;

  // What the graph optimizer did at session creation (levels, passes, node
  // counts); empty levels when it was disabled.
  const OptimizerReport& optimizer_report() const { return optimizer_report_; }

  // The memory planner's totals so far (all zero when it is off).
  MemoryPlanStats MemoryStats() const { return graph_->MemoryStats(); }

  // Runs the graph optimizer on `model` as a session with these options and
  // providers would: passes consult the providers' capabilities, constant
  // folding uses the host fallback provider's kernels (none folded without one).
  static OptimizerReport OptimizeModel(Model& model, const SessionOptions& options, const ProviderList& providers,
                                       const Logger& logger);

  // Writes the Chrome trace (profile_file_prefix_<time>.json), stops
  // profiling and returns the file's path; "" when profiling was off.
  std::string EndProfiling();
  // When profiling started (ns since the Unix epoch); 0 when it was off.
  int64_t ProfilingStartTimeNs() const { return profiling_start_ns_; }

 private:
  void ValidateFeed(const ValueInfo& declared, const Value& value) const;
  void CheckFallback() const;
  void Optimize();

  Model model_;
  SessionOptions options_;
  ProviderList providers_;
  Logger logger_;
  std::unique_ptr<ThreadPool> pool_;
  std::shared_ptr<Profiler> profiler_;  // null when profiling is off
  int64_t profiling_start_ns_ = 0;
  std::unique_ptr<CompiledGraph> graph_;
  std::vector<ValueInfo> inputs_;
  std::vector<ValueInfo> outputs_;
  std::unordered_map<std::string, TypeInfo> value_types_;
  OptimizerReport optimizer_report_;
};

}  // namespace tessera
