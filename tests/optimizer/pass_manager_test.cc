#include "tessera/optimizer/pass_manager.h"

#include <set>

#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/pass_registry.h"

namespace tessera {
namespace {

using namespace test;

// Records every graph it sees; removes one Identity per application.
class FakePass : public GraphPass {
 public:
  FakePass(std::string name, OptimizationLevel level, std::vector<std::string> providers = {},
           std::vector<std::string>* log = nullptr)
      : name_(std::move(name)), level_(level), providers_(std::move(providers)), log_(log) {}
  std::string name() const override { return name_; }
  OptimizationLevel level() const override { return level_; }
  std::vector<std::string> providers() const override { return providers_; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    if (log_) log_->push_back(name_ + "@" + graph.name + (outer.empty() ? "" : "+outer"));
    GraphEditor e(graph, outer);
    for (int i = 0; i < static_cast<int>(e.size()); ++i)
      if (e.node(i).op_type == "Identity" && ctx.AppliesTo(e.node(i)) && e.Forward(e.node(i).outputs[0], e.node(i).inputs[0])) {
        e.RemoveNode(i);
        e.Commit();
        return 1;
      }
    return 0;
  }

 private:
  std::string name_;
  OptimizationLevel level_;
  std::vector<std::string> providers_;
  std::vector<std::string>* log_;
};

// Breaks the graph: a node reading a value nobody defines.
class BreakingPass : public GraphPass {
 public:
  std::string name() const override { return "Breaker"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }
  int Apply(Graph& graph, const std::vector<std::string>&, const PassContext&) const override {
    if (graph.nodes.size() > 3) return 0;
    graph.nodes.push_back(MakeNode("bad", "Relu", {"nowhere"}, {"bad_out"}));
    return 1;
  }
};

// Introduces an ai.tessera node (a renamed Relu).
class TesseraDomainPass : public GraphPass {
 public:
  std::string name() const override { return "ToTessera"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>&, const PassContext&) const override {
    for (auto& n : graph.nodes)
      if (n.op_type == "Relu" && n.domain == kOnnxDomain) {
        n.domain = kTesseraDomain;
        return 1;
      }
    return 0;
  }
};

Model IdentityChain(int n) {
  std::vector<Node> nodes;
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string out = "v" + std::to_string(i);
    nodes.push_back(MakeNode("id" + std::to_string(i), "Identity", {prev}, {out}));
    prev = out;
  }
  nodes.push_back(MakeNode("relu", "Relu", {prev}, {"y"}));
  return MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
}

OptimizerOptions Validating(OptimizationLevel level) {
  OptimizerOptions o;
  o.level = level;
  o.validate_after_each_pass = true;
  return o;
}

std::vector<std::unique_ptr<GraphPass>> Passes(std::vector<GraphPass*> list) {
  std::vector<std::unique_ptr<GraphPass>> v;
  for (auto* p : list) v.emplace_back(p);
  return v;
}

TEST(PassManager, RunsEachLevelToAFixedPointInOrder) {
  std::vector<std::string> log;
  PassManager pm(Passes({new FakePass("Ext", OptimizationLevel::kExtended, {}, &log),
                         new FakePass("Basic", OptimizationLevel::kBasic, {}, &log)}));
  Model m = IdentityChain(3);
  OptimizerReport r = pm.Run(m, Validating(OptimizationLevel::kAll), CpuContext(m));
  // Basic removes all three (one per round, fourth round finds nothing);
  // then Extended runs once and finds nothing.
  ASSERT_EQ(r.levels.size(), 2u);
  EXPECT_EQ(r.levels[0].level, OptimizationLevel::kBasic);
  EXPECT_EQ(r.levels[0].passes[0].changes, 3);
  EXPECT_EQ(r.levels[0].rounds, 4);
  EXPECT_TRUE(r.levels[0].converged);
  EXPECT_EQ(r.levels[1].passes[0].changes, 0);
  EXPECT_EQ(log, (std::vector<std::string>{"Basic@test_graph", "Basic@test_graph", "Basic@test_graph",
                                           "Basic@test_graph", "Ext@test_graph"}));
  EXPECT_EQ(r.nodes_before, 4u);
  EXPECT_EQ(r.nodes_after, 1u);
  EXPECT_EQ(r.TotalChanges(), 3);
  EXPECT_EQ(r.Summary(), "basic: Basic 3; extended: no change");
}

TEST(PassManager, LevelsAboveTheRequestedOneDoNotRun) {
  std::vector<std::string> log;
  PassManager pm(Passes({new FakePass("Ext", OptimizationLevel::kExtended, {}, &log)}));
  Model m = IdentityChain(1);
  OptimizerReport r = pm.Run(m, Validating(OptimizationLevel::kBasic), CpuContext(m));
  EXPECT_TRUE(log.empty());
  EXPECT_TRUE(r.levels.empty());
  EXPECT_EQ(m.graph->nodes.size(), 2u);
  pm.Run(m, Validating(OptimizationLevel::kDisabled), CpuContext(m));
  EXPECT_TRUE(log.empty());
}

TEST(PassManager, IterationCapStopsALevel) {
  PassManager pm(Passes({new FakePass("Basic", OptimizationLevel::kBasic)}));
  Model m = IdentityChain(5);
  OptimizerOptions o = Validating(OptimizationLevel::kAll);
  o.max_iterations_per_level = 2;
  OptimizerReport r = pm.Run(m, o, CpuContext(m));
  EXPECT_EQ(r.levels[0].rounds, 2);
  EXPECT_FALSE(r.levels[0].converged);
  EXPECT_EQ(m.graph->nodes.size(), 4u);
}

TEST(PassManager, DisabledPassesAndUnknownNames) {
  PassManager pm(Passes({new FakePass("Basic", OptimizationLevel::kBasic), new FakePass("Other", OptimizationLevel::kBasic)}));
  Model m = IdentityChain(2);
  OptimizerOptions o = Validating(OptimizationLevel::kAll);
  o.disabled_passes = {"Basic", "Other"};
  OptimizerReport r = pm.Run(m, o, CpuContext(m));
  EXPECT_EQ(m.graph->nodes.size(), 3u);
  EXPECT_TRUE(r.levels.empty());
  o.disabled_passes = {"Basic", "NoSuchPass"};
  Status st = CatchStatus([&] { pm.Run(m, o, CpuContext(m)); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown graph optimizer pass 'NoSuchPass'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("passes: Basic, Other"), std::string::npos) << st.message();
}

TEST(PassManager, PassesOnlyTouchTheirProvidersNodes) {
  PassManager gpu_only(Passes({new FakePass("GpuOnly", OptimizationLevel::kBasic, {"gpu"})}));
  Model m = IdentityChain(2);
  PassContext ctx = CpuContext(m);
  EXPECT_EQ(gpu_only.Run(m, Validating(OptimizationLevel::kAll), ctx).TotalChanges(), 0);
  ctx.provider_of = [](const Node& n) { return n.name == "id1" ? std::string("gpu") : std::string("cpu"); };
  EXPECT_EQ(gpu_only.Run(m, Validating(OptimizationLevel::kAll), ctx).TotalChanges(), 1);
  EXPECT_EQ(m.graph->nodes.size(), 2u);
}

TEST(PassManager, LevelStartHookSeesTheGraphBeforeEachLaterLevel) {
  // The session re-infers the types its providers decide on there: the
  // extended level must see what the basic level left.
  std::vector<std::string> log;
  PassManager pm(Passes({new FakePass("Basic", OptimizationLevel::kBasic, {}, &log),
                         new FakePass("Ext", OptimizationLevel::kExtended, {}, &log),
                         new FakePass("Lay", OptimizationLevel::kLayout, {}, &log)}));
  Model m = IdentityChain(8);
  PassContext ctx = CpuContext(m);
  ctx.on_level_start = [&](const Graph& g) {
    EXPECT_EQ(&g, m.graph.get());
    log.push_back("start with " + std::to_string(g.nodes.size()) + " nodes");
  };
  pm.Run(m, Validating(OptimizationLevel::kAll), ctx);
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log[0], "Basic@test_graph");
  auto first = [&](const std::string& prefix) {
    return static_cast<size_t>(std::find_if(log.begin(), log.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; }) -
                               log.begin());
  };
  ASSERT_LT(first("Ext@"), log.size());
  ASSERT_LT(first("Lay@"), log.size());
  // Basic removed every Identity it could before the extended level began.
  EXPECT_EQ(log[first("Ext@") - 1], "start with 1 nodes");
  EXPECT_EQ(log[first("Lay@") - 1], "start with 1 nodes");
  EXPECT_EQ(std::count_if(log.begin(), log.end(), [](const std::string& s) { return s.rfind("start", 0) == 0; }), 2);
}

