// The instruction-set cap: the highest SIMD level Tessera's kernels and the
// libraries it drives may use (TESSERA_MAX_ISA, SessionOptions::max_isa,
// --max-isa). It exists so one machine can prove every code path a user's
// machine would take: an AVX-512 host runs the AVX2, SSE4 and scalar paths
// under a cap. Providers apply it (ExecutionProvider::CapIsa); this file only
// names the levels.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Ordered within an architecture: a cap admits its level and those below.
// x86-64: scalar < sse4 < avx2 < avx512. aarch64: scalar < neon < sve.
enum class IsaLevel { kScalar, kSse4, kAvx2, kAvx512, kNeon, kSve };

// "avx2" for kAvx2, as users type it.
std::string_view IsaLevelName(IsaLevel level);
// The levels of the architecture this binary was built for, lowest first.
std::vector<IsaLevel> IsaLevelsOfThisArchitecture();
// Parses a level name (case-insensitive). Throws kInvalidArgument naming
// `source` (the variable, option or flag it came from) and the valid names.
IsaLevel ParseIsaLevel(std::string_view text, std::string_view source);
// TESSERA_MAX_ISA when set and not empty; throws like ParseIsaLevel.
std::optional<IsaLevel> IsaCapFromEnvironment();
// The cap a session runs under: `option` (SessionOptions::max_isa) when not
// empty, else TESSERA_MAX_ISA, else none.
std::optional<IsaLevel> ResolveIsaCap(const std::string& option);

}  // namespace tessera
