// Execution providers: the back ends a session places nodes on. Names are
// Tessera's ("cpu", "dnnl", "opencl") or ONNX Runtime's
// ("CPUExecutionProvider", "DnnlExecutionProvider"...).
#pragma once

#include <string>
#include <vector>

#include "tessera/export.h"

namespace tessera::v1 {

// The providers this library was built with and that can start on this
// machine, in default priority order; always ends with "cpu".
TESSERA_API std::vector<std::string> AvailableProviders();
// What a session uses when its options name no provider: the oneDNN
// provider ahead of the CPU provider when built in, else the CPU provider.
TESSERA_API std::vector<std::string> DefaultProviders();

}  // namespace tessera::v1
