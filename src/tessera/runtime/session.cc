#include "tessera/runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "tessera/base/cpu_isa.h"
#include "tessera/format/model_loader.h"
#include "tessera/ops/flop_estimate.h"
#include "tessera/ops/shape_inference.h"

namespace tessera {

Session::Session(Model model, const SessionOptions& options, ProviderList providers,
                 std::shared_ptr<Profiler> profiler)
    : model_(std::move(model)),
      options_(options),
      providers_(std::move(providers)),
      logger_(options.log_id, options.log_severity_level),
      profiler_(std::move(profiler)) {
  if (options_.enable_profiling && !profiler_) profiler_ = std::make_shared<Profiler>();
  if (profiler_) profiling_start_ns_ = profiler_->StartTimeNs();
  ScopedPhase whole(profiler_.get(), "session_initialization");
  if (providers_.empty()) TS_THROW(kInvalidArgument, "a session needs at least one execution provider");
  if (!model_.graph) TS_THROW(kInvalidModel, "model '", model_.DisplayName(), "' has no graph");
  // Compiling reorders nodes and keeps pointers to them: work on a private
  // copy so sessions made from one Model (or a subgraph shared by two
  // attributes) never disturb each other.
  model_.graph = model_.graph->DeepCopy();
  ApplyFreeDimensionOverrides(*model_.graph, options_.free_dimension_overrides, model_.DisplayName(), logger_);
  ApplyInitializerOverrides(*model_.graph, options_.initializer_overrides, model_.DisplayName());
  int threads = options_.intra_op_num_threads;
  if (threads < 0) TS_THROW(kInvalidArgument, "intra_op_num_threads must be >= 0, got ", threads);
  if (options_.inter_op_num_threads < 0)
    TS_THROW(kInvalidArgument, "inter_op_num_threads must be >= 0, got ", options_.inter_op_num_threads);
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Before anything compiles: oneDNN fixes its ISA at its first primitive.
  if (auto cap = ResolveIsaCap(options_.max_isa))
    for (const auto& p : providers_) p->CapIsa(*cap);
  pool_ = std::make_unique<ThreadPool>(threads);
  if (options_.memory_pattern_cache < 1)
    TS_THROW(kInvalidArgument, "memory_pattern_cache must be >= 1, got ", options_.memory_pattern_cache);
  try {
    Optimize();
    ScopedPhase phase(profiler_.get(), "partition_and_kernel_creation");
    graph_ = std::make_unique<CompiledGraph>(model_, model_.graph, providers_, std::vector<std::string>{}, logger_,
                                             threads, options_.winograd_convolutions);
    graph_->ConfigureMemory(options_.enable_memory_arena, static_cast<size_t>(options_.memory_pattern_cache));
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.find(model_.DisplayName()) == std::string::npos) msg = "model '" + model_.DisplayName() + "': " + msg;
    throw Error(e.code(), msg);
  }
  for (const auto& in : model_.graph->inputs)
    if (!model_.graph->initializers.count(in.name)) inputs_.push_back(in);
  {
    ScopedPhase phase(profiler_.get(), "shape_inference");
    value_types_ = graph_->types().types;
  }
  outputs_ = graph_->graph().outputs;
  for (auto& out : outputs_) {
    auto it = value_types_.find(out.name);
    if (it != value_types_.end() && (out.type.kind == TypeInfo::Kind::kUnknown || !out.type.shape)) out.type = it->second;
  }
  if (logger_.Enabled(Severity::kVerbose)) {
    for (const auto& node : graph_->graph().nodes)
      for (const auto& o : node.outputs) {
        auto it = value_types_.find(o);
        if (!o.empty())
          TS_LOG(logger_, kVerbose, "value " << o << ": " << (it == value_types_.end() ? "dynamic" : it->second.ToString()));
      }
  }
  CheckFallback();
  TS_LOG(logger_, kInfo, "instruction sets: " << IsaSummary());
  if (profiler_) {
    TraceEvent e;
    e.name = "instruction_sets";
    e.category = "session";
    e.start_us = profiler_->NowMicros();
    e.thread_id = Profiler::CurrentThreadId();
    for (const auto& [library, isa] : IsaInUse()) e.args.emplace_back(library, Profiler::Quote(isa));
    profiler_->Record(std::move(e));
  }
  TS_LOG(logger_, kInfo, "session created for '" << model_.DisplayName() << "': " << model_.graph->nodes.size()
                                                 << " nodes, " << threads << " threads");
  if (logger_.Enabled(Severity::kInfo)) {
    std::map<std::string, int> per_provider;
    int partitions = 0;
    std::string last;
    for (const auto& p : Placement()) {
      per_provider[p.provider]++;
      if (p.provider != last) ++partitions;
      last = p.provider;
    }
    std::string summary;
    for (const auto& [ep, n] : per_provider) summary += (summary.empty() ? "" : ", ") + ep + " " + std::to_string(n) + " nodes";
    int64_t bytes = 0;
    int dynamic = 0;
    for (const auto& c : graph_->copies()) {
      if (c.bytes.find_first_not_of("0123456789") == std::string::npos) bytes += std::stoll(c.bytes);
      else ++dynamic;
    }
    TS_LOG(logger_, kInfo, "placement: " << summary << "; " << partitions << " partition(s); " << graph_->copies().size()
                                         << " copy node(s), " << bytes << " bytes copied per run"
                                         << (dynamic ? " plus " + std::to_string(dynamic) + " of dynamic size" : ""));
  }
}

