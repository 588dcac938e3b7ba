// The BASIC-level passes: semantics-preserving clean-ups that apply to any
// provider's nodes.
#pragma once

#include <memory>

#include "tessera/optimizer/graph_pass.h"

namespace tessera {

std::unique_ptr<GraphPass> MakeConstantFolding();
std::unique_ptr<GraphPass> MakeShapeFolding();
std::unique_ptr<GraphPass> MakeDeadNodeElimination();
std::unique_ptr<GraphPass> MakeRedundantNodeElimination();
std::unique_ptr<GraphPass> MakeCommonSubexpressionElimination();
std::unique_ptr<GraphPass> MakeDuplicateInitializerMerging();

}  // namespace tessera
