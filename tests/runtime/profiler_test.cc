#include "tessera/runtime/profiler.h"

#include <cstdio>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "tessera/api/providers.h"
#include "tessera/base/json.h"
#include "tessera/base/mapped_file.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

TEST(Profiler, TraceHasOneEventPerExecutedNodeWithRequiredFields) {
  SessionOptions opts;
  opts.enable_profiling = true;
  opts.profile_file_prefix = ::testing::TempDir() + "tessera_profile_test";
  opts.graph_optimization_level = OptimizationLevel::kDisabled;  // one event per node as written
  auto s = Session::FromFile(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx", opts,
                             MakeProviders({"cpu"}));
  Tensor x(DataType::kFloat, {1, 3, 32, 32});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 0.01f * static_cast<float>(i % 100);
  const int runs = 2;
  for (int r = 0; r < runs; ++r) s->Run({{"image", x}});
  std::string path = s->EndProfiling();
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(s->EndProfiling(), "");  // profiling stops after the first call

  Json trace = ParseJson(ReadFileToString(path));
  std::remove(path.c_str());
  const Json* events = trace.Find("traceEvents");
  ASSERT_NE(events, nullptr);
  std::map<std::string, int> node_events;
  int partitions = 0, counted = 0;
  std::set<std::string> phases;
  for (const Json& e : events->array) {
    for (const char* field : {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"})
      ASSERT_NE(e.Find(field), nullptr) << "event lacks '" << field << "'";
    EXPECT_EQ(e.StringOr("ph", ""), "X");
    std::string cat = e.StringOr("cat", "");
    if (cat == "node") {
      const Json* args = e.Find("args");
      for (const char* field : {"op_type", "provider", "inputs", "outputs"})
        ASSERT_NE(args->Find(field), nullptr) << "node event lacks args." << field;
      EXPECT_EQ(args->StringOr("provider", ""), "cpu");
      EXPECT_FALSE(args->Find("inputs")->array.empty());
      node_events[e.StringOr("name", "")]++;
      // The batch is symbolic in the model: the counts come from this run's
      // shapes (multiply-adds twice, other ops one per output).
      const std::string name = e.StringOr("name", "");
      const std::map<std::string, int64_t> want = {{"conv1", 2 * (8 * 32 * 32) * (3 * 9)}, {"fc", 2 * 10 * 16},
                                                   {"relu1", 8 * 32 * 32}};
      if (auto it = want.find(name); it != want.end()) {
        EXPECT_EQ(args->NumberOr("flops", -1), it->second) << name;
        ++counted;
      }
    } else if (cat == "partition") {
      ++partitions;
    } else if (cat == "session") {
      phases.insert(e.StringOr("name", ""));
    }
  }
  ASSERT_EQ(node_events.size(), 9u);  // every node of the model
  EXPECT_EQ(counted, 3 * runs);
  for (const auto& [name, count] : node_events) EXPECT_EQ(count, runs) << name;
  EXPECT_EQ(partitions, runs);  // one cpu partition per run
  for (const char* phase : {"model_load", "partition_and_kernel_creation", "shape_inference", "model_run"})
    EXPECT_TRUE(phases.count(phase)) << phase;
}

TEST(Profiler, DisabledSessionWritesNothing) {
  auto s = Session::FromFile(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx", SessionOptions{},
                             MakeProviders({"cpu"}));
  EXPECT_EQ(s->EndProfiling(), "");
}

TEST(Json, ParsesAndRejects) {
  Json j = ParseJson(R"({"a": [1, 2.5, "x\n", true, null], "b": {"c": -3e2}})");
  EXPECT_EQ(j.Find("a")->array.size(), 5u);
  EXPECT_EQ(j.Find("a")->array[2].string, "x\n");
  EXPECT_EQ(j.Find("b")->NumberOr("c", 0), -300);
  EXPECT_THROW(ParseJson("{\"a\": }"), Error);
  EXPECT_THROW(ParseJson("[1, 2"), Error);
}

}  // namespace
}  // namespace tessera
