// If / Loop / Scan. Bodies mostly route values through (no other ops needed),
// which exercises slicing, stacking, outer-scope access and nesting.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/op_test.h"
#include "tessera/api/providers.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

ValueInfo VI(const std::string& name, DataType t, std::optional<std::vector<Dim>> shape = std::nullopt) {
  ValueInfo v;
  v.name = name;
  v.type = TypeInfo::Tensor(t, std::move(shape));
  return v;
}

std::shared_ptr<Graph> MakeGraph(const std::string& name, std::vector<ValueInfo> inputs,
                                 std::vector<ValueInfo> outputs, std::vector<Node> nodes = {}) {
  auto g = std::make_shared<Graph>();
  g->name = name;
  g->inputs = std::move(inputs);
  g->outputs = std::move(outputs);
  g->nodes = std::move(nodes);
  return g;
}

Attribute GraphAttr(const std::string& name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kGraph;
  a.g = std::move(g);
  return a;
}

// ---- If ----------------------------------------------------------------------

void RunIf(bool cond, float expected) {
  OpTest t("If", 13);
  t.Attr(GraphAttr("then_branch", MakeGraph("then", {}, {VI("a", DataType::kFloat)})));
  t.Attr(GraphAttr("else_branch", MakeGraph("else", {}, {VI("b", DataType::kFloat)})));
  t.Input("cond", T_<bool>({cond}, {}));
  t.Input("a", T_<float>({1.f}, {1})).Input("b", T_<float>({2.f}, {1}));
  t.Output("y", T_<float>({expected}, {1}));
  t.Run();
}

TEST(IfTest, PicksBranch) {
  RunIf(true, 1.f);
  RunIf(false, 2.f);
}

TEST(IfTest, OutputCountMismatchFails) {
  OpTest t("If", 13);
  t.Attr(GraphAttr("then_branch", MakeGraph("then", {}, {VI("a", DataType::kFloat), VI("a", DataType::kFloat)})));
  t.Attr(GraphAttr("else_branch", MakeGraph("else", {}, {VI("a", DataType::kFloat)})));
  t.Input("cond", T_<bool>({true}, {})).Input("a", T_<float>({1.f}, {1}));
  t.Output("y", T_<float>({1.f}, {1}));
  t.ExpectFailure("outputs");
}

TEST(IfTest, NonScalarCondFails) {
  OpTest t("If", 13);
  t.Attr(GraphAttr("then_branch", MakeGraph("then", {}, {VI("a", DataType::kFloat)})));
  t.Attr(GraphAttr("else_branch", MakeGraph("else", {}, {VI("a", DataType::kFloat)})));
  t.Input("cond", T_<bool>({true, false}, {2})).Input("a", T_<float>({1.f}, {1}));
  t.Output("y", T_<float>({1.f}, {1}));
  t.ExpectFailure("exactly one element");
}

// ---- Loop ----------------------------------------------------------------------

// body(iter, cond_in, v) -> (cond_in, v, iter)
std::shared_ptr<Graph> CountingBody() {
  return MakeGraph("body",
                   {VI("iter", DataType::kInt64, std::vector<Dim>{}), VI("cond_in", DataType::kBool),
                    VI("v", DataType::kFloat)},
                   {VI("cond_in", DataType::kBool), VI("v", DataType::kFloat),
                    VI("iter", DataType::kInt64, std::vector<Dim>{})});
}

TEST(LoopTest, TripCountScanOutput) {
  OpTest t("Loop", 16);
  t.Attr(GraphAttr("body", CountingBody()));
  t.Input("M", T_<int64_t>({4}, {})).Input("cond", T_<bool>({true}, {})).Input("v0", T_<float>({5.f, 6.f}, {2}));
  t.Output("v_final", T_<float>({5.f, 6.f}, {2})).Output("iters", T_<int64_t>({0, 1, 2, 3}, {4}));
  t.Run();
}

TEST(LoopTest, OmittedCondRunsMTimes) {
  OpTest t("Loop", 13);
  t.Attr(GraphAttr("body", CountingBody()));
  t.Input("M", T_<int64_t>({2}, {1})).OmittedInput().Input("v0", T_<float>({1.f}, {1}));
  t.Output("v_final", T_<float>({1.f}, {1})).Output("iters", T_<int64_t>({0, 1}, {2}));
  t.Run();
}

