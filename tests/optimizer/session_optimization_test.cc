// The optimizer as a session runs it: options, profile events, and the
// optimized model written to disk, reloaded and run.
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/format/model_loader.h"

namespace tessera {
namespace {

using namespace test;

// Shape arithmetic, an Identity, a duplicate and a constant subexpression:
// something for every basic pass.
Model Busy() {
  Node gather = WithAttrs(MakeNode("g", "Gather", {"s", "zero"}, {"d0"}), {IntAttr("axis", 0)});
  Node concat = WithAttrs(MakeNode("c", "Concat", {"d0", "minus1"}, {"target"}), {IntAttr("axis", 0)});
  return [&] {
    Model m = MakeModel({MakeNode("shape", "Shape", {"x"}, {"s"}), gather, concat,
                         MakeNode("reshape", "Reshape", {"x", "target"}, {"r"}), MakeNode("id", "Identity", {"r"}, {"i"}),
                         MakeNode("w", "Add", {"w1", "w2"}, {"w12"}), MakeNode("m1", "Mul", {"i", "w12"}, {"a"}),
                         MakeNode("m2", "Mul", {"i", "w12"}, {"b"}), MakeNode("sum", "Add", {"a", "b"}, {"y"})},
                        {TensorInfo("x", DataType::kFloat, {2, 3})}, {TensorInfo("y", DataType::kFloat, {2, 3})});
    m.graph->initializers["zero"] = Ints({0});
    m.graph->initializers["minus1"] = Ints({-1});
    m.graph->initializers["w1"] = Floats({1, 2, 3}, {3});
    m.graph->initializers["w2"] = Floats({1, 2, 3}, {3});
    return m;
  }();
}

Feeds BusyFeeds() { return {{"x", Floats({1, 2, 3, 4, 5, 6}, {2, 3})}}; }

std::unique_ptr<Session> MakeSession(const Model& m, SessionOptions o) {
  o.intra_op_num_threads = 1;
  return std::make_unique<Session>(CopyModel(m), o, MakeProviders({"cpu"}));
}

TEST(SessionOptimization, LevelsChangeTheGraphNotTheResults) {
  Model m = Busy();
  std::vector<Value> want = RunUnoptimized(m, BusyFeeds());
  size_t disabled_nodes = 0;
  for (auto level : {OptimizationLevel::kDisabled, OptimizationLevel::kBasic, OptimizationLevel::kExtended,
                     OptimizationLevel::kLayout, OptimizationLevel::kAll}) {
    SessionOptions o;
    o.graph_optimization_level = level;
    auto s = MakeSession(m, o);
    auto got = s->Run(BusyFeeds());
    EXPECT_TRUE(CompareValues(got[0], want[0], 1e-6, 1e-6).match) << OptimizationLevelName(level);
    size_t nodes = s->Placement().size();
    if (level == OptimizationLevel::kDisabled) {
      disabled_nodes = nodes;
      EXPECT_EQ(nodes, 9u);
      EXPECT_TRUE(s->optimizer_report().levels.empty());
    } else {
      EXPECT_LT(nodes, disabled_nodes) << OptimizationLevelName(level);
      EXPECT_EQ(s->optimizer_report().nodes_before, 9u);
      EXPECT_EQ(s->optimizer_report().nodes_after, nodes);
    }
  }
  SessionOptions basic;
  basic.graph_optimization_level = OptimizationLevel::kBasic;
  // The reshape keeps the shape and goes with the Identity; the Muls merge.
  EXPECT_EQ(MakeSession(m, basic)->Placement().size(), 2u);
}

TEST(SessionOptimization, DisabledOptimizersAreHonouredAndChecked) {
  SessionOptions o;
  o.disabled_optimizers = {"ConstantFolding", "ShapeFolding", "RedundantNodeElimination",
                           "CommonSubexpressionElimination", "DuplicateInitializerMerging", "DeadNodeElimination"};
  o.graph_optimization_level = OptimizationLevel::kBasic;
  EXPECT_EQ(MakeSession(Busy(), o)->Placement().size(), 9u);
  o.disabled_optimizers = {"ConstantFoldin"};
  Status st = CatchStatus([&] { MakeSession(Busy(), o); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("ConstantFolding"), std::string::npos) << st.message();
}

TEST(SessionOptimization, ProfileHasOneEventPerLevel) {
  SessionOptions o;
  o.enable_profiling = true;
  o.graph_optimization_level = OptimizationLevel::kBasic;
  Session s(Busy(), o, MakeProviders({"cpu"}));
  std::string path = s.EndProfiling();
  ASSERT_FALSE(path.empty());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  std::filesystem::remove(path);
  EXPECT_NE(text.find("\"optimize_basic\""), std::string::npos);
  EXPECT_EQ(text.find("\"optimize_extended\""), std::string::npos);
}

TEST(SessionOptimization, OptimizedModelIsWrittenReloadedAndGivesTheSameResults) {
  std::string path = (std::filesystem::temp_directory_path() / "tessera_optimized_model_test.onnx").string();
  SessionOptions o;
  o.optimized_model_filepath = path;
  auto s = MakeSession(Busy(), o);
  auto want = s->Run(BusyFeeds());
  Model reloaded = LoadModelFromFile(path);
  std::filesystem::remove(path);
  EXPECT_EQ(reloaded.graph->nodes.size(), s->Placement().size());
  SessionOptions plain;
  plain.graph_optimization_level = OptimizationLevel::kDisabled;
  auto again = MakeSession(reloaded, plain);
  auto got = again->Run(BusyFeeds());
  EXPECT_TRUE(CompareValues(got[0], want[0], 0, 0).match);
  // Unwritable path: a clear error.
  o.optimized_model_filepath = "/nonexistent-dir/x.onnx";
  Status st = CatchStatus([&] { MakeSession(Busy(), o); });
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("/nonexistent-dir/x.onnx"), std::string::npos);
}

TEST(SessionOptimization, FullyFoldedModelRoundTrips) {
  // Every node folds: the graph output is then an initializer, which must
  // survive saving and reloading.
  Node c = WithAttrs(MakeNode("c", "Constant", {}, {"k"}), {TensorAttr("value", Floats({1, 2, 3}, {3}))});
  Model m = MakeModel({c, MakeNode("neg", "Neg", {"k"}, {"y"})}, {}, {TensorInfo("y", DataType::kFloat, {3})});
  std::string path = (std::filesystem::temp_directory_path() / "tessera_folded_model_test.onnx").string();
  SessionOptions o;
  o.optimized_model_filepath = path;
  auto s = MakeSession(m, o);
  EXPECT_TRUE(s->Placement().empty());
  auto want = s->Run({});
  Model reloaded = LoadModelFromFile(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(reloaded.graph->nodes.empty());
  auto got = MakeSession(reloaded, SessionOptions{})->Run({});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].tensor().data<float>()[2], -3.0f);
  EXPECT_TRUE(CompareValues(got[0], want[0], 0, 0).match);
}

}  // namespace
}  // namespace tessera
