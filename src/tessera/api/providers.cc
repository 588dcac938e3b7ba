#include "tessera/api/providers.h"

#include <algorithm>

#include "tessera/providers/cpu/cpu_execution_provider.h"

namespace tessera {

std::vector<std::string> AvailableProviders() { return {"cpu"}; }

std::string CanonicalProviderName(const std::string& name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "cpu" || lower == "cpuexecutionprovider") return "cpu";
  if (lower == "opencl" || lower == "openclexecutionprovider") return "opencl";
  if (lower == "dnnl" || lower == "onednn" || lower == "dnnlexecutionprovider") return "dnnl";
  if (lower == "cuda" || lower == "cudaexecutionprovider") return "cuda";
  return name;
}

ProviderList MakeProviders(const std::vector<std::string>& names) {
  ProviderList list;
  std::vector<std::string> seen;
  auto available = AvailableProviders();
  for (const auto& raw : names) {
    std::string n = CanonicalProviderName(raw);
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    if (n == "cpu") {
      list.push_back(MakeCpuExecutionProvider());
    } else {
      std::string all;
      for (const auto& a : available) all += (all.empty() ? "" : ", ") + a;
      TS_THROW(kInvalidArgument, "execution provider '", raw, "' is not available in this build (available: ", all,
               ")");
    }
    seen.push_back(n);
  }
  if (std::find(seen.begin(), seen.end(), "cpu") == seen.end()) list.push_back(MakeCpuExecutionProvider());
  return list;
}

}  // namespace tessera
