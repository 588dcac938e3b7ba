// Channel concats as one host step, optionally with
// the BatchNormalization [-> Relu] that follows (DenseNet's dense layers
// normalize the concatenation of every earlier layer's features).
#pragma once

#include <vector>

#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

// For a 4-D Concat `n` along channels whose inputs `srcs` are each dense
// channels-last or blocked by 8 or 16 channels (aBcd8b/aBcd16b: what
// Winograd convolutions write, and every convolution below AVX-512): emits
// one step that copies every input's channels into the result and returns
// true. The result is channels-last if an input is; else it keeps the
// inputs' block, which they must share, each input but the last filling
// whole blocks. The step is emitted when
//  - an inference BatchNormalization with constant parameters (optionally
//    followed by Relu) is the concat's only reader: then the step writes the
//    normalized values and absorbs those nodes; or
//  - some input is blocked: the step then replaces a reorder per blocked
//    input plus oneDNN's concat, or oneDNN's concat of blocked inputs, which
//    copies at a third of the speed (3.5 against 10 GB/s in SqueezeNet 1.1
//    at 1 thread under the AVX2 cap).
// Otherwise emits nothing and returns false.
bool LowerChannelConcat(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs);

}  // namespace tessera::dnnl_ep
