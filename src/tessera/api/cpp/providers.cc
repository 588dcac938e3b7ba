#include "tessera/providers.h"

#include "tessera/api/cpp/error_translation.h"
#include "tessera/api/providers.h"

namespace tessera::v1 {

std::vector<std::string> AvailableProviders() {
  return detail::Guarded([] { return ::tessera::AvailableProviders(); });
}

std::vector<std::string> DefaultProviders() {
  return detail::Guarded([] { return ::tessera::DefaultProviders(); });
}

}  // namespace tessera::v1
