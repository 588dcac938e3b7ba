// Rough arithmetic cost of a node from its static shapes, for fallback
// policies and placement reports: multiply-adds count two, other ops one per
// output element.
#pragma once

#include <cstdint>

#include "tessera/ops/shape_inference.h"

namespace tessera {

// Estimated floating-point operations of one execution of `node`, or -1
// when the shapes it depends on are not known statically.
int64_t EstimateFlops(const Node& node, const GraphTypes& types);

}  // namespace tessera
