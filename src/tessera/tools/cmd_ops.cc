// `tessera ops`: lists the kernel tables of every available provider.
#include <cstdio>
#include <map>

#include "tessera/api/providers.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

int OpsCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"json"});
  bool json = args.has("json");
  ProviderList providers = MakeProviders(SplitList(args.get("providers", DefaultProviderList())));
  if (json) std::printf("{\n");
  for (size_t p = 0; p < providers.size(); ++p) {
    const KernelTable& table = providers[p]->kernels();
    if (json) {
      std::printf("  \"%s\": [\n", JsonEscape(providers[p]->name()).c_str());
    } else {
      std::printf("%s: %zu kernels\n", providers[p]->name().c_str(), table.rows().size());
    }
    const auto& rows = table.rows();
    for (size_t i = 0; i < rows.size(); ++i) {
      const KernelRow& r = rows[i];
      std::string types;
      for (DataType t : r.types) {
        if (!types.empty()) types += ",";
        types += DataTypeName(t);
      }
      if (json) {
        std::printf("    {\"domain\": \"%s\", \"op\": \"%s\", \"first\": %lld, \"last\": %lld, \"types\": \"%s\"}%s\n",
                    JsonEscape(r.domain).c_str(), JsonEscape(r.op_type).c_str(),
                    static_cast<long long>(r.first_opset), static_cast<long long>(r.last_opset), types.c_str(),
                    i + 1 < rows.size() ? "," : "");
      } else {
        std::printf("  %-13s %-32s %3lld-%-3lld %s\n", r.domain.c_str(), r.op_type.c_str(),
                    static_cast<long long>(r.first_opset), static_cast<long long>(r.last_opset),
                    types.empty() ? "(any)" : types.c_str());
      }
    }
    if (json) std::printf("  ]%s\n", p + 1 < providers.size() ? "," : "");
  }
  if (json) std::printf("}\n");
  return 0;
}

}  // namespace tessera::cli
