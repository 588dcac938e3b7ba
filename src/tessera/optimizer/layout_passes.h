// The LAYOUT-level passes: data layouts chosen for the provider that will
// run a node, with any reordering done once, at optimization time.
#pragma once

#include <memory>

#include "tessera/optimizer/graph_pass.h"

namespace tessera {

std::unique_ptr<GraphPass> MakeGemmWeightLayout();

}  // namespace tessera