TEST(PassManager, VisitsSubgraphsWithTheirOuterScope) {
  auto body = std::make_shared<Graph>();
  body->name = "then";
  body->nodes = {MakeNode("tid", "Identity", {"x"}, {"t1"}), MakeNode("tneg", "Neg", {"t1"}, {"t"})};
  body->outputs = {TensorInfo("t", DataType::kFloat, {2})};
  auto other = std::make_shared<Graph>();
  other->name = "else";
  other->nodes = {MakeNode("eneg", "Neg", {"x"}, {"e"})};
  other->outputs = {TensorInfo("e", DataType::kFloat, {2})};
  Node iff = WithAttrs(MakeNode("if", "If", {"c"}, {"y"}), {GraphAttr("then_branch", body), GraphAttr("else_branch", other)});
  Model m = MakeModel({iff}, {TensorInfo("c", DataType::kBool, {}), TensorInfo("x", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})});
  std::vector<std::string> log;
  PassManager pm(Passes({new FakePass("Basic", OptimizationLevel::kBasic, {}, &log)}));
  OptimizerReport r = pm.Run(m, Validating(OptimizationLevel::kBasic), CpuContext(m));
  EXPECT_EQ(r.levels[0].passes[0].changes, 1);
  EXPECT_EQ(body->nodes.size(), 1u);
  EXPECT_EQ(log[0], "Basic@test_graph");
  EXPECT_EQ(log[1], "Basic@then+outer");
  EXPECT_EQ(log[2], "Basic@else+outer");
}

