// CompiledGraph: the execution order, value slots, kernels and subgraphs
// of a graph, and each value's lifetime (freed after its last reader,
// buffers donated in place). Node assignment, copy insertion and partition
// merging are partition/'s (assignment.h, copy_insertion.h,
// partition_merging.h).
#include "tessera/runtime/compiled_graph.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "tessera/ops/flop_estimate.h"
#include "tessera/partition/assignment.h"
#include "tessera/partition/copy_insertion.h"
#include "tessera/partition/partition_merging.h"
#include "tessera/runtime/initializer_readers.h"

namespace tessera {

namespace {

std::vector<std::shared_ptr<Graph>> SubgraphsOf(const Node& node) {
  std::vector<std::shared_ptr<Graph>> subs;
  for (const auto& a : node.attributes) {
    if (a.g) subs.push_back(a.g);
    for (const auto& g : a.graphs) subs.push_back(g);
  }
  return subs;
}

// Records a kernel's own sub-steps (a compiled partition's primitives and
// reorders) as trace events next to the step's node event.
class ProfilerStepTracer final : public StepTracer {
 public:
  ProfilerStepTracer(Profiler& profiler, std::string provider, int partition)
      : profiler_(profiler), provider_(std::move(provider)), partition_(partition) {}
  int64_t NowMicros() const override { return profiler_.NowMicros(); }
  void Step(const StepRecord& step) override {
    TraceEvent e;
    e.name = std::string(step.name);
    e.category = step.reorder ? "reorder" : "step";
    e.start_us = step.start_us;
    e.duration_us = step.duration_us;
    e.thread_id = Profiler::CurrentThreadId();
    e.args = {{"provider", Profiler::Quote(provider_)},
              {"partition", std::to_string(partition_)},
              {"bytes", std::to_string(step.bytes)}};
    if (!step.implementation.empty())
      e.args.emplace_back("implementation", Profiler::Quote(std::string(step.implementation)));
    if (step.flops >= 0) e.args.emplace_back("flops", std::to_string(step.flops));
    profiler_.Record(std::move(e));
  }

 private:
  Profiler& profiler_;
  std::string provider_;
  int partition_;
};

}  // namespace

class CompiledGraph::FrameSubgraphRunner : public SubgraphRunner {
 public:
  FrameSubgraphRunner(const CompiledGraph& owner, const std::vector<Value>& frame, ThreadPool* pool,
                      Profiler* profiler)
      : owner_(owner), frame_(frame), pool_(pool), profiler_(profiler) {}

  std::vector<Value> Run(const Graph& graph, const std::vector<Value>& inputs) override {
    auto it = owner_.subgraphs_.find(&graph);
    if (it == owner_.subgraphs_.end()) TS_THROW(kInternal, "subgraph '", graph.name, "' was not compiled");
    const CompiledGraph& sub = *it->second;
    std::vector<const Value*> outer;
    outer.reserve(sub.outer_names_.size());
    for (const auto& name : sub.outer_names_) {
      auto alias = owner_.host_alias_.find(name);
      const std::string& held = alias == owner_.host_alias_.end() ? name : alias->second;
      outer.push_back(&frame_[static_cast<size_t>(owner_.SlotOf(held))]);
    }
    return sub.Execute(inputs, outer, pool_, profiler_);
  }

