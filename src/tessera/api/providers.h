// Provider names users type, mapped to provider objects. Accepts Tessera's
// names ("cpu") and ONNX Runtime's ("CPUExecutionProvider").
#pragma once

#include <string>
#include <vector>

#include "tessera/partition/execution_provider.h"

namespace tessera {

// Providers built into this binary, in default priority order.
std::vector<std::string> AvailableProviders();
// "CPUExecutionProvider" -> "cpu"; unknown names are returned unchanged.
std::string CanonicalProviderName(const std::string& name);
// Builds providers in the given order; "cpu" is appended when missing so
// every node has a fallback. Throws kInvalidArgument on an unknown name.
ProviderList MakeProviders(const std::vector<std::string>& names);

}  // namespace tessera
