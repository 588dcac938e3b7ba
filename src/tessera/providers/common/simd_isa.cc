#include "tessera/providers/common/simd_isa.h"

#include <cblas.h>

#include <algorithm>
#include <mutex>

#include <hwy/targets.h>

#include "tessera/base/status.h"

namespace tessera::cpu {
namespace {

int64_t BestOf(int64_t targets) { return targets & -targets; }  // lower bits are better targets

// Highway targets above `level`: the bits a cap at `level` disables.
int64_t TargetsAbove(IsaLevel level) {
  switch (level) {
    case IsaLevel::kAvx512:
    case IsaLevel::kSve: return 0;
#if HWY_ARCH_X86
    case IsaLevel::kAvx2: return HWY_AVX2 - 1;
    case IsaLevel::kSse4: return HWY_SSE4 - 1;
#endif
#if HWY_ARCH_ARM
    case IsaLevel::kNeon: return HWY_NEON - 1;
#endif
    default: return ~(HWY_SCALAR | HWY_EMU128);
  }
}

struct CapState {
  std::mutex mu;
  std::optional<IsaLevel> cap;
};
CapState& State() {
  static CapState state;
  return state;
}

// Read once, before any cap can mask what Highway reports.
int64_t HostTargets() {
  static const int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
  return targets;
}

// Applies TESSERA_MAX_ISA before main, so programs that call kernels without
// a session (the unit tests, the micro-benchmarks) run under it too. A bad
// value is left for session creation to report.
const bool kEnvironmentCapApplied = [] {
  HostTargets();
  try {
    if (auto cap = IsaCapFromEnvironment()) CapSimdTargets(*cap);
    return true;
  } catch (const Error&) {
    return false;
  }
}();

}  // namespace

IsaLevel LevelOfSimdTarget(int64_t target) {
#if HWY_ARCH_X86
  if (target < HWY_AVX2) return IsaLevel::kAvx512;  // AVX3 and its extensions
  if (target == HWY_AVX2) return IsaLevel::kAvx2;
  if (target == HWY_SSE4) return IsaLevel::kSse4;
#elif HWY_ARCH_ARM
  if (target < HWY_NEON) return IsaLevel::kSve;  // SVE and SVE2 in any width
  if (target == HWY_NEON) return IsaLevel::kNeon;
#endif
  return IsaLevel::kScalar;
}

std::string WhyCannotRun(IsaLevel level, IsaLevel host) {
  const auto levels = IsaLevelsOfThisArchitecture();
  const auto at = [&levels](IsaLevel l) { return std::find(levels.begin(), levels.end(), l) - levels.begin(); };
  if (at(level) == static_cast<std::ptrdiff_t>(levels.size()))
    return std::string(IsaLevelName(level)) + " is not a level of this architecture";
  if (at(level) > at(host))
    return "this machine cannot run " + std::string(IsaLevelName(level)) + " (its best is " +
           std::string(IsaLevelName(host)) + ")";
  return "";
}

IsaLevel HostSimdLevel() { return LevelOfSimdTarget(BestOf(HostTargets())); }

std::string WhyCannotCap(IsaLevel level) {
  std::string why = WhyCannotRun(level, HostSimdLevel());
  if (!why.empty()) return why;
  // A build may compile no target that low: aarch64's Highway builds NEON
  // alone, so a scalar cap would silently keep running NEON.
  std::string compiled;
  for (int64_t t = HWY_TARGETS; t != 0; t &= t - 1) {
    if (WhyCannotRun(LevelOfSimdTarget(BestOf(t)), level).empty()) return "";
    compiled += (compiled.empty() ? "" : ", ") + std::string(hwy::TargetName(BestOf(t)));
  }
  return "this build compiles no SIMD target at or below " + std::string(IsaLevelName(level)) + " (it has " +
         compiled + ")";
}

void CapSimdTargets(IsaLevel level) {
  CapState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.cap == level) return;
  if (s.cap)
    TS_THROW(kInvalidArgument, "the instruction-set cap is process-wide and this process already runs at most ",
             IsaLevelName(*s.cap), "; a session cannot ask for ", IsaLevelName(level),
             " (start another process, or set TESSERA_MAX_ISA for all of them)");
  const std::string why = WhyCannotCap(level);
  if (!why.empty())
    TS_THROW(kInvalidArgument, "instruction-set cap ", IsaLevelName(level), ": ", why, "; Highway's best target here is ",
             hwy::TargetName(BestOf(HostTargets())));
  hwy::DisableTargets(TargetsAbove(level));
  s.cap = level;
}

std::optional<IsaLevel> SimdCap() {
  CapState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.cap;
}

// From the targets read at start-up, less those the cap disabled; never
// hwy::SupportedTargets() again: Highway 1.0's re-detection there points
// dispatch at every detected target, so under an AVX2 cap the kernels ran
// AVX-512 after a session had merely reported its instruction sets.
std::string ActiveSimdTarget() {
  int64_t targets = HostTargets();
  if (auto cap = SimdCap()) targets &= ~TargetsAbove(*cap);
  return hwy::TargetName(BestOf(targets));
}

std::string BlasCoreName() {
  const char* name = openblas_get_corename();
  return name != nullptr ? name : "unknown";
}

}  // namespace tessera::cpu
