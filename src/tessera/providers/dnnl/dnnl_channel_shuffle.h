// ShuffleNet's channel shuffle as one host step: Concat(a, b) -> Reshape to
// [N, 2, C/2, H, W] -> Transpose(0, 2, 1, 3, 4) -> Reshape to [N, C, H, W],
// and, when they follow, the two Slices that split the result into channel
// halves. In oneDNN terms that is a concat, two or three layout reorders and
// two slice copies (74 reorder steps per shufflenet_v2 run); here each
// pixel's row is read once and written once.
#pragma once

#include <vector>

#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

// When the Concat `n` (inputs `srcs`, both dense channels-last with equal
// channels) starts such a shuffle: emits the step, absorbs the Reshapes,
// Transpose and Slices, and returns true. Otherwise emits nothing, false.
bool LowerChannelShuffle(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs);

}  // namespace tessera::dnnl_ep
