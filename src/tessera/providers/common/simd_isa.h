// Highway's run-time dispatch under the instruction-set cap (base/cpu_isa.h).
// Every kernel this library compiles per SIMD target (simd_elementwise.cc,
// lstm_step.cc) dispatches through one process-wide choice, so the cap is
// process-wide too: the first cap applied fixes it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tessera/base/cpu_isa.h"

namespace tessera::cpu {

// The best level this machine runs, as Highway detected it before any cap.
IsaLevel HostSimdLevel();
// Caps Highway's dispatch at `level` for the whole process. Throws
// kInvalidArgument when this machine cannot run `level`, or when the process
// already runs under a different cap (from TESSERA_MAX_ISA or an earlier
// session); applying the cap in force again is a no-op.
void CapSimdTargets(IsaLevel level);
// Why a machine whose best level is `host` cannot run `level`, or "" when it
// can (a level of another architecture never runs).
std::string WhyCannotRun(IsaLevel level, IsaLevel host);
// Why this process cannot run under a cap at `level` ("" when it can): the
// machine cannot run it, or this build compiles no Highway target that low.
std::string WhyCannotCap(IsaLevel level);
// The cap in force, if any.
std::optional<IsaLevel> SimdCap();
// The Highway target dispatch picks now ("AVX2", "AVX3", "SCALAR"...).
std::string ActiveSimdTarget();
// The level a Highway target (one HWY_* bit) belongs to.
IsaLevel LevelOfSimdTarget(int64_t target);
// OpenBLAS's kernel family ("Haswell", "SkylakeX"): chosen when the library
// loads, from the CPU or OPENBLAS_CORETYPE, and not subject to the cap.
std::string BlasCoreName();

}  // namespace tessera::cpu