std::vector<std::pair<std::string, std::string>> Session::IsaInUse() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : providers_)
    for (const auto& entry : p->IsaInUse())
      if (std::find(out.begin(), out.end(), entry) == out.end()) out.push_back(entry);
  return out;
}

std::string Session::IsaSummary() const {
  std::string line;
  for (const auto& [library, isa] : IsaInUse()) line += (line.empty() ? "" : ", ") + library + " " + isa;
  if (auto cap = ResolveIsaCap(options_.max_isa)) line += " (capped at " + std::string(IsaLevelName(*cap)) + ")";
  return line.empty() ? "none reported" : line;
}

OptimizerReport Session::OptimizeModel(Model& model, const SessionOptions& options, const ProviderList& providers,
                                       const Logger& logger) {
  OptimizerOptions opts;
  opts.level = options.graph_optimization_level;
  opts.disabled_passes = options.disabled_optimizers;
  opts.validate_after_each_pass = options.validate_optimizer_passes;
  PassContext ctx;
  for (const auto& p : providers)
    if (p->IsHostFallback()) ctx.cpu_kernels = &p->kernels();
  // The provider a node will most likely run on: the first that claims it
  // (the same rule AssignNodes applies when the graph is compiled).
  // Device providers decide on element types and shapes, so they are asked
  // with the types inferred on the graph as loaded (values a pass creates
  // later are unknown to them, which keeps such nodes on the CPU's side).
  std::shared_ptr<GraphTypes> types;
  if (providers.size() > 1 && model.graph)
    types = std::make_shared<GraphTypes>(
        InferGraphTypes(*model.graph, [&model](const std::string& d) { return model.OpsetFor(d); }));
  ctx.provider_of = [&providers, &model, types](const Node& node) -> std::string {
    int64_t opset = model.OpsetFor(node.domain);
    for (const auto& p : providers)
      if (p->Capability(NodeQuery{node, opset, types.get()}).claimed()) return p->name();
    return "";
  };
  // vit_b_16's LayerNormalizations read a value whose shape comes from
  // Shape/Concat/Expand as loaded: unknown to oneDNN until basic folding
  // made it static, so the CPU-only SkipLayerNormFusion took all 25 and split
  // the model into 51 partitions.
  if (types)
    ctx.on_level_start = [types, &model](const Graph& graph) {
      *types = InferGraphTypes(graph, [&model](const std::string& d) { return model.OpsetFor(d); });
    };
  ctx.logger = &logger;
  static const PassManager manager;
  return manager.Run(model, opts, std::move(ctx), logger);
}

void Session::Optimize() {
  optimizer_report_ = OptimizeModel(model_, options_, providers_, logger_);
  if (profiler_) {
    // One session-phase event per level, placed where the level ran.
    int64_t now_us = profiler_->NowMicros();
    auto now = std::chrono::steady_clock::now();
    for (const auto& level : optimizer_report_.levels) {
      TraceEvent e;
      e.name = std::string("optimize_") + OptimizationLevelName(level.level);
      e.category = "session";
      e.start_us = now_us - std::chrono::duration_cast<std::chrono::microseconds>(now - level.start).count();
      e.duration_us = static_cast<int64_t>(level.wall_ms * 1000.0);
      e.thread_id = Profiler::CurrentThreadId();
      e.args.emplace_back("rounds", std::to_string(level.rounds));
      for (const auto& p : level.passes) e.args.emplace_back(p.name, std::to_string(p.changes));
      profiler_->Record(std::move(e));
    }
  }
  if (!options_.optimized_model_filepath.empty()) {
    const std::string& path = options_.optimized_model_filepath;
    const std::string& external = options_.optimized_model_external_file;
    std::string data;
    std::string bytes = external.empty() ? SerializeModel(model_)
                                         : SerializeModelWithExternalData(model_, external, &data,
                                                                          options_.optimized_model_external_min_bytes);
    auto write = [](const std::string& file, const std::string& content, const char* what) {
      std::ofstream f(file, std::ios::binary | std::ios::trunc);
      if (!f) TS_THROW(kIoError, "cannot write the ", what, " to '", file, "'");
      f.write(content.data(), static_cast<std::streamsize>(content.size()));
      if (!f) TS_THROW(kIoError, "failed writing the ", what, " to '", file, "'");
    };
    write(path, bytes, "optimized model");
    if (!external.empty()) {
      size_t slash = path.rfind('/');
      write(slash == std::string::npos ? external : path.substr(0, slash + 1) + external, data,
            "optimized model's external initializers");
    }
  }
}