 private:
  const CompiledGraph& owner_;
  const std::vector<Value>& frame_;
  ThreadPool* pool_;
  Profiler* profiler_;
};

namespace {
std::string DescribeForTrace(const Value* v) {
  if (v == nullptr || v->empty()) return "\"\"";
  if (v->is_tensor()) return Profiler::Quote(v->tensor().Describe());
  return Profiler::Quote(v->Describe());
}

// A node whose shapes were not static at session creation (a symbolic
// batch): its estimate from the tensors this run actually had, and the
// static types of inputs no longer in the frame (weights a kernel packed).
int64_t FlopsFromRunShapes(const Node& node, const GraphTypes& types, const std::vector<const Value*>& inputs,
                           const std::vector<int>& output_slots, const std::vector<Value>& frame) {
  GraphTypes run;
  auto add = [&](const std::string& name, const Value* v) {
    if (name.empty()) return;
    if (v == nullptr || !v->is_tensor()) {
      if (auto it = types.types.find(name); it != types.types.end()) run.types.emplace(name, it->second);
      return;
    }
    std::vector<Dim> dims;
    for (int64_t d : v->tensor().shape()) dims.push_back(Dim::Known(d));
    run.types.emplace(name, TypeInfo::Tensor(v->tensor().dtype(), std::move(dims)));
  };
  for (size_t i = 0; i < inputs.size() && i < node.inputs.size(); ++i) add(node.inputs[i], inputs[i]);
  for (size_t i = 0; i < output_slots.size() && i < node.outputs.size(); ++i)
    if (output_slots[i] >= 0) add(node.outputs[i], &frame[static_cast<size_t>(output_slots[i])]);
  return EstimateFlops(node, run);
}
}  // namespace

void CompiledGraph::RecordNode(Profiler* profiler, const Step& step, int64_t start_us,
                               const std::vector<const Value*>& inputs, const std::vector<int>& output_slots,
                               const std::vector<Value>& frame) const {
  TraceEvent e;
  e.name = step.node->name;
  e.category = step.is_copy ? "copy" : "node";
  e.start_us = start_us;
  e.duration_us = profiler->NowMicros() - start_us;
  e.thread_id = Profiler::CurrentThreadId();
  std::string ins = "[", outs = "[";
  for (size_t i = 0; i < inputs.size(); ++i) ins += (i ? ", " : "") + DescribeForTrace(inputs[i]);
  for (size_t i = 0; i < output_slots.size(); ++i)
    outs += (i ? ", " : "") +
            DescribeForTrace(output_slots[i] < 0 ? nullptr : &frame[static_cast<size_t>(output_slots[i])]);
  e.args = {{"op_type", Profiler::Quote(step.node->op_type)},
            {"domain", Profiler::Quote(step.node->domain)},
            {"provider", Profiler::Quote(providers_[step.provider]->name())},
            {"graph", Profiler::Quote(graph_->name)},
            {"inputs", ins + "]"},
            {"outputs", outs + "]"}};
  if (!step.is_copy) e.args.emplace_back("partition", std::to_string(step.partition));
  int64_t flops = step.flops;
  if (flops < 0 && !step.is_copy && step.members.empty())
    flops = FlopsFromRunShapes(*step.node, types_, inputs, output_slots, frame);
  if (flops >= 0) e.args.emplace_back("flops", std::to_string(flops));
  if (!step.members.empty()) {
    std::string names = "[";
    for (size_t i = 0; i < step.members.size(); ++i)
      names += (i ? ", " : "") + Profiler::Quote(step.members[i].node->name);
    e.args.emplace_back("nodes", names + "]");
  }
  if (step.is_copy && !inputs.empty() && inputs[0] != nullptr && inputs[0]->is_tensor())
    e.args.emplace_back("bytes", std::to_string(inputs[0]->tensor().nbytes()));
  profiler->Record(std::move(e));
}

int64_t CompiledGraph::EstimateStepFlops(const Step& step) const {
  if (step.is_copy) return -1;
  if (step.members.empty()) return EstimateFlops(*step.node, types_);
  int64_t total = 0;
  for (const auto& m : step.members) {
    const int64_t f = EstimateFlops(*m.node, types_);
    if (f < 0) return -1;  // a partial sum would overstate the rate
    total += f;
  }
  return total;
}

int CompiledGraph::SlotOf(const std::string& name) const {
  auto it = slots_.find(name);
  if (it == slots_.end()) TS_THROW(kInternal, "value '", name, "' has no slot");
  return it->second;
}

int CompiledGraph::Slot(const std::string& name) {
  auto [it, inserted] = slots_.emplace(name, num_slots_);
  if (inserted) ++num_slots_;
  return it->second;
}

CompiledGraph::CompiledGraph(const Model& model, std::shared_ptr<Graph> graph, const ProviderList& providers,
                             const std::vector<std::string>& outer_names, const Logger& logger, int num_threads,
                             bool winograd)
    : graph_(std::move(graph)),
      providers_(providers),
      outer_names_(outer_names),
      num_threads_(num_threads),
      winograd_(winograd) {
  Graph& g = *graph_;
  g.SortTopologically(outer_names_);
  for (const auto& name : outer_names_) outer_slots_.push_back(Slot(name));
  for (const auto& [name, t] : g.initializers) initializer_slots_.emplace_back(Slot(name), t);
  for (const auto& in : g.inputs) input_slots_.push_back(Slot(in.name));

  types_ = InferGraphTypes(g, [&](const std::string& d) { return model.OpsetFor(d); });
  std::vector<NodeAssignment> assignment = AssignNodes(model, g, providers_, &types_);
  CopyInserter copies(g, providers_, types_, [this](const std::string& name) { return Slot(name); },
                      CopySinks{steps_, initializer_slots_, synthetic_nodes_, copies_, uploads_});
  AddNodeSteps(model, assignment, copies, logger);
  PlaceOutputsOnHost(copies);
  MergePartitions(model);
  ReleaseUnreadInitializers({steps_});
  NumberPartitions(steps_);
  for (Step& step : steps_) step.flops = EstimateStepFlops(step);
  if (logger.Enabled(Severity::kVerbose)) LogPlacement(logger);
  PlanReleases();
  PlanInPlace();
}

void CompiledGraph::AddNodeSteps(const Model& model, const std::vector<NodeAssignment>& assignment,
                                 CopyInserter& copies, const Logger& logger) {
  const Graph& g = *graph_;
  InitializerReaders readers(g);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& node = g.nodes[i];
    Step step;
    step.node = &node;
    step.provider = assignment[i].provider_index;
    step.declined = assignment[i].declined;
    step.in_place_inputs = assignment[i].row->in_place_inputs;
    const ExecutionProvider& ep = *providers_[step.provider];
    const std::string node_space = ep.memory_space();
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const std::string& in = node.inputs[k];
      std::string target = ep.InputOnHost(*assignment[i].row, k) ? std::string(kHostSpace) : node_space;
      step.inputs.push_back(in.empty() ? -1 : Slot(copies.Place(in, target, step.provider)));
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const std::string& out = node.outputs[k];
      step.outputs.push_back(out.empty() ? -1 : Slot(out));
      if (!out.empty() && node_space != kHostSpace && !ep.OutputOnHost(*assignment[i].row, k))
        copies.SetSpace(out, node_space);
    }
    CompileSubgraphs(model, node, step, copies, logger);
    int64_t opset = model.OpsetFor(node.domain);
    if (!ep.CompilesPartitions()) step.kernel = CreateKernel(model, node, assignment[i], opset);
    for (const std::string& name : readers.KernelCreated(node, step.kernel.get())) ReleaseInitializer(name);
    if (logger.Enabled(Severity::kVerbose)) {
      std::string why;
      for (const auto& d : step.declined) why += (why.empty() ? " (declined by " : "; ") + d;
      if (!why.empty()) why += ")";
      TS_LOG(logger, kVerbose,
             "node " << node.name << " [" << node.domain << ":" << node.op_type << "-" << opset << "] -> "
                     << ep.name() << why);
    }
    steps_.push_back(std::move(step));
  }
}

