// Runs the graph passes of every level up to the requested one, in order
// (basic, extended, layout), each level to a fixed point, over the main
// graph and every subgraph.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/ir/graph.h"
#include "tessera/optimizer/graph_pass.h"
#include "tessera/optimizer/optimization_level.h"

namespace tessera {

struct OptimizerOptions {
  OptimizationLevel level = OptimizationLevel::kAll;
  // Pass names (GraphPass::name) not to run. An unknown name is an error.
  std::vector<std::string> disabled_passes;
  // Checks the graph's structure after every pass (names the pass at fault).
#ifdef NDEBUG
  bool validate_after_each_pass = false;
#else
  bool validate_after_each_pass = true;
#endif
  // Constant folding leaves nodes whose outputs would exceed this unfolded.
  size_t max_folded_bytes = size_t{64} << 20;
  // Rounds of a level's passes before it counts as converged.
  int max_iterations_per_level = 8;
};

struct PassStats {
  std::string name;
  int changes = 0;      // rewrites summed over every round and graph
  double wall_ms = 0;
};

struct LevelStats {
  OptimizationLevel level = OptimizationLevel::kBasic;
  std::chrono::steady_clock::time_point start;
  double wall_ms = 0;
  int rounds = 0;
  bool converged = true;  // false when the round cap stopped it
  std::vector<PassStats> passes;
};

struct OptimizerReport {
  size_t nodes_before = 0;  // all graphs, subgraphs included
  size_t nodes_after = 0;
  std::vector<LevelStats> levels;

  int TotalChanges() const;
  // "basic: ConstantFolding 12, DeadNodeElimination 3; extended: ..." (passes
  // that changed nothing left out).
  std::string Summary() const;
};

// Nodes in a graph and all its subgraphs.
size_t CountNodes(const Graph& graph);

class PassManager {
 public:
  // Every registered pass (AllGraphPasses()).
  PassManager();
  explicit PassManager(std::vector<std::unique_ptr<GraphPass>> passes);

  const std::vector<std::unique_ptr<GraphPass>>& passes() const { return passes_; }
  std::vector<std::string> PassNames() const;

  // Optimizes model.graph in place. ctx.model is set to &model. Throws
  // kInvalidArgument for an unknown name in options.disabled_passes, and
  // kInternal (naming the pass) when validation finds a broken graph.
  OptimizerReport Run(Model& model, const OptimizerOptions& options, PassContext ctx,
                      const Logger& logger = Logger()) const;

 private:
  std::vector<std::unique_ptr<GraphPass>> passes_;
};

}  // namespace tessera