std::unique_ptr<Session> Session::FromFile(const std::string& path, const SessionOptions& options,
                                           ProviderList providers, const InMemoryFiles& files) {
  std::shared_ptr<Profiler> profiler = options.enable_profiling ? std::make_shared<Profiler>() : nullptr;
  Model model;
  {
    ScopedPhase phase(profiler.get(), "model_load");
    model = LoadModelFromFile(path, options.load_limits, files);
  }
  return std::make_unique<Session>(std::move(model), options, std::move(providers), std::move(profiler));
}

std::string Session::EndProfiling() {
  if (!profiler_) return "";
  std::string path = profiler_->WriteTrace(options_.profile_file_prefix);
  std::atomic_store(&profiler_, std::shared_ptr<Profiler>());
  return path;
}

std::unique_ptr<Session> Session::FromBytes(const void* data, size_t size, const SessionOptions& options,
                                            ProviderList providers, const InMemoryFiles& files) {
  return std::make_unique<Session>(LoadModelFromBytes(data, size, "", options.load_limits, files), options,
                                   std::move(providers));
}

void Session::CheckFallback() const {
  const ExecutionProvider* host = nullptr;
  for (const auto& p : providers_)
    if (!host && p->IsHostFallback()) host = p.get();
  // Limits apply only where another provider comes first.
  if (providers_.size() < 2 || !host || providers_.front().get() == host) return;
  const std::string cpu = host->name();
  std::vector<NodePlacement> placement = Placement();
  std::vector<const NodePlacement*> fallen;
  int partitions = 0;
  std::string last;
  for (const auto& p : placement) {
    if (p.provider == cpu) fallen.push_back(&p);
    if (p.provider != last) ++partitions;
    last = p.provider;
  }
  auto describe = [&](size_t limit) {
    std::string s;
    for (size_t i = 0; i < fallen.size() && i < limit; ++i) {
      s += "\n  node '" + fallen[i]->node + "' (" + fallen[i]->op_type + "):";
      for (const auto& why : fallen[i]->declined) s += " [" + why + "]";
    }
    if (fallen.size() > limit) s += "\n  ... and " + std::to_string(fallen.size() - limit) + " more";
    return s;
  };
  if (options_.disable_cpu_fallback && !fallen.empty())
    TS_THROW(kNotImplemented, "model '", model_.DisplayName(), "': disable_cpu_fallback is set and ", fallen.size(),
             " node(s) would fall back to cpu:", describe(fallen.size()));
  double share = placement.empty() ? 0.0 : static_cast<double>(fallen.size()) / static_cast<double>(placement.size());
  std::string problem;
  if (share > options_.max_cpu_fallback_share)
    problem = std::to_string(fallen.size()) + " of " + std::to_string(placement.size()) +
              " nodes fall back to cpu (more than the allowed share " + std::to_string(options_.max_cpu_fallback_share) +
              ")" + describe(20);
  else if (options_.max_cpu_fallback_flops_share < 1.0) {
    int64_t total = 0, on_cpu = 0;
    for (const auto& p : placement) {
      int64_t f = std::max<int64_t>(0, p.flops);
      total += f;
      if (p.provider == cpu) on_cpu += f;
    }
    double flops_share = total == 0 ? 0.0 : static_cast<double>(on_cpu) / static_cast<double>(total);
    if (flops_share > options_.max_cpu_fallback_flops_share)
      problem = std::to_string(static_cast<int>(flops_share * 100 + 0.5)) + "% of the estimated FLOPs (" +
                std::to_string(on_cpu) + " of " + std::to_string(total) +
                ") fall back to cpu (more than the allowed share " +
                std::to_string(options_.max_cpu_fallback_flops_share) + ")" + describe(20);
  }
  if (problem.empty() && options_.max_partitions > 0 && partitions > options_.max_partitions)
    problem = "the graph splits into " + std::to_string(partitions) + " partitions (limit " +
              std::to_string(options_.max_partitions) + ")";
  if (problem.empty()) return;
  if (options_.fallback_policy_fail) TS_THROW(kNotImplemented, "model '", model_.DisplayName(), "': ", problem);
  TS_LOG(logger_, kWarning, "model '" << model_.DisplayName() << "': " << problem);
}