// Values the node's subgraphs read from this graph must live until it runs.
void CompiledGraph::CompileSubgraphs(const Model& model, const Node& node, Step& step, CopyInserter& copies,
                                     const Logger& logger) {
  for (const auto& sub : SubgraphsOf(node)) {
    std::vector<std::string> free = sub->FreeVariables();
    for (const auto& name : free) {
      // Subgraph bodies read outer values in host memory (they make their
      // own copies for their device nodes).
      std::string on_host = copies.Place(name, kHostSpace, step.provider);
      if (on_host != name) host_alias_[name] = on_host;
      step.implicit.push_back(Slot(on_host));
    }
    subgraphs_[sub.get()] = std::make_unique<CompiledGraph>(model, sub, providers_, free, logger, num_threads_, winograd_);
  }
}

std::unique_ptr<OpKernel> CompiledGraph::CreateKernel(const Model& model, const Node& node,
                                                      const NodeAssignment& assignment, int64_t opset) const {
  KernelInfo info(node, opset, graph_.get());
  try {
    return assignment.row->create(info);
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find(node.Label()) == std::string::npos) msg = "node " + node.Label() + ": " + msg;
    throw Error(e.code(), "model '" + model.DisplayName() + "': " + msg);
  }
}

void CompiledGraph::PlaceOutputsOnHost(CopyInserter& copies) {
  for (const auto& out : graph_->outputs) {
    if (!slots_.count(out.name))
      TS_THROW(kInvalidModel, "graph '", graph_->name, "': output '", out.name, "' is not produced by any node");
    output_slots_.push_back(Slot(copies.Place(out.name, kHostSpace, 0)));
  }
}

