// The list of every graph pass Tessera has, in the order they run.
#pragma once

#include <memory>
#include <vector>

#include "tessera/optimizer/graph_pass.h"

namespace tessera {

std::vector<std::unique_ptr<GraphPass>> AllGraphPasses();

}  // namespace tessera
