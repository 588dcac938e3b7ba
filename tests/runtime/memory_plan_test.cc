// The memory planner (runtime/memory_arena.h): buffers are reused by
// liveness, elementwise nodes write in place, and none of it changes a
// result, across threads and input shapes.
#include "tessera/runtime/memory_arena.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

// x -> op -> op -> ... (n nodes), rows dynamic.
Model Chain(const std::string& op, int n) {
  std::vector<Node> nodes;
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string out = i + 1 == n ? "y" : "t" + std::to_string(i);
    nodes.push_back(MakeNode("n" + std::to_string(i), op, {prev}, {out}));
    prev = out;
  }
  return MakeModel(std::move(nodes), {TensorInfo("x", DataType::kFloat, {-1, 64})},
                   {TensorInfo("y", DataType::kFloat, {-1, 64})});
}

// Fan-out, broadcasting, a value read after it fed an elementwise node, and
// ops the planner does not run in place.
Model Mixed() {
  Model m = MakeModel(
      {MakeNode("s", "Sigmoid", {"x"}, {"a"}), MakeNode("r", "Relu", {"a"}, {"b"}),
       MakeNode("add", "Add", {"b", "bias"}, {"c"}), MakeNode("mul", "Mul", {"c", "a"}, {"d"}),
       MakeNode("mm", "MatMul", {"d", "w"}, {"e"}), MakeNode("sin", "Sin", {"e"}, {"f"}),
       MakeNode("sub", "Sub", {"f", "e"}, {"g"}), MakeNode("t", "Tanh", {"g"}, {"h"}),
       MakeNode("div", "Div", {"h", "two"}, {"y"}), MakeNode("neg", "Neg", {"d"}, {"z"})},
      {TensorInfo("x", DataType::kFloat, {-1, 16})},
      {TensorInfo("y", DataType::kFloat, {-1, 16}), TensorInfo("z", DataType::kFloat, {-1, 16})});
  std::vector<float> w(256), bias(16);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 37) % 17) * 0.1f - 0.8f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(i) * 0.05f;
  m.graph->initializers["w"] = Tensor::FromVector<float>(w, {16, 16});
  m.graph->initializers["bias"] = Tensor::FromVector<float>(bias, {16});
  m.graph->initializers["two"] = Tensor::Scalar<float>(2.0f);
  return m;
}

std::unique_ptr<Session> MakeSession(Model m, bool planner, int patterns = 2) {
  SessionOptions o;
  o.intra_op_num_threads = 1;
  o.enable_memory_arena = planner;
  o.memory_pattern_cache = patterns;
  return std::make_unique<Session>(std::move(m), o, MakeProviders({"cpu"}));
}

Tensor Input(int64_t rows, int64_t cols, float seed) {
  Tensor t(DataType::kFloat, {rows, cols});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(static_cast<float>(i) * 0.37f + seed) * 3.0f;
  return t;
}

bool BitIdentical(const std::vector<Value>& a, const std::vector<Value>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const Tensor& x = a[i].tensor();
    const Tensor& y = b[i].tensor();
    if (x.shape() != y.shape() || x.dtype() != y.dtype() || std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) != 0)
      return false;
  }
  return true;
}

TEST(MemoryPlan, ChainReusesAHandfulOfBuffers) {
  // Sin is not run in place: each output is a fresh allocation, served from
  // the buffers the chain released two nodes earlier.
  auto s = MakeSession(Chain("Sin", 32), true);
  Tensor x = Input(128, 64, 0.5f);
  s->Run({{"x", x}});
  MemoryPlanStats first = s->MemoryStats();
  EXPECT_LE(first.blocks_created, 3);
  EXPECT_GE(first.blocks_reused, 29);
  EXPECT_EQ(first.in_place, 0);
  // A second run with the same shapes allocates nothing new.
  s->Run({{"x", x}});
  MemoryPlanStats second = s->MemoryStats();
  EXPECT_EQ(second.blocks_created, first.blocks_created);
  EXPECT_EQ(second.arenas, 1);
  EXPECT_LE(second.peak_bytes_held, 3 * 128 * 64 * 4 + 3 * 64);
}

TEST(MemoryPlan, ElementwiseChainRunsInPlace) {
  auto s = MakeSession(Chain("Relu", 32), true);
  Tensor x = Input(128, 64, 0.25f);
  auto out = s->Run({{"x", x}});
  MemoryPlanStats st = s->MemoryStats();
  // The fed input is the caller's, so the first node allocates; every later
  // node writes into its dying input.
  EXPECT_EQ(st.blocks_created, 1);
  EXPECT_EQ(st.in_place, 31);
  for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(out[0].tensor().data<float>()[i], std::max(0.0f, x.data<float>()[i]));
  // The feed was read, never written.
  EXPECT_TRUE(BitIdentical({Value(x)}, {Value(Input(128, 64, 0.25f))}));
}

TEST(MemoryPlan, ResultsAreBitIdenticalWithAndWithoutThePlanner) {
  auto on = MakeSession(Mixed(), true);
  auto off = MakeSession(Mixed(), false);
  for (int64_t rows : {3, 64, 1, 64}) {
    Feeds feeds = {{"x", Input(rows, 16, static_cast<float>(rows))}};
    EXPECT_TRUE(BitIdentical(on->Run(feeds), off->Run(feeds))) << rows;
  }
  EXPECT_GT(on->MemoryStats().in_place, 0);
  EXPECT_GT(on->MemoryStats().blocks_reused, 0);
  EXPECT_EQ(off->MemoryStats().arenas, 0);
  EXPECT_EQ(off->MemoryStats().bytes_held, 0);
}

