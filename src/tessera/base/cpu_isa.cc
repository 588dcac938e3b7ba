#include "tessera/base/cpu_isa.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "tessera/base/status.h"

namespace tessera {

std::string_view IsaLevelName(IsaLevel level) {
  switch (level) {
    case IsaLevel::kScalar: return "scalar";
    case IsaLevel::kSse4: return "sse4";
    case IsaLevel::kAvx2: return "avx2";
    case IsaLevel::kAvx512: return "avx512";
    case IsaLevel::kNeon: return "neon";
    case IsaLevel::kSve: return "sve";
  }
  return "unknown";
}

std::vector<IsaLevel> IsaLevelsOfThisArchitecture() {
#if defined(__aarch64__)
  return {IsaLevel::kScalar, IsaLevel::kNeon, IsaLevel::kSve};
#elif defined(__x86_64__) || defined(__i386__)
  return {IsaLevel::kScalar, IsaLevel::kSse4, IsaLevel::kAvx2, IsaLevel::kAvx512};
#else
  return {IsaLevel::kScalar};
#endif
}

IsaLevel ParseIsaLevel(std::string_view text, std::string_view source) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string valid;
  for (IsaLevel level : IsaLevelsOfThisArchitecture()) {
    if (lower == IsaLevelName(level)) return level;
    valid += (valid.empty() ? "" : "|") + std::string(IsaLevelName(level));
  }
  TS_THROW(kInvalidArgument, source, ": unknown instruction-set level '", text, "' (this build takes ", valid, ")");
}

std::optional<IsaLevel> IsaCapFromEnvironment() {
  const char* env = std::getenv("TESSERA_MAX_ISA");
  if (env == nullptr || *env == '\0') return std::nullopt;
  return ParseIsaLevel(env, "TESSERA_MAX_ISA");
}

std::optional<IsaLevel> ResolveIsaCap(const std::string& option) {
  if (!option.empty()) return ParseIsaLevel(option, "max_isa");
  return IsaCapFromEnvironment();
}

}  // namespace tessera
