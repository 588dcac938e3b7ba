// Concat -> BatchNormalization [-> Relu] as one host step (DenseNet's dense
// layers normalize the concatenation of every earlier layer's features).
#pragma once

#include <vector>

#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

// When the Concat `n` (along channels, inputs `srcs` already in one dense
// channels-last layout) feeds only an inference BatchNormalization with
// constant parameters, optionally followed by Relu: emits one step that
// writes each input's channels, scaled and shifted, straight into the
// normalized result, absorbs the BatchNormalization and Relu, and returns
// true. Otherwise emits nothing and returns false.
bool LowerConcatScaleShift(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs);

}  // namespace tessera::dnnl_ep
