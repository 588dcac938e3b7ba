#include "tessera/optimizer/pass_manager.h"

#include <algorithm>
#include <sstream>

#include "tessera/base/status.h"
#include "tessera/optimizer/graph_validation.h"
#include "tessera/optimizer/pass_registry.h"

namespace tessera {

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

template <typename F>
void ForEachSubgraph(Graph& graph, F&& f) {
  for (auto& n : graph.nodes)
    for (auto& a : n.attributes) {
      if (a.g) f(*a.g);
      for (auto& g : a.graphs)
        if (g) f(*g);
    }
}

bool HasSubgraphs(const Graph& graph) {
  for (const auto& n : graph.nodes)
    for (const auto& a : n.attributes)
      if (a.g || !a.graphs.empty()) return true;
  return false;
}

void SortAll(Graph& graph, const std::vector<std::string>& outer) {
  graph.SortTopologically(outer);
  if (!HasSubgraphs(graph)) return;
  std::vector<std::string> scope = ScopeForSubgraphs(graph, outer);
  ForEachSubgraph(graph, [&](Graph& sub) { SortAll(sub, scope); });
}

// One pass over a graph, then over its subgraphs with the graph's values in scope.
int ApplyRecursive(const GraphPass& pass, Graph& graph, const std::vector<std::string>& outer, PassContext& ctx) {
  int changes = pass.Apply(graph, outer, ctx);
  if (!HasSubgraphs(graph)) return changes;
  std::vector<std::string> scope = ScopeForSubgraphs(graph, outer);
  bool was_sub = ctx.in_subgraph;
  ctx.in_subgraph = true;
  ForEachSubgraph(graph, [&](Graph& sub) { changes += ApplyRecursive(pass, sub, scope, ctx); });
  ctx.in_subgraph = was_sub;
  return changes;
}

bool UsesDomain(const Graph& graph, const std::string& domain) {
  for (const auto& n : graph.nodes) {
    if (n.domain == domain) return true;
    for (const auto& a : n.attributes) {
      if (a.g && UsesDomain(*a.g, domain)) return true;
      for (const auto& g : a.graphs)
        if (g && UsesDomain(*g, domain)) return true;
    }
  }
  return false;
}

}  // namespace

size_t CountNodes(const Graph& graph) {
  size_t n = graph.nodes.size();
  for (const auto& node : graph.nodes)
    for (const auto& a : node.attributes) {
      if (a.g) n += CountNodes(*a.g);
      for (const auto& g : a.graphs)
        if (g) n += CountNodes(*g);
    }
  return n;
}

int OptimizerReport::TotalChanges() const {
  int total = 0;
  for (const auto& l : levels)
    for (const auto& p : l.passes) total += p.changes;
  return total;
}

std::string OptimizerReport::Summary() const {
  std::ostringstream os;
  bool first_level = true;
  for (const auto& l : levels) {
    os << (first_level ? "" : "; ") << OptimizationLevelName(l.level) << ":";
    first_level = false;
    bool any = false;
    for (const auto& p : l.passes)
      if (p.changes > 0) {
        os << (any ? ", " : " ") << p.name << " " << p.changes;
        any = true;
      }
    if (!any) os << " no change";
  }
  return os.str();
}

PassManager::PassManager() : passes_(AllGraphPasses()) {}
PassManager::PassManager(std::vector<std::unique_ptr<GraphPass>> passes) : passes_(std::move(passes)) {}

std::vector<std::string> PassManager::PassNames() const {
  std::vector<std::string> names;
  for (const auto& p : passes_) names.push_back(p->name());
  return names;
}