void CompiledGraph::MergePartitions(const Model& model) {
  PartitionMergeInputs in{model, providers_, types_, graph_->name, num_threads_, winograd_, {}, output_slots_};
  in.slot_names.resize(static_cast<size_t>(num_slots_));
  for (const auto& [name, s] : slots_) in.slot_names[static_cast<size_t>(s)] = name;
  MergeCompiledPartitions(in, steps_, synthetic_nodes_,
                          [this](std::initializer_list<std::span<const Step>> step_lists) {
                            ReleaseUnreadInitializers(step_lists);
                          });
}

// The same partitions and copies as Placement(), copies() and the profile.
void CompiledGraph::LogPlacement(const Logger& logger) const {
  const Graph& g = *graph_;
  std::vector<NodeSite> sites = Placement();
  for (size_t i = 0; i < sites.size();) {
    size_t j = i;
    while (j < sites.size() && sites[j].partition == sites[i].partition) ++j;
    TS_LOG(logger, kVerbose,
           "partition " << sites[i].partition << " [" << g.name << "] -> " << sites[i].provider << ": " << (j - i)
                        << " node(s), " << sites[i].node->name << " .. " << sites[j - 1].node->name);
    i = j;
  }
  for (const auto& c : uploads_)
    TS_LOG(logger, kVerbose,
           "upload " << c.value << " [" << g.name << "] " << c.from << " -> " << c.to << ", " << c.bytes
                     << " bytes once at session creation");
  for (const auto& c : copies_)
    TS_LOG(logger, kVerbose,
           "copy " << c.value << " [" << g.name << "] " << c.from << " -> " << c.to << ", " << c.bytes
                   << " bytes per run");
}

void CompiledGraph::PlanReleases() {
  std::vector<int> last_use(static_cast<size_t>(num_slots_), -1);
  for (size_t k = 0; k < steps_.size(); ++k) {
    for (int s : steps_[k].inputs)
      if (s >= 0) last_use[static_cast<size_t>(s)] = static_cast<int>(k);
    for (int s : steps_[k].implicit) last_use[static_cast<size_t>(s)] = static_cast<int>(k);
  }
  std::unordered_set<int> keep(output_slots_.begin(), output_slots_.end());
  for (int s = 0; s < num_slots_; ++s) {
    int u = last_use[static_cast<size_t>(s)];
    if (u >= 0 && !keep.count(s)) steps_[static_cast<size_t>(u)].release.push_back(s);
  }
}

namespace {

std::string ShapeSignature(const std::vector<Value>& inputs) {
  std::string sig;
  for (const auto& v : inputs) {
    if (v.is_tensor()) {
      sig += std::to_string(static_cast<int>(v.tensor().dtype()));
      for (int64_t d : v.tensor().shape()) sig += "," + std::to_string(d);
    }
    sig += ";";
  }
  return sig;
}

}  // namespace

void CompiledGraph::PlanInPlace() {
  std::unordered_set<int> constants;
  for (const auto& [s, t] : initializer_slots_) constants.insert(s);
  constants.insert(outer_slots_.begin(), outer_slots_.end());
  for (auto& step : steps_) {
    if (step.is_copy || !step.members.empty() || step.in_place_inputs == 0) continue;
    std::unordered_set<int> dying(step.release.begin(), step.release.end());
    for (size_t k = 0; k < step.inputs.size() && k < 32; ++k) {
      const int s = step.inputs[k];
      if ((step.in_place_inputs >> k & 1u) != 0 && s >= 0 && dying.count(s) && !constants.count(s) &&
          std::find(step.donors.begin(), step.donors.end(), s) == step.donors.end())
        step.donors.push_back(s);
    }
  }
}

void CompiledGraph::ConfigureMemory(bool enabled, size_t max_patterns) {
  arenas_ = enabled ? std::make_shared<ArenaPool>(max_patterns) : nullptr;
  for (auto& [g, sub] : subgraphs_) sub->ConfigureMemory(enabled, max_patterns);
}

