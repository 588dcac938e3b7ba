// Rough arithmetic cost of a node from its static shapes, for fallback
// policies, placement reports and profiles: multiply-adds count two, ops
// that only move or view data (Reshape, Concat, Gather...) none, other ops
// one per output element.
#pragma once

#include <cstdint>

#include "tessera/ops/shape_inference.h"

namespace tessera {

// Estimated floating-point operations of one execution of `node`, or -1
// when the shapes it depends on are not known statically.
int64_t EstimateFlops(const Node& node, const GraphTypes& types);

}  // namespace tessera