OptimizerReport PassManager::Run(Model& model, const OptimizerOptions& options, PassContext ctx,
                                 const Logger& logger) const {
  for (const auto& name : options.disabled_passes) {
    bool known = false;
    for (const auto& p : passes_) known |= p->name() == name;
    if (known) continue;
    std::string valid;
    for (const auto& p : passes_) valid += (valid.empty() ? "" : ", ") + p->name();
    TS_THROW(kInvalidArgument, "unknown graph optimizer pass '", name, "' in the disabled list (passes: ", valid, ")");
  }
  if (!model.graph) TS_THROW(kInvalidModel, "model '", model.DisplayName(), "' has no graph");
  OptimizerReport report;
  report.nodes_before = report.nodes_after = CountNodes(*model.graph);
  if (options.level == OptimizationLevel::kDisabled) return report;

  // Gradient nodes (ai.onnx.preview.training) name the values they
  // differentiate and walk the graph between them: rewriting that graph
  // would change what they compute, so such models stay as written.
  if (UsesDomain(*model.graph, "ai.onnx.preview.training")) {
    TS_LOG(logger, kInfo, "graph optimizer: model '" << model.DisplayName()
                                                     << "' has training (Gradient) nodes; not optimizing it");
    return report;
  }
  ctx.model = &model;
  ctx.max_folded_bytes = options.max_folded_bytes;
  if (!ctx.logger) ctx.logger = &logger;
  // Passes read producers before consumers (shape inference needs it).
  SortAll(*model.graph, {});
  bool validate = options.validate_after_each_pass;
  if (validate) {
    // A flaw the model arrived with must not be blamed on the first pass.
    Status st = CatchStatus([&] { ValidateGraph(*model.graph, {}, "(none: the graph as loaded)"); });
    if (!st.ok()) {
      TS_LOG(logger, kInfo, "graph optimizer: not validating passes on '" << model.DisplayName()
                                                                          << "': " << st.message());
      validate = false;
    }
  }
  auto start = Clock::now();
  for (OptimizationLevel level : {OptimizationLevel::kBasic, OptimizationLevel::kExtended, OptimizationLevel::kLayout}) {
    if (static_cast<int>(level) > static_cast<int>(options.level)) break;
    std::vector<const GraphPass*> selected;
    for (const auto& p : passes_)
      if (p->level() == level &&
          std::find(options.disabled_passes.begin(), options.disabled_passes.end(), p->name()) ==
              options.disabled_passes.end())
        selected.push_back(p.get());
    if (selected.empty()) continue;
    if (ctx.on_level_start && level != OptimizationLevel::kBasic) ctx.on_level_start(*model.graph);
    LevelStats stats;
    stats.level = level;
    stats.start = Clock::now();
    for (const GraphPass* p : selected) stats.passes.push_back({p->name(), 0, 0});
    stats.converged = false;
    for (int round = 0; round < std::max(1, options.max_iterations_per_level); ++round) {
      ++stats.rounds;
      int round_changes = 0;
      for (size_t i = 0; i < selected.size(); ++i) {
        const GraphPass& pass = *selected[i];
        ctx.pass_providers = pass.providers();
        ctx.in_subgraph = false;
        auto t = Clock::now();
        int changes = 0;
        try {
          changes = ApplyRecursive(pass, *model.graph, {}, ctx);
        } catch (const Error& e) {
          throw Error(e.code(), "graph optimizer pass " + pass.name() + " on model '" + model.DisplayName() +
                                    "': " + e.what());
        }
        stats.passes[i].wall_ms += MsSince(t);
        stats.passes[i].changes += changes;
        round_changes += changes;
        if (changes > 0) {
          TS_LOG(logger, kVerbose, pass.name() << ": " << changes << " changed (level " << OptimizationLevelName(level)
                                               << ", round " << round + 1 << ")");
          // The fused ops' domains: Tessera's own, and com.microsoft's
          // QLinear ops (both opset 1).
          for (const char* domain : {kTesseraDomain, kMicrosoftDomain})
            if (model.OpsetFor(domain) < 0 && UsesDomain(*model.graph, domain)) model.opset_imports.push_back({domain, 1});
        }
        if (validate) ValidateGraph(*model.graph, {}, pass.name());
      }
      if (round_changes == 0) {
        stats.converged = true;
        break;
      }
    }
    if (!stats.converged)
      TS_LOG(logger, kInfo, "graph optimizer: level " << OptimizationLevelName(level) << " still changing after "
                                                      << stats.rounds << " rounds; stopping there");
    stats.wall_ms = MsSince(stats.start);
    report.levels.push_back(std::move(stats));
  }
  report.nodes_after = CountNodes(*model.graph);
  TS_LOG(logger, kInfo, "graph optimizer (level " << OptimizationLevelName(options.level) << ") on '"
                                                  << model.DisplayName() << "': " << report.nodes_before << " -> "
                                                  << report.nodes_after << " nodes in " << MsSince(start) << " ms ("
                                                  << report.Summary() << ")");
  return report;
}

}  // namespace tessera