TEST(LoopTest, ZeroIterationsGiveEmptyScanOutput) {
  OpTest t("Loop", 13);
  t.Attr(GraphAttr("body", CountingBody()));
  t.Input("M", T_<int64_t>({0}, {})).Input("cond", T_<bool>({true}, {})).Input("v0", T_<float>({1.f}, {1}));
  t.Output("v_final", T_<float>({1.f}, {1})).Output("iters", T_<int64_t>({}, {0}));
  t.Run();
}

TEST(LoopTest, FalseCondSkipsBody) {
  OpTest t("Loop", 11);
  t.Attr(GraphAttr("body", CountingBody()));
  t.OmittedInput().Input("cond", T_<bool>({false}, {})).Input("v0", T_<float>({3.f}, {1}));
  t.Output("v_final", T_<float>({3.f}, {1})).UncheckedOutput("iters");
  t.Run();
}

TEST(LoopTest, NestedIfReadsBodyAndOuterValues) {
  // body(iter, cond_in, v): y = If(flag) then iter else k; returns (cond_in, v, y)
  auto then_b = MakeGraph("then", {}, {VI("iter", DataType::kInt64)});
  auto else_b = MakeGraph("else", {}, {VI("k", DataType::kInt64)});
  Node if_node;
  if_node.name = "inner_if";
  if_node.op_type = "If";
  if_node.inputs = {"flag"};
  if_node.outputs = {"y"};
  if_node.attributes = {GraphAttr("then_branch", then_b), GraphAttr("else_branch", else_b)};
  auto body = MakeGraph("body",
                        {VI("iter", DataType::kInt64), VI("cond_in", DataType::kBool), VI("v", DataType::kFloat)},
                        {VI("cond_in", DataType::kBool), VI("v", DataType::kFloat), VI("y", DataType::kInt64)},
                        {if_node});
  for (bool flag : {true, false}) {
    OpTest t("Loop", 16);
    t.Attr(GraphAttr("body", body));
    t.Input("M", T_<int64_t>({3}, {})).Input("cond", T_<bool>({true}, {})).Input("v0", T_<float>({1.f}, {1}));
    t.Input("flag", T_<bool>({flag}, {})).Input("k", T_<int64_t>({7}, {}));
    t.UncheckedOutput("v_final").UncheckedOutput("ys");
    // flag and k stay graph inputs read only by the subgraphs, not Loop inputs.
    Model m = t.BuildModel();
    m.graph->nodes[0].inputs.resize(3);
    Session session(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
    Feeds feeds = {{"M", T_<int64_t>({3}, {})},
                   {"cond", T_<bool>({true}, {})},
                   {"v0", T_<float>({1.f}, {1})},
                   {"flag", T_<bool>({flag}, {})},
                   {"k", T_<int64_t>({7}, {})}};
    std::vector<Value> out = session.Run(feeds);
    ASSERT_EQ(out.size(), 2u);
    Value expected = flag ? T_<int64_t>({0, 1, 2}, {3}) : T_<int64_t>({7, 7, 7}, {3});
    CompareResult c = CompareValues(out[1], expected);
    EXPECT_TRUE(c.match) << c.message;
    c = CompareValues(out[0], T_<float>({1.f}, {1}));
    EXPECT_TRUE(c.match) << c.message;
  }
}

TEST(LoopTest, BodyInputCountMismatchFails) {
  OpTest t("Loop", 16);
  t.Attr(GraphAttr("body", CountingBody()));
  t.Input("M", T_<int64_t>({1}, {})).Input("cond", T_<bool>({true}, {}));
  t.Output("iters", T_<int64_t>({0}, {1}));
  t.ExpectFailure("inputs");
}

// ---- Scan (9+) -------------------------------------------------------------------

// body(s, x) -> (s, x): state passes through, scan output = the element.
std::shared_ptr<Graph> EchoBody(DataType t = DataType::kFloat) {
  return MakeGraph("body", {VI("s", t), VI("x", t)}, {VI("s", t), VI("x", t)});
}

TEST(ScanTest, AxisOneTransposes) {
  OpTest t("Scan", 16);
  t.Attr(GraphAttr("body", EchoBody())).Attr("num_scan_inputs", int64_t{1});
  t.Attr("scan_input_axes", std::vector<int64_t>{1});
  t.Input("s0", T_<float>({9.f}, {1})).Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  t.Output("s", T_<float>({9.f}, {1})).Output("y", T_<float>({1, 4, 2, 5, 3, 6}, {3, 2}));
  t.Run();
}

TEST(ScanTest, ReverseInputAndNegativeOutputAxis) {
  OpTest t("Scan", 16);
  t.Attr(GraphAttr("body", EchoBody())).Attr("num_scan_inputs", int64_t{1});
  t.Attr("scan_input_axes", std::vector<int64_t>{-1});
  t.Attr("scan_input_directions", std::vector<int64_t>{1});
  t.Attr("scan_output_axes", std::vector<int64_t>{-1});
  t.Input("s0", T_<float>({0.f}, {1})).Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  // Elements (columns) taken last to first and stacked as columns again: columns reversed.
  t.Output("s", T_<float>({0.f}, {1})).Output("y", T_<float>({3, 2, 1, 6, 5, 4}, {2, 3}));
  t.Run();
}

TEST(ScanTest, ReverseOutputDirectionRestoresOrder) {
  OpTest t("Scan", 11);
  t.Attr(GraphAttr("body", EchoBody(DataType::kInt32))).Attr("num_scan_inputs", int64_t{1});
  t.Attr("scan_input_directions", std::vector<int64_t>{1});
  t.Attr("scan_output_directions", std::vector<int64_t>{1});
  t.Input("s0", T_<int32_t>({0}, {})).Input("x", T_<int32_t>({1, 2, 3}, {3}));
  t.Output("s", T_<int32_t>({0}, {})).Output("y", T_<int32_t>({1, 2, 3}, {3}));
  t.Run();
}

TEST(ScanTest, StringsAndZeroLength) {
  OpTest t("Scan", 16);
  t.Attr(GraphAttr("body", EchoBody(DataType::kString))).Attr("num_scan_inputs", int64_t{1});
  t.Input("s0", T_<std::string>({"s"}, {})).Input("x", T_<std::string>({"a", "b"}, {2}));
  t.Output("s", T_<std::string>({"s"}, {})).Output("y", T_<std::string>({"a", "b"}, {2}));
  t.Run();
}

TEST(ScanTest, MismatchedLengthsFail) {
  auto body = MakeGraph("body", {VI("a", DataType::kFloat), VI("b", DataType::kFloat)},
                        {VI("a", DataType::kFloat), VI("b", DataType::kFloat)});
  OpTest t("Scan", 16);
  t.Attr(GraphAttr("body", body)).Attr("num_scan_inputs", int64_t{2});
  t.Input("x1", T_<float>({1, 2}, {2})).Input("x2", T_<float>({1, 2, 3}, {3}));
  t.Output("y1", T_<float>({1, 2}, {2})).Output("y2", T_<float>({1, 2}, {2}));
  t.ExpectFailure("sequence length");
}

TEST(ScanTest, BadAxisFails) {
  OpTest t("Scan", 16);
  t.Attr(GraphAttr("body", EchoBody())).Attr("num_scan_inputs", int64_t{1});
  t.Attr("scan_input_axes", std::vector<int64_t>{2});
  t.Input("s0", T_<float>({0.f}, {1})).Input("x", T_<float>({1, 2}, {2}));
  t.Output("s", T_<float>({0.f}, {1})).Output("y", T_<float>({1, 2}, {2}));
  t.ExpectFailure("axis");
}

// ---- Scan-8 ----------------------------------------------------------------------

TEST(Scan8Test, BatchedWithSequenceLensAndReverse) {
  OpTest t("Scan", 8);
  t.Attr(GraphAttr("body", EchoBody())).Attr("num_scan_inputs", int64_t{1});
  t.Attr("directions", std::vector<int64_t>{1});
  t.Input("lens", T_<int64_t>({3, 2}, {2}));
  t.Input("s0", T_<float>({7.f, 8.f}, {2, 1})).Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}));
  // Batch 0 reversed fully; batch 1 reverses its first 2 entries, rest zero.
  t.Output("s", T_<float>({7.f, 8.f}, {2, 1})).Output("y", T_<float>({3, 2, 1, 5, 4, 0}, {2, 3}));
  t.Run();
}

TEST(Scan8Test, NoSequenceLens) {
  OpTest t("Scan", 8);
  t.Attr(GraphAttr("body", EchoBody())).Attr("num_scan_inputs", int64_t{1});
  t.OmittedInput();
  t.Input("s0", T_<float>({7.f}, {1, 1})).Input("x", T_<float>({1, 2, 3, 4}, {1, 2, 2}));
  t.Output("s", T_<float>({7.f}, {1, 1})).Output("y", T_<float>({1, 2, 3, 4}, {1, 2, 2}));
  t.Run();
}

}  // namespace
}  // namespace tessera::test
