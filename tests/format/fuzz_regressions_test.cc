// Inputs the fuzzers found (tests/fuzz/regressions), replayed through the
// same harness code the libFuzzer targets run (tests/fuzz/*_harness.h), in
// the ordinary GCC build: each must end in success or a tessera::Error, which
// the harness swallows; a crash, a sanitizer report (in the ASan build) or any
// other exception fails the test. File names say which target found them:
// load-* for fuzz_model_load, inputs-* for fuzz_model_inputs.
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/inputs_harness.h"
#include "tests/fuzz/load_harness.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> FilesIn(const std::string& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

const std::string kRegressions = std::string(TESSERA_SOURCE_DIR) + "/tests/fuzz/regressions";

TEST(FuzzRegressions, LoadHarnessSurvivesEveryRegression) {
  for (const auto& file : FilesIn(kRegressions, "load-")) {
    SCOPED_TRACE(file.filename().string());
    std::string bytes = ReadBytes(file);
    EXPECT_NO_THROW(tessera_fuzz::RunLoadHarness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
}

TEST(FuzzRegressions, InputsHarnessSurvivesEveryRegression) {
  for (const auto& file : FilesIn(kRegressions, "inputs-")) {
    SCOPED_TRACE(file.filename().string());
    std::string bytes = ReadBytes(file);
    EXPECT_NO_THROW(tessera_fuzz::RunInputsHarness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
}

TEST(FuzzRegressions, LoadHarnessSurvivesTheMalformedCorpus) {
  // The generated corpus (tests/data/malformed) through the fuzz harness
  // too, which also runs whatever loads.
  auto files = FilesIn(std::string(TESSERA_SOURCE_DIR) + "/tests/data/malformed", "");
  int models = 0;
  for (const auto& file : files) {
    if (file.extension() != ".onnx") continue;
    SCOPED_TRACE(file.filename().string());
    std::string bytes = ReadBytes(file);
    EXPECT_NO_THROW(tessera_fuzz::RunLoadHarness(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    ++models;
  }
  EXPECT_GT(models, 20);
}

TEST(FuzzRegressions, InputsHarnessSurvivesPseudoRandomBytesOnTheContribModels) {
  // A few thousand deterministic byte strings through the com.microsoft
  // models (the harness's last ten): their packed formats against
  // arbitrary shapes and values, in every test run and not only under
  // libFuzzer.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<uint8_t>(state);
  };
  const int models = tessera_fuzz::NumCases();
  // TESSERA_FUZZ_ROUNDS=N runs longer by hand; TESSERA_FUZZ_DUMP=FILE keeps
  // the bytes of the round in progress (a crash leaves them there, ready
  // for tests/fuzz/regressions/inputs-NAME).
  const char* rounds_env = std::getenv("TESSERA_FUZZ_ROUNDS");
  const int rounds = rounds_env ? std::atoi(rounds_env) : 3000;
  if (const char* seed = std::getenv("TESSERA_FUZZ_SEED")) state ^= std::strtoull(seed, nullptr, 10) * 0x9E3779B97F4A7C15ull;
  for (int round = 0; round < rounds; ++round) {
    std::vector<uint8_t> bytes(48 + round % 80);
    for (auto& b : bytes) b = next();
    bytes[0] = static_cast<uint8_t>(models - 1 - round % 10);
    if (const char* dump = std::getenv("TESSERA_FUZZ_DUMP")) {  // the bytes of the round in progress
      if (FILE* f = std::fopen(dump, "wb")) {
        std::fwrite(bytes.data(), 1, bytes.size(), f);
        std::fclose(f);
      }
    }
    EXPECT_NO_THROW(tessera_fuzz::RunInputsHarness(bytes.data(), bytes.size())) << "round " << round;
  }
}

TEST(FuzzRegressions, InputsHarnessRunsEveryModel) {
  // One input per built-in model: the first byte picks the model, the rest
  // decode to declared dtypes and small shapes. Every model must at least
  // build and accept or refuse cleanly.
  for (int model = 0; model < 64; ++model) {
    SCOPED_TRACE(model);
    std::vector<uint8_t> bytes = {static_cast<uint8_t>(model), 0, 0, 2, 2, 3, 120, 124, 128, 132, 240, 241,
                                  0, 2, 2, 3, 121, 122, 123, 124, 125, 126, 0, 1, 1, 1, 0, 1, 1, 1};
    EXPECT_NO_THROW(tessera_fuzz::RunInputsHarness(bytes.data(), bytes.size()));
  }
}

}  // namespace
}  // namespace tessera
