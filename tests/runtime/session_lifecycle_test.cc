// Sessions created, run and destroyed from several threads at once. Under the
// ASan build (LeakSanitizer at exit) this also shows that creation, failed
// creation and destruction free everything they allocate.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/base/status.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

std::string SourcePath(const std::string& rel) { return std::string(TESSERA_SOURCE_DIR) + "/" + rel; }

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

Tensor Image(int seed) {
  Tensor x(DataType::kFloat, {1, 3, 32, 32});
  for (int64_t k = 0; k < x.numel(); ++k) x.data<float>()[k] = static_cast<float>((k * (seed + 5)) % 23) / 23.0f - 0.5f;
  return x;
}

TEST(SessionLifecycle, ConcurrentCreateRunDestroyMatchesSequential) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 3;
  const std::string cnn = SourcePath("models/default/model.onnx");
  const std::string if_bytes = ReadBytes(SourcePath("tests/data/if_outer_scope/model.onnx"));
  ASSERT_FALSE(if_bytes.empty());

  // Expected results from one session, single-threaded.
  std::vector<Tensor> expected;
  {
    auto s = Session::FromFile(cnn, SessionOptions{}, MakeProviders({"cpu"}));
    for (int t = 0; t < kThreads; ++t) expected.push_back(s->Run({{"image", Image(t)}})[0].tensor());
  }

  std::atomic<int> failures{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Status st = CatchStatus([&] {
        for (int round = 0; round < kRounds; ++round) {
          // A session with its own thread pool (1 or 2 threads), from a file.
          SessionOptions options;
          options.intra_op_num_threads = 1 + (t + round) % 2;
          auto s = Session::FromFile(cnn, options, MakeProviders({"cpu"}));
          Tensor y = s->Run({{"image", Image(t)}})[0].tensor();
          if (!CompareTensors(y, expected[static_cast<size_t>(t)], 0, 0).match)
            Throw(StatusCode::kInternal, "cnn output differs in round ", round);
          s.reset();

          // A session with subgraphs, from bytes.
          auto branch = Session::FromBytes(if_bytes.data(), if_bytes.size(), SessionOptions{}, MakeProviders({"cpu"}));
          bool cond = (t + round) % 2 == 0;
          auto out = branch->Run({{"cond", Tensor::Scalar<bool>(cond)}, {"x", Tensor::FromVector<float>({1, 2}, {2})}});
          float want = cond ? 2.0f : 0.0f;  // x + 1 or x - 1
          if (out[0].tensor().data<float>()[0] != want) Throw(StatusCode::kInternal, "If output differs");

          // Creation that fails part-way (after parsing, at the graph check,
          // at kernel lookup) must free what it built.
          for (const char* bad : {"cycle.onnx", "unknown_op.onnx", "string_invalid_utf8.onnx"}) {
            Status failed = CatchStatus([&] {
              Session::FromFile(SourcePath(std::string("tests/data/malformed/") + bad), SessionOptions{},
                                MakeProviders({"cpu"}));
            });
            if (failed.ok()) Throw(StatusCode::kInternal, bad, " was accepted");
          }
        }
      });
      if (!st.ok()) {
        errors[static_cast<size_t>(t)] = st.message();
        failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[static_cast<size_t>(t)], "") << "thread " << t;
}

}  // namespace
}  // namespace tessera
