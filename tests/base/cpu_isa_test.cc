// Instruction-set level names, parsing and the environment variable.
#include "tessera/base/cpu_isa.h"

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tessera/base/status.h"

namespace tessera {
namespace {

// Sets TESSERA_MAX_ISA for one scope, then puts back what was there (the
// matrix runs this binary under a cap).
class ScopedMaxIsaVariable {
 public:
  explicit ScopedMaxIsaVariable(const char* value) {
    if (const char* old = std::getenv("TESSERA_MAX_ISA")) old_ = old;
    setenv("TESSERA_MAX_ISA", value, 1);
  }
  ~ScopedMaxIsaVariable() {
    if (old_.empty()) unsetenv("TESSERA_MAX_ISA");
    else setenv("TESSERA_MAX_ISA", old_.c_str(), 1);
  }

 private:
  std::string old_;
};

TEST(CpuIsaTest, EveryLevelOfThisArchitectureParsesBackFromItsName) {
  const auto levels = IsaLevelsOfThisArchitecture();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), IsaLevel::kScalar);
  for (IsaLevel level : levels) {
    EXPECT_EQ(ParseIsaLevel(IsaLevelName(level), "test"), level);
    std::string upper(IsaLevelName(level));
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(ParseIsaLevel(upper, "test"), level) << "case-insensitive";
  }
}

TEST(CpuIsaTest, UnknownNameIsAnErrorNamingTheSourceAndTheValidNames) {
  try {
    ParseIsaLevel("avx9", "--max-isa");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("--max-isa"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'avx9'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("scalar"), std::string::npos) << msg;
  }
#if defined(__x86_64__)
  EXPECT_THROW(ParseIsaLevel("neon", "test"), Error);  // another architecture's level
#endif
  EXPECT_THROW(ParseIsaLevel("", "test"), Error);
}

TEST(CpuIsaTest, SessionOptionWinsOverTheEnvironment) {
  ScopedMaxIsaVariable env("scalar");
  EXPECT_EQ(IsaCapFromEnvironment(), IsaLevel::kScalar);
  EXPECT_EQ(ResolveIsaCap(""), IsaLevel::kScalar);
  EXPECT_EQ(ResolveIsaCap("Scalar"), IsaLevel::kScalar);
#if defined(__x86_64__)
  EXPECT_EQ(ResolveIsaCap("avx2"), IsaLevel::kAvx2);
#endif
}

TEST(CpuIsaTest, EmptyVariableMeansNoCapAndABadOneIsAnError) {
  {
    ScopedMaxIsaVariable env("");
    EXPECT_EQ(IsaCapFromEnvironment(), std::nullopt);
    EXPECT_EQ(ResolveIsaCap(""), std::nullopt);
  }
  ScopedMaxIsaVariable env("fast");
  try {
    IsaCapFromEnvironment();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TESSERA_MAX_ISA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
