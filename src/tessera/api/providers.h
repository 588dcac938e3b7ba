// Provider names users type, mapped to provider objects. Accepts Tessera's
// names ("cpu") and ONNX Runtime's ("CPUExecutionProvider").
#pragma once

#include <string>
#include <vector>

#include "tessera/partition/execution_provider.h"

namespace tessera {

// Providers built into this binary, in default priority order.
std::vector<std::string> AvailableProviders();
// What a session uses when the user names no provider: the oneDNN EP ahead
// of the CPU EP when built in, else the CPU EP alone. (Device EPs such as
// OpenCL are used only when asked for.)
std::vector<std::string> DefaultProviders();
// The same, comma-separated, as CLI flags take it: "dnnl,cpu".
std::string DefaultProviderList();
// "CPUExecutionProvider" -> "cpu"; unknown names are returned unchanged.
std::string CanonicalProviderName(const std::string& name);
// Builds providers in the given order; "cpu" is appended when missing so
// every node has a fallback. Throws kInvalidArgument on an unknown name.
ProviderList MakeProviders(const std::vector<std::string>& names);

}  // namespace tessera