MemoryPlanStats CompiledGraph::MemoryStats() const {
  MemoryPlanStats total = arenas_ ? arenas_->Stats() : MemoryPlanStats{};
  for (const auto& [g, sub] : subgraphs_) {
    MemoryPlanStats s = sub->MemoryStats();
    total.arenas += s.arenas;
    total.idle_arenas += s.idle_arenas;
    total.bytes_held += s.bytes_held;
    total.peak_bytes_held += s.peak_bytes_held;
    total.blocks_created += s.blocks_created;
    total.blocks_reused += s.blocks_reused;
    total.in_place += s.in_place;
    total.blocks_trimmed += s.blocks_trimmed;
  }
  return total;
}

void CompiledGraph::ReleaseInitializer(const std::string& name) {
  const int s = SlotOf(name);
  std::erase_if(initializer_slots_, [s](const std::pair<int, Tensor>& e) { return e.first == s; });
  graph_->initializers.erase(name);
  types_.constants.erase(name);
}

void CompiledGraph::ReleaseUnreadInitializers(std::initializer_list<std::span<const Step>> step_lists) {
  std::unordered_set<int> read;
  read.insert(output_slots_.begin(), output_slots_.end());
  read.insert(input_slots_.begin(), input_slots_.end());  // a feed may override it
  for (std::span<const Step> steps : step_lists)
    for (const Step& step : steps) {
      read.insert(step.implicit.begin(), step.implicit.end());
      // A step without a kernel yet (a node still to be merged into a
      // compiled partition) counts as reading all its inputs.
      for (size_t k = 0; k < step.inputs.size(); ++k)
        if (step.inputs[k] >= 0 && (!step.kernel || step.kernel->ReadsInput(k))) read.insert(step.inputs[k]);
    }
  std::vector<std::pair<int, Tensor>> kept;
  std::vector<const std::string*> names;  // slot -> name, built on the first release
  for (auto& [s, t] : initializer_slots_) {
    if (read.count(s)) {
      kept.emplace_back(s, std::move(t));
      continue;
    }
    if (names.empty()) {
      names.assign(static_cast<size_t>(num_slots_), nullptr);
      for (const auto& [name, slot] : slots_) names[static_cast<size_t>(slot)] = &name;
    }
    graph_->initializers.erase(*names[static_cast<size_t>(s)]);
    types_.constants.erase(*names[static_cast<size_t>(s)]);
  }
  initializer_slots_ = std::move(kept);
}