TEST(MemoryPlan, ConcurrentRunsEachUseTheirOwnArena) {
  auto on = MakeSession(Mixed(), true, 8);
  auto off = MakeSession(Mixed(), false);
  constexpr int kThreads = 4;
  std::vector<std::vector<Value>> want;
  for (int t = 0; t < kThreads; ++t) want.push_back(off->Run({{"x", Input(8 + t, 16, static_cast<float>(t))}}));
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Feeds feeds = {{"x", Input(8 + t, 16, static_cast<float>(t))}};
      for (int r = 0; r < 50; ++r)
        if (!BitIdentical(on->Run(feeds), want[static_cast<size_t>(t)])) ++mismatches[static_cast<size_t>(t)];
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[static_cast<size_t>(t)], 0) << t;
  MemoryPlanStats st = on->MemoryStats();
  EXPECT_LE(st.idle_arenas, 8);
  EXPECT_GE(st.arenas, 1);
}

TEST(MemoryPlan, ShapeChangesAndThePatternCacheBound) {
  auto on = MakeSession(Chain("Sin", 8), true, 2);
  auto off = MakeSession(Chain("Sin", 8), false);
  for (int64_t rows : {4, 100, 4, 7, 300, 2, 100}) {
    Feeds feeds = {{"x", Input(rows, 64, 1.0f)}};
    EXPECT_TRUE(BitIdentical(on->Run(feeds), off->Run(feeds))) << rows;
    MemoryPlanStats st = on->MemoryStats();
    EXPECT_LE(st.idle_arenas, 2);
    EXPECT_LE(st.arenas, 2);  // runs are sequential: one arena per cached pattern at most
  }
  // Shapes seen in turn keep their own pattern: no new blocks once both are warm.
  Feeds small = {{"x", Input(4, 64, 1.0f)}}, large = {{"x", Input(300, 64, 1.0f)}};
  on->Run(small);
  on->Run(large);
  int64_t created = on->MemoryStats().blocks_created;
  for (int i = 0; i < 3; ++i) {
    on->Run(small);
    on->Run(large);
  }
  EXPECT_EQ(on->MemoryStats().blocks_created, created);
  EXPECT_GT(on->MemoryStats().blocks_trimmed, 0);  // earlier shapes' blocks were let go
}

TEST(MemoryPlan, OutputsOutliveTheSession) {
  Tensor x = Input(16, 64, 2.0f);
  std::vector<Value> out;
  {
    auto s = MakeSession(Chain("Sin", 4), true);
    out = s->Run({{"x", x}});
  }
  auto off = MakeSession(Chain("Sin", 4), false);
  EXPECT_TRUE(BitIdentical(out, off->Run({{"x", x}})));
}

TEST(MemoryPlan, BadPatternCacheIsRefused) {
  SessionOptions o;
  o.memory_pattern_cache = 0;
  Status st = CatchStatus([&] { Session s(Chain("Sin", 2), o, MakeProviders({"cpu"})); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("memory_pattern_cache"), std::string::npos) << st.message();
}

TEST(MemoryArena, TakesFreedBlocksAndTrimsUnusedOnes) {
  ArenaPool pool(1);
  auto arena = pool.Acquire("a");
  {
    ScopedBufferSource source(arena.get());
    Tensor t1(DataType::kFloat, {1000});
    EXPECT_FALSE(t1.buffer()->borrowed());
    void* first = t1.raw_data();
    t1 = Tensor();
    Tensor t2(DataType::kFloat, {990});  // fits the freed block (within an eighth)
    EXPECT_EQ(t2.raw_data(), first);
    Tensor strings(DataType::kString, {3});  // strings always come from the heap
    EXPECT_EQ(pool.Stats().blocks_created, 1);
    Tensor other(DataType::kFloat, {5000});
  }
  EXPECT_EQ(arena->free_blocks(), 2u);
  pool.Release(arena, "a");  // both blocks were used in this run: kept
  EXPECT_EQ(arena->free_blocks(), 2u);
  arena = pool.Acquire("a");
  pool.Release(arena, "a");  // a run that took nothing: its leftovers go
  EXPECT_EQ(arena->free_blocks(), 0u);
  EXPECT_EQ(pool.Stats().bytes_held, 0);
  EXPECT_EQ(pool.Stats().blocks_trimmed, 2);
}

TEST(MemoryArena, AMissGivesBackBlocksTooSmallToServeIt) {
  ArenaPool pool(1);
  auto arena = pool.Acquire("a");
  ScopedBufferSource source(arena.get());
  {
    Tensor a(DataType::kFloat, {1000});
    Tensor b(DataType::kFloat, {2000});
  }
  EXPECT_EQ(arena->free_blocks(), 2u);
  // Fits neither free block: about its own size in smaller blocks goes back
  // first, so the arena does not grow past what the run holds at once.
  Tensor big(DataType::kFloat, {3000});
  EXPECT_EQ(arena->free_blocks(), 0u);
  EXPECT_EQ(arena->bytes_held(), 12032);
  EXPECT_EQ(pool.Stats().blocks_trimmed, 2);
}

}  // namespace
}  // namespace tessera
