// The instruction-set cap on Highway's dispatch and on oneDNN. A cap is
// process-wide and final, so each case that sets one runs in a child
// process of its own (a death test that exits 0 when every check held).
#include "tessera/providers/common/simd_isa.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "support/op_test.h"
#include "support/simd_targets.h"
#include "tessera/api/providers.h"
#include "tessera/providers/common/sgemm.h"
#include "tessera/runtime/session.h"

namespace tessera::cpu {
namespace {

// Fails the child with a message on stderr (what EXPECT_EXIT matches).
#define CHILD_CHECK(cond, msg)                                  \
  do {                                                          \
    if (!(cond)) {                                              \
      std::fprintf(stderr, "check failed: %s: %s\n", #cond, std::string(msg).c_str()); \
      std::_Exit(1);                                            \
    }                                                           \
  } while (0)

// Cases that set their own cap cannot run under the matrix's.
#define SKIP_UNDER_ENVIRONMENT_CAP()                                                 \
  if (SimdCap()) GTEST_SKIP() << "runs under TESSERA_MAX_ISA=" << IsaLevelName(*SimdCap())

bool Below(IsaLevel a, IsaLevel b) { return WhyCannotRun(a, b).empty(); }  // a <= b

TEST(SimdIsaTest, WhyCannotRunOrdersTheLevels) {
#if defined(__x86_64__)
  EXPECT_EQ(WhyCannotRun(IsaLevel::kAvx2, IsaLevel::kAvx512), "");
  EXPECT_EQ(WhyCannotRun(IsaLevel::kScalar, IsaLevel::kScalar), "");
  EXPECT_EQ(WhyCannotRun(IsaLevel::kAvx512, IsaLevel::kAvx2), "this machine cannot run avx512 (its best is avx2)");
  EXPECT_NE(WhyCannotRun(IsaLevel::kSse4, IsaLevel::kScalar), "");
  EXPECT_NE(WhyCannotRun(IsaLevel::kNeon, IsaLevel::kAvx512).find("not a level of this architecture"), std::string::npos);
#endif
  EXPECT_EQ(WhyCannotRun(IsaLevel::kScalar, HostSimdLevel()), "");
}

// Under the matrix (TESSERA_MAX_ISA set), dispatch and the per-target test
// helper both stay at or below the cap, and the top target is the cap's.
TEST(SimdIsaTest, EnvironmentCapBoundsDispatchAndTheTestedTargets) {
  const auto env = IsaCapFromEnvironment();
  if (!env) GTEST_SKIP() << "TESSERA_MAX_ISA is not set";
  if (!WhyCannotCap(*env).empty()) GTEST_SKIP() << WhyCannotCap(*env);
  ASSERT_EQ(SimdCap(), env) << "the cap from the environment is in force before main";
  ASSERT_FALSE(test::SimdTargetsToTest().empty()) << "a compiled target within the cap";
  for (int64_t target : test::SimdTargetsToTest())
    EXPECT_TRUE(Below(LevelOfSimdTarget(target), *env)) << hwy::TargetName(target);
  EXPECT_EQ(LevelOfSimdTarget(test::SimdTargetsToTest().front()), *env);
  EXPECT_EQ(ActiveSimdTarget(), hwy::TargetName(test::SimdTargetsToTest().front()));
}

TEST(SimdIsaDeathTest, CapLimitsDispatchAndAnotherCapIsRefused) {
  SKIP_UNDER_ENVIRONMENT_CAP();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CapSimdTargets(IsaLevel::kScalar);
        CapSimdTargets(IsaLevel::kScalar);  // the cap in force again: fine
        CHILD_CHECK(ActiveSimdTarget() == "SCALAR" || ActiveSimdTarget() == "EMU128", ActiveSimdTarget());
        CHILD_CHECK(test::SimdTargetsToTest().size() == 1, "one target under the scalar cap");
        try {
          CapSimdTargets(HostSimdLevel() == IsaLevel::kScalar ? IsaLevel::kScalar : HostSimdLevel());
          CHILD_CHECK(HostSimdLevel() == IsaLevel::kScalar, "a second, different cap was accepted");
        } catch (const Error& e) {
          CHILD_CHECK(std::string(e.what()).find("already runs at most scalar") != std::string::npos, e.what());
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// Reporting the target in use must not move dispatch: Highway 1.0's
// SupportedTargets() re-points dispatch at every detected target, so after
// a session printed its ISA the kernels under an AVX2 cap ran AVX-512.
TEST(SimdIsaDeathTest, ReportingTheTargetKeepsDispatchUnderTheCap) {
  SKIP_UNDER_ENVIRONMENT_CAP();
  const auto levels = IsaLevelsOfThisArchitecture();
  if (HostSimdLevel() == levels.front()) GTEST_SKIP() << "no level below this machine's best";
  const IsaLevel below = *(std::find(levels.begin(), levels.end(), HostSimdLevel()) - 1);
  if (!WhyCannotCap(below).empty()) GTEST_SKIP() << WhyCannotCap(below);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CapSimdTargets(below);
        const int64_t nr = SgemmBlockingInUse().nr;  // the GEMM's panel width follows the vector width
        for (int i = 0; i < 2; ++i) {
          const std::string reported = ActiveSimdTarget();
          CHILD_CHECK(SgemmBlockingInUse().nr == nr, "dispatch moved after reporting " + reported);
          (void)test::SimdTargetsToTest();
          CHILD_CHECK(SgemmBlockingInUse().nr == nr, "dispatch moved after listing the targets to test");
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A session's max_isa reaches every library before its first kernel: the
// Highway target and oneDNN's ISA both report the cap.
TEST(SimdIsaDeathTest, SessionOptionCapsHighwayAndOneDnn) {
  SKIP_UNDER_ENVIRONMENT_CAP();
#if !defined(__x86_64__)
  GTEST_SKIP() << "the x86 levels";
#else
  if (!Below(IsaLevel::kAvx2, HostSimdLevel())) GTEST_SKIP() << "this machine has no AVX2";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Model model = test::OpTest("Relu")
                          .Input("x", test::T_<float>({-1.f, 2.f}, {2}))
                          .Output("y", test::T_<float>({0.f, 2.f}, {2}))
                          .BuildModel();
        SessionOptions options;
        options.max_isa = "avx2";
        Session session(model, options, MakeProviders(DefaultProviders()));
        std::string all;
        for (const auto& [library, isa] : session.IsaInUse()) {
          all += library + "=" + isa + " ";
          if (library == "highway") CHILD_CHECK(isa == "AVX2", all);
          if (library == "onednn") CHILD_CHECK(isa == "avx2", all);
        }
        CHILD_CHECK(session.IsaSummary().find("capped at avx2") != std::string::npos, session.IsaSummary());
        options.max_isa = "sse4";
        try {
          Session second(model, options, MakeProviders(DefaultProviders()));
          CHILD_CHECK(false, "a second session with another cap was accepted");
        } catch (const Error& e) {
          CHILD_CHECK(std::string(e.what()).find("avx2") != std::string::npos, e.what());
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
#endif
}

}  // namespace
}  // namespace tessera::cpu
