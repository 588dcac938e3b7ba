#include "tessera/optimizer/pass_registry.h"

#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/layout_passes.h"

namespace tessera {

std::vector<std::unique_ptr<GraphPass>> AllGraphPasses() {
  std::vector<std::unique_ptr<GraphPass>> passes;
  // ---- basic ----
  // Shapes first so constant folding can finish the shape arithmetic; dead
  // nodes last so each round ends with a clean graph.
  passes.push_back(MakeShapeFolding());
  passes.push_back(MakeConstantFolding());
  passes.push_back(MakeRedundantNodeElimination());
  passes.push_back(MakeCommonSubexpressionElimination());
  passes.push_back(MakeDuplicateInitializerMerging());
  passes.push_back(MakeDeadNodeElimination());
  // ---- extended: the fusion passes (optimizer/fusion_passes.cc) ----
  AppendFusionPasses(passes);
  // ---- layout: per-provider data layouts ----
  passes.push_back(MakeGemmWeightLayout());
  return passes;
}

}  // namespace tessera