TEST(PassManager, ValidationNamesTheBrokenPass) {
  PassManager pm(Passes({new BreakingPass()}));
  Model m = IdentityChain(1);
  Status st = CatchStatus([&] { pm.Run(m, Validating(OptimizationLevel::kAll), CpuContext(m)); });
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_NE(st.message().find("after pass Breaker"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'nowhere'"), std::string::npos) << st.message();
}

TEST(PassManager, AFlawTheModelArrivedWithIsNotBlamedOnAPass) {
  // A node output that also names an initializer: the pass manager does not
  // validate such a model (the runtime decides what to make of it) instead
  // of accusing a pass.
  Model m = IdentityChain(2);
  m.graph->initializers["v0"] = Floats({1, 2}, {2});
  PassManager pm(Passes({new FakePass("Basic", OptimizationLevel::kBasic)}));
  Status st = CatchStatus([&] { pm.Run(m, Validating(OptimizationLevel::kAll), CpuContext(m)); });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(PassManager, TesseraNodesBringTheirOpsetImport) {
  PassManager pm(Passes({new TesseraDomainPass()}));
  Model m = IdentityChain(0);
  EXPECT_EQ(m.OpsetFor(kTesseraDomain), -1);
  pm.Run(m, Validating(OptimizationLevel::kBasic), CpuContext(m));
  EXPECT_EQ(m.OpsetFor(kTesseraDomain), -1);
  pm.Run(m, Validating(OptimizationLevel::kAll), CpuContext(m));
  EXPECT_EQ(m.OpsetFor(kTesseraDomain), 1);
}

TEST(PassManager, RegistryNamesAreUniqueAndBasicPassesComeFirst) {
  PassManager pm;
  std::vector<std::string> names = pm.PassNames();
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  for (const char* basic : {"ConstantFolding", "ShapeFolding", "DeadNodeElimination", "RedundantNodeElimination",
                            "CommonSubexpressionElimination", "DuplicateInitializerMerging"})
    EXPECT_TRUE(unique.count(basic)) << basic;
  int last = 0;
  for (const auto& p : pm.passes()) {
    EXPECT_GE(static_cast<int>(p->level()), last) << p->name();
    EXPECT_NE(p->level(), OptimizationLevel::kDisabled);
    EXPECT_NE(p->level(), OptimizationLevel::kAll);
    last = static_cast<int>(p->level());
  }
}

TEST(PassManager, ParsesLevels) {
  EXPECT_EQ(ParseOptimizationLevel("ORT_ENABLE_EXTENDED"), OptimizationLevel::kExtended);
  EXPECT_EQ(ParseOptimizationLevel("99"), OptimizationLevel::kAll);
  EXPECT_EQ(ParseOptimizationLevel("Disabled"), OptimizationLevel::kDisabled);
  Status st = CatchStatus([] { ParseOptimizationLevel("fast"); });
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tessera
