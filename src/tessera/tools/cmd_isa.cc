// `tessera isa`: the instruction-set levels this machine runs, and what each
// library picks under a cap (--max-isa, else TESSERA_MAX_ISA). Exits 1 when
// the cap names no level, 3 when the machine cannot run it, so scripts can
// ask before they test.
#include <cstdio>

#include "tessera/api/providers.h"
#include "tessera/providers/common/simd_isa.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

int IsaCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {});
  const IsaLevel host = cpu::HostSimdLevel();
  std::string runs;
  for (IsaLevel level : IsaLevelsOfThisArchitecture())
    if (cpu::WhyCannotCap(level).empty()) runs += (runs.empty() ? "" : " ") + std::string(IsaLevelName(level));
  std::printf("machine          best level %s; runs %s\n", std::string(IsaLevelName(host)).c_str(), runs.c_str());
  std::optional<IsaLevel> cap;
  std::string source;
  if (args.has("max-isa")) {
    cap = ParseIsaLevel(args.get("max-isa"), "--max-isa");
    source = "--max-isa";
  } else if ((cap = IsaCapFromEnvironment())) {
    source = "TESSERA_MAX_ISA";
  }
  if (const std::string why = cap ? cpu::WhyCannotCap(*cap) : ""; !why.empty()) {
    std::printf("cap              %s: %s\n", std::string(IsaLevelName(*cap)).c_str(), why.c_str());
    return 3;
  }
  ProviderList providers = MakeProviders(SplitList(args.get("providers", DefaultProviderList())));
  if (cap)
    for (const auto& p : providers) p->CapIsa(*cap);
  std::printf("cap              %s\n", cap ? (std::string(IsaLevelName(*cap)) + " (" + source + ")").c_str() : "none");
  for (const auto& p : providers) {
    std::string line;
    for (const auto& [library, isa] : p->IsaInUse()) line += (line.empty() ? "" : ", ") + library + " " + isa;
    if (!line.empty()) std::printf("provider %-8s %s\n", p->name().c_str(), line.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
