// One graph rewrite. Passes are stateless; the pass manager runs each level's
// passes over every graph (subgraphs included) until none changes anything.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/ir/graph.h"
#include "tessera/ops/kernel_table.h"
#include "tessera/optimizer/optimization_level.h"

namespace tessera {

struct PassContext {
  const Model* model = nullptr;  // opsets (Model::OpsetFor)
  // Kernels used to evaluate nodes at optimization time (constant folding):
  // the CPU provider's table. May be null (then nothing is folded).
  const KernelTable* cpu_kernels = nullptr;
  // The provider that will most likely run a node (the first in the
  // session's priority list whose capability claims it). Fusions consult it
  // so they only rewrite nodes bound for the providers they target. When
  // unset, every node counts as "cpu".
  std::function<std::string(const Node&)> provider_of;
  // Called before each optimization level runs, with the graph as the
  // previous levels left it: the session re-infers the types provider_of
  // consults there (basic-level folding often makes shapes static that were
  // not as loaded, and providers decline nodes of unknown shape).
  std::function<void(const Graph&)> on_level_start;
  // Folded constants larger than this stay unfolded (bytes).
  size_t max_folded_bytes = size_t{64} << 20;
  const Logger* logger = nullptr;
  // Set by the pass manager to the running pass's providers() (empty = any).
  std::vector<std::string> pass_providers;
  // Set by the pass manager while a subgraph (If/Loop/Scan body) is rewritten.
  bool in_subgraph = false;

  std::string ProviderOf(const Node& node) const { return provider_of ? provider_of(node) : "cpu"; }
  // Whether the running pass may rewrite `node`: it is bound for one of the
  // pass's providers (always true for passes that apply to any provider).
  bool AppliesTo(const Node& node) const {
    if (pass_providers.empty()) return true;
    std::string p = ProviderOf(node);
    for (const auto& want : pass_providers)
      if (want == p) return true;
    return false;
  }
};

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  // Unique, CamelCase: "ConstantFolding", "ConvBnFold". Used in logs and in
  // the option that disables passes by name.
  virtual std::string name() const = 0;
  virtual OptimizationLevel level() const = 0;
  // Providers whose nodes this pass may rewrite; empty = any provider.
  virtual std::vector<std::string> providers() const { return {}; }
  // Rewrites `graph` (one graph; the manager visits subgraphs itself) and
  // returns how many rewrites it made (0 = nothing applied). `graph` may be a
  // subgraph whose nodes read values of enclosing graphs (outer_scope).
  virtual int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const = 0;
};

}  // namespace tessera
