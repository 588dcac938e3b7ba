#include "tessera/api/providers.h"

#include <algorithm>

#include "tessera/providers/cpu/cpu_execution_provider.h"
#ifdef TESSERA_HAVE_OPENCL
#include "tessera/providers/opencl/opencl_execution_provider.h"
#endif
#ifdef TESSERA_HAVE_DNNL
#include "tessera/providers/dnnl/dnnl_execution_provider.h"
#endif

namespace tessera {

namespace {

// The provider named `name` (canonical), or null with *why when this build
// lacks it or its device is missing.
std::shared_ptr<const ExecutionProvider> TryMake(const std::string& name, std::string* why) {
  if (name == "cpu") return MakeCpuExecutionProvider();
#ifdef TESSERA_HAVE_OPENCL
  if (name == "opencl") {
    auto ep = OpenClExecutionProvider::Create(why);
    if (!ep) *why = "unavailable: " + *why;
    return ep;
  }
#endif
#ifdef TESSERA_HAVE_DNNL
  if (name == "dnnl") {
    static std::string failure;
    static const std::shared_ptr<const DnnlExecutionProvider> ep = DnnlExecutionProvider::Create(&failure);
    if (!ep) *why = failure;
    return ep;
  }
#endif
  if (name == "opencl" || name == "dnnl" || name == "cuda") {
    *why = "not available in this build";
    return nullptr;
  }
  *why = "not available (no such provider)";
  return nullptr;
}

}  // namespace

std::vector<std::string> AvailableProviders() {
  std::vector<std::string> names;
  std::string why;
  for (const char* n : {"dnnl", "opencl"})
    if (TryMake(n, &why)) names.push_back(n);
  names.push_back("cpu");
  return names;
}

std::vector<std::string> DefaultProviders() {
#ifdef TESSERA_HAVE_DNNL
  std::string why;
  if (TryMake("dnnl", &why)) return {"dnnl", "cpu"};
#endif
  return {"cpu"};
}

std::string DefaultProviderList() {
  std::string list;
  for (const auto& p : DefaultProviders()) list += (list.empty() ? "" : ",") + p;
  return list;
}

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
  for (const auto& raw : names) {
    std::string n = CanonicalProviderName(raw);
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    std::string why;
    auto ep = TryMake(n, &why);
    if (!ep) {
      // Only now: probing a device (OpenCL starts its compiler) costs time
      // and memory a CPU-only session should not pay.
      std::string all;
      for (const auto& a : AvailableProviders()) all += (all.empty() ? "" : ", ") + a;
      TS_THROW(kInvalidArgument, "execution provider '", raw, "' is ", why, " (available: ", all, ")");
    }
    list.push_back(std::move(ep));
    seen.push_back(n);
  }
  if (std::find(seen.begin(), seen.end(), "cpu") == seen.end()) list.push_back(MakeCpuExecutionProvider());
  return list;
}

}  // namespace tessera