std::vector<Value> CompiledGraph::Execute(std::vector<Value> inputs, const std::vector<const Value*>& outer,
                                          ThreadPool* pool, Profiler* profiler) const {
  // GEMMs (and other libraries that take no pool argument) spread over the
  // session's pool.
  ThreadPool::CurrentScope current_pool(pool);
  // Tensors allocated on this thread during the run come from an arena of
  // the planner (returned, and its unneeded blocks trimmed, when the run ends).
  struct ArenaLease {
    std::shared_ptr<ArenaPool> pool;
    std::string signature;
    std::shared_ptr<MemoryArena> arena;
    ~ArenaLease() {
      if (arena) pool->Release(std::move(arena), signature);
    }
  } lease;
  if (arenas_) {
    lease.pool = arenas_;
    lease.signature = ShapeSignature(inputs);
    lease.arena = arenas_->Acquire(lease.signature);
  }
  MemoryArena* arena = lease.arena.get();
  ScopedBufferSource source(arena);
  std::vector<Value> frame(static_cast<size_t>(num_slots_));
  for (size_t i = 0; i < outer_slots_.size() && i < outer.size(); ++i)
    frame[static_cast<size_t>(outer_slots_[i])] = *outer[i];
  for (const auto& [s, t] : initializer_slots_) frame[static_cast<size_t>(s)] = Value(t);
  for (size_t i = 0; i < input_slots_.size() && i < inputs.size(); ++i)
    if (!inputs[i].empty()) frame[static_cast<size_t>(input_slots_[i])] = std::move(inputs[i]);

  FrameSubgraphRunner runner(*this, frame, pool, profiler);
  std::vector<const Value*> in_ptrs;
  std::vector<Value> outs;
  // A partition span covers a run of consecutive nodes on one provider
  // (copies between them included); its id matches Placement()'s.
  int open_partition = -1;
  size_t partition_provider = 0;
  int64_t partition_start = 0;
  size_t partition_nodes = 0;
  auto close_partition = [&] {
    if (profiler == nullptr || open_partition < 0) return;
    TraceEvent e;
    e.name = providers_[partition_provider]->name() + " partition " + std::to_string(open_partition) + " (" +
             graph_->name + ")";
    e.category = "partition";
    e.start_us = partition_start;
    e.duration_us = profiler->NowMicros() - partition_start;
    e.thread_id = Profiler::CurrentThreadId();
    e.args = {{"provider", Profiler::Quote(providers_[partition_provider]->name())},
              {"partition", std::to_string(open_partition)},
              {"graph", Profiler::Quote(graph_->name)},
              {"nodes", std::to_string(partition_nodes)}};
    profiler->Record(std::move(e));
    open_partition = -1;
  };
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Step& step = steps_[k];
    if (profiler != nullptr && !step.is_copy && step.partition != open_partition) {
      close_partition();
      open_partition = step.partition;
      partition_provider = step.provider;
      partition_start = profiler->NowMicros();
      partition_nodes = 0;
    }
    if (!step.is_copy) partition_nodes += step.members.empty() ? 1 : step.members.size();
    int64_t node_start = profiler ? profiler->NowMicros() : 0;
    in_ptrs.clear();
    for (int s : step.inputs) in_ptrs.push_back(s < 0 ? nullptr : &frame[static_cast<size_t>(s)]);
    outs.assign(step.outputs.size(), Value());
    KernelContext ctx(*step.node, in_ptrs, &outs, pool, &runner);
    std::optional<ProfilerStepTracer> tracer;
    if (profiler != nullptr && !step.members.empty()) {
      tracer.emplace(*profiler, providers_[step.provider]->name(), step.partition);
      ctx.set_tracer(&*tracer);
    }
    if (arena != nullptr) {
      // A dying input's buffer seen by nothing else (not the caller's feed,
      // not a view's other owner) may become the output; the largest one,
      // as the output is at least as large as each input.
      const Tensor* donor = nullptr;
      for (int s : step.donors) {
        const Value& v = frame[static_cast<size_t>(s)];
        if (!v.is_tensor()) continue;
        const Tensor& t = v.tensor();
        if (t.buffer() && t.on_host() && t.byte_offset() == 0 && t.buffer().use_count() == 1 &&
            t.buffer()->bytes() == t.nbytes() && (donor == nullptr || t.nbytes() > donor->nbytes()))
          donor = &t;
      }
      if (donor != nullptr) arena->OfferDonor(donor->buffer());
    }
    try {
      step.kernel->Compute(ctx);
      if (arena != nullptr) arena->ClearDonor();
    } catch (const Error& e) {
      std::string msg = e.what();
      if (msg.find(step.node->Label()) == std::string::npos) msg = "node " + step.node->Label() + ": " + msg;
      throw Error(e.code(), msg);
    } catch (const std::bad_alloc&) {
      TS_THROW(kResourceExhausted, "node ", step.node->Label(), ": out of memory");
    }
    for (size_t o = 0; o < step.outputs.size(); ++o) {
      int s = step.outputs[o];
      if (s < 0) continue;
      if (outs[o].empty())
        TS_THROW(kInternal, "node ", step.node->Label(), ": kernel did not produce output ", o, " ('",
                 step.node->outputs[o], "')");
      frame[static_cast<size_t>(s)] = std::move(outs[o]);
    }
    if (profiler != nullptr) {
      providers_[step.provider]->Synchronize();  // time the work, not its enqueueing
      RecordNode(profiler, step, node_start, in_ptrs, step.outputs, frame);
    }
    for (int s : step.release) frame[static_cast<size_t>(s)] = Value();
  }
  close_partition();
  std::vector<Value> result;
  result.reserve(output_slots_.size());
  for (int s : output_slots_) result.push_back(frame[static_cast<size_t>(s)]);
  return result;
}

std::vector<CompiledGraph::NodeSite> CompiledGraph::Placement() const {
  std::vector<NodeSite> p;
  for (const auto& s : steps_) {
    if (s.is_copy) continue;
    if (s.members.empty()) p.push_back({s.node, providers_[s.provider]->name(), s.declined, s.partition});
    for (const auto& m : s.members) p.push_back({m.node, providers_[s.provider]->name(), m.declined, s.partition});
  }
  return p;
}

}  // namespace tessera
