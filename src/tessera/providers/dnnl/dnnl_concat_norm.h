// Channel concats as one host step writing channels-last, optionally with
// the BatchNormalization [-> Relu] that follows (DenseNet's dense layers
// normalize the concatenation of every earlier layer's features).
#pragma once

#include <vector>

#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

// For a 4-D Concat `n` along channels whose inputs `srcs` are each dense
// channels-last or blocked by 8 or 16 channels (aBcd8b/aBcd16b, what
// Winograd convolutions write), at least one channels-last: emits one step
// that copies every input's channels into a channels-last result and
// returns true, when
//  - an inference BatchNormalization with constant parameters (optionally
//    followed by Relu) is the concat's only reader: then the step writes the
//    normalized values and absorbs those nodes; or
//  - the inputs' layouts differ: the step then replaces a reorder per
//    blocked input plus oneDNN's concat.
// Otherwise emits nothing and returns false.
bool LowerConcatChannelsLast(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs);

}  // namespace tessera::dnnl_ep
