// Runs a test body once per SIMD target: every Highway target this binary
// compiled that the machine runs under the instruction-set cap in force
// (TESSERA_MAX_ISA), each as the only one dynamic dispatch may pick. A
// machine runs only its best target otherwise, so a kernel's AVX2 or SSE4
// path would go untested on an AVX-512 host.
//
//   OnEverySimdTarget([&] { SiluF32(x, y, n); EXPECT_...; });
#pragma once

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "tessera/providers/cpu/simd_isa.h"

namespace tessera::test {

// Pins dispatch to one target for its lifetime; restores run-time detection
// (under the cap) when it ends, also when an ASSERT leaves the scope early.
class ScopedSimdTarget {
 public:
  explicit ScopedSimdTarget(int64_t target) { hwy::SetSupportedTargetsForTest(target); }
  ~ScopedSimdTarget() { hwy::SetSupportedTargetsForTest(0); }
  ScopedSimdTarget(const ScopedSimdTarget&) = delete;
  ScopedSimdTarget& operator=(const ScopedSimdTarget&) = delete;
};

// The targets OnEverySimdTarget visits, best first.
inline std::vector<int64_t> SimdTargetsToTest() {
  (void)cpu::SimdCap();  // links the TESSERA_MAX_ISA hook, so the cap is in force
  return hwy::SupportedAndGeneratedTargets();
}

template <class F>
void OnEverySimdTarget(const F& body) {
  for (int64_t target : SimdTargetsToTest()) {
    SCOPED_TRACE(hwy::TargetName(target));
    ScopedSimdTarget pin(target);
    body();
  }
}

}  // namespace tessera::test