const TypeInfo* Session::ValueType(const std::string& value_name) const {
  auto it = value_types_.find(value_name);
  return it == value_types_.end() ? nullptr : &it->second;
}

std::vector<NodePlacement> Session::Placement() const {
  std::vector<NodePlacement> out;
  for (const auto& site : graph_->Placement())
    out.push_back({site.node->name, site.node->op_type, site.node->domain, site.provider, site.declined, site.partition,
                   EstimateFlops(*site.node, graph_->types())});
  return out;
}

void Session::ValidateFeed(const ValueInfo& declared, const Value& value) const {
  const TypeInfo& t = declared.type;
  auto fail = [&](const std::string& why) {
    TS_THROW(kInvalidArgument, "model '", model_.DisplayName(), "': input '", declared.name, "': ", why);
  };
  if (value.empty()) fail("no value given");
  switch (t.kind) {
    case TypeInfo::Kind::kTensor: {
      if (!value.is_tensor()) fail("expected " + t.TypeString() + " but got a " + value.Describe());
      const Tensor& x = value.tensor();
      if (t.elem_type != DataType::kUndefined && x.dtype() != t.elem_type)
        fail(std::string("expected element type ") + DataTypeName(t.elem_type) + " but got " + DataTypeName(x.dtype()));
      if (t.shape) {
        if (static_cast<size_t>(x.rank()) != t.shape->size())
          fail("expected rank " + std::to_string(t.shape->size()) + " (" + t.ToString() + ") but got shape " +
               ShapeToString(x.shape()));
        for (size_t d = 0; d < t.shape->size(); ++d) {
          const Dim& dim = (*t.shape)[d];
          if (dim.known() && dim.value != x.shape()[d])
            fail("dimension " + std::to_string(d) + " must be " + std::to_string(dim.value) + " (" + t.ToString() +
                 ") but got shape " + ShapeToString(x.shape()));
        }
      }
      break;
    }
    case TypeInfo::Kind::kSequence:
      if (!value.is_sequence()) fail("expected " + t.TypeString() + " but got a " + value.Describe());
      break;
    case TypeInfo::Kind::kMap:
      if (!value.is_map()) fail("expected " + t.TypeString() + " but got a " + value.Describe());
      break;
    default: break;
  }
}

std::vector<Value> Session::Run(const Feeds& feeds, const std::vector<std::string>& output_names) const {
  const Graph& g = graph_->graph();
  std::unordered_map<std::string, size_t> input_index;
  for (size_t i = 0; i < g.inputs.size(); ++i) input_index[g.inputs[i].name] = i;
  std::vector<Value> inputs(g.inputs.size());
  std::unordered_set<std::string> fed;
  for (const auto& [name, value] : feeds) {
    auto it = input_index.find(name);
    if (it == input_index.end()) {
      std::string names;
      for (const auto& in : inputs_) names += (names.empty() ? "" : ", ") + in.name;
      TS_THROW(kInvalidArgument, "model '", model_.DisplayName(), "': feed '", name,
               "' is not an input of the model (inputs: ", names, ")");
    }
    if (!fed.insert(name).second)
      TS_THROW(kInvalidArgument, "model '", model_.DisplayName(), "': input '", name, "' is fed twice");
    ValidateFeed(g.inputs[it->second], value);
    inputs[it->second] = value;
  }
  for (const auto& in : inputs_) {
    if (fed.count(in.name)) continue;
    // An optional-typed input may be left out (it then reads as "no value").
    if (in.type.kind == TypeInfo::Kind::kOptional) continue;
    TS_THROW(kInvalidArgument, "model '", model_.DisplayName(), "': input '", in.name, "' (", in.type.ToString(),
             ") was not fed");
  }
  std::shared_ptr<Profiler> profiler = std::atomic_load(&profiler_);
  int64_t run_start = profiler ? profiler->NowMicros() : 0;
  std::vector<Value> all = graph_->Execute(std::move(inputs), {}, pool_.get(), profiler.get());
  if (profiler) {
    TraceEvent e;
    e.name = "model_run";
    e.category = "session";
    e.start_us = run_start;
    e.duration_us = profiler->NowMicros() - run_start;
    e.thread_id = Profiler::CurrentThreadId();
    profiler->Record(std::move(e));
  }
  if (output_names.empty()) return all;
  std::vector<Value> selected;
  for (const auto& name : output_names) {
    size_t i = 0;
    while (i < g.outputs.size() && g.outputs[i].name != name) ++i;
    if (i == g.outputs.size()) {
      std::string names;
      for (const auto& o : g.outputs) names += (names.empty() ? "" : ", ") + o.name;
      TS_THROW(kInvalidArgument, "model '", model_.DisplayName(), "': '", name,
               "' is not an output of the model (outputs: ", names, ")");
    }
    selected.push_back(all[i]);
  }
  return selected;
}

}  // namespace tessera
