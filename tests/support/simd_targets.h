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

#include "tessera/providers/common/simd_isa.h"

namespace tessera::test {

// Pins dispatch to one target for its lifetime; when it ends, restores the
// pin of an enclosing ScopedSimdTarget, or else run-time detection (under
// the cap), also when an ASSERT leaves the scope early.
class ScopedSimdTarget {
 public:
  explicit ScopedSimdTarget(int64_t target) : enclosing_(Pinned()) {
    Pinned() = target;
    hwy::SetSupportedTargetsForTest(target);
  }
  ~ScopedSimdTarget() {
    Pinned() = enclosing_;
    hwy::SetSupportedTargetsForTest(enclosing_);  // 0: detection again
  }
  ScopedSimdTarget(const ScopedSimdTarget&) = delete;
  ScopedSimdTarget& operator=(const ScopedSimdTarget&) = delete;

 private:
  static int64_t& Pinned() {
    static int64_t pinned = 0;
    return pinned;
  }
  int64_t enclosing_;
};

// The targets OnEverySimdTarget visits, best first.
inline std::vector<int64_t> SimdTargetsToTest() {
  (void)cpu::SimdCap();  // links the TESSERA_MAX_ISA hook, so the cap is in force
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  // That re-detection pointed dispatch at every detected target, past the
  // cap (Highway 1.0): point it back at the supported ones.
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return targets;
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
