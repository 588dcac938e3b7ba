// Sequence and optional kernels: positions (negative, out of range), empty
// sequences, SplitToSequence/ConcatFromSequence along inner axes, SequenceMap
// with broadcast tensors, optionals with and without a value.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/op_test.h"

namespace tessera::test {
namespace {

Value Seq(std::vector<Tensor> items, DataType dt = DataType::kFloat) {
  SequenceValue s;
  s.elem_type = TypeInfo::Tensor(dt);
  for (auto& t : items) s.items.emplace_back(std::move(t));
  return Value::Sequence(std::move(s));
}

Value EmptySeq(DataType dt) { return Seq({}, dt); }

Tensor F(std::vector<float> v, Shape s) { return T_<float>(std::move(v), std::move(s)); }
Tensor I64(int64_t v) { return T_<int64_t>({v}, {}); }

ValueInfo VI(const std::string& name, TypeInfo t) {
  ValueInfo v;
  v.name = name;
  v.type = std::move(t);
  return v;
}

Attribute GraphAttr(const std::string& name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kGraph;
  a.g = std::move(g);
  return a;
}

Node MakeNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
  Node n;
  n.name = op + "_" + out[0];
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// ---- construct / at / insert / erase / length ---------------------------------------

TEST(SequenceTest, ConstructAndLength) {
  OpTest("SequenceConstruct", 11)
      .Input("a", F({1, 2}, {2}))
      .Input("b", F({3}, {1}))
      .Output("s", Seq({F({1, 2}, {2}), F({3}, {1})}))
      .Run();
  OpTest("SequenceLength", 11).Input("s", EmptySeq(DataType::kInt32)).Output("n", I64(0)).Run();
  OpTest("SequenceLength", 11)
      .Input("s", Seq({F({1}, {1}), F({2}, {1}), F({3}, {1})}))
      .Output("n", I64(3))
      .Run();
}

TEST(SequenceTest, ConstructMixedTypesFails) {
  OpTest("SequenceConstruct", 11)
      .Input("a", F({1}, {1}))
      .Input("b", T_<int64_t>({1}, {1}))
      .UncheckedOutput("s")
      .ExpectFailure("same element type");
}

TEST(SequenceTest, EmptyHasDtype) {
  OpTest("SequenceEmpty", 11).Attr("dtype", int64_t{7}).Output("s", EmptySeq(DataType::kInt64)).Run();
  OpTest("SequenceEmpty", 11).Output("s", EmptySeq(DataType::kFloat)).Run();
  OpTest("SequenceEmpty", 11).Attr("dtype", int64_t{999}).UncheckedOutput("s").ExpectFailure("dtype");
}

TEST(SequenceTest, AtNegativeAndOutOfRange) {
  Value s = Seq({F({1}, {1}), F({2, 3}, {2}), F({4}, {1})});
  OpTest("SequenceAt", 11).Input("s", s).Input("p", T_<int32_t>({-2}, {})).Output("t", F({2, 3}, {2})).Run();
  OpTest("SequenceAt", 11).Input("s", s).Input("p", I64(2)).Output("t", F({4}, {1})).Run();
  OpTest("SequenceAt", 11).Input("s", s).Input("p", I64(3)).UncheckedOutput("t").ExpectFailure("out of range");
  OpTest("SequenceAt", 11).Input("s", s).Input("p", I64(-4)).UncheckedOutput("t").ExpectFailure("out of range");
  OpTest("SequenceAt", 11)
      .Input("s", EmptySeq(DataType::kFloat))
      .Input("p", I64(0))
      .UncheckedOutput("t")
      .ExpectFailure("out of range");
  OpTest("SequenceAt", 11)
      .Input("s", s)
      .Input("p", T_<int64_t>({0, 1}, {2}))
      .UncheckedOutput("t")
      .ExpectFailure("scalar");
  OpTest("SequenceAt", 11)
      .Input("s", F({1}, {1}))
      .Input("p", I64(0))
      .UncheckedOutput("t")
      .ExpectFailure("must be a sequence");
}

TEST(SequenceTest, InsertPositions) {
  Value s = Seq({F({1}, {1}), F({2}, {1})});
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", F({9}, {1}))
      .Output("o", Seq({F({1}, {1}), F({2}, {1}), F({9}, {1})}))
      .Run();
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", F({9}, {1}))
      .Input("p", I64(-1))
      .Output("o", Seq({F({1}, {1}), F({9}, {1}), F({2}, {1})}))
      .Run();
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", F({9}, {1}))
      .Input("p", T_<int32_t>({2}, {}))
      .Output("o", Seq({F({1}, {1}), F({2}, {1}), F({9}, {1})}))
      .Run();
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", F({9}, {1}))
      .Input("p", I64(-2))
      .Output("o", Seq({F({9}, {1}), F({1}, {1}), F({2}, {1})}))
      .Run();
  OpTest("SequenceInsert", 11)
      .Input("s", EmptySeq(DataType::kFloat))
      .Input("t", F({9}, {1}))
      .Output("o", Seq({F({9}, {1})}))
      .Run();
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", F({9}, {1}))
      .Input("p", I64(3))
      .UncheckedOutput("o")
      .ExpectFailure("out of range");
  OpTest("SequenceInsert", 11)
      .Input("s", s)
      .Input("t", T_<int64_t>({9}, {1}))
      .UncheckedOutput("o")
      .ExpectFailure("cannot insert");
  OpTest("SequenceInsert", 11)
      .Input("s", EmptySeq(DataType::kInt32))
      .Input("t", F({9}, {1}))
      .UncheckedOutput("o")
      .ExpectFailure("cannot insert");
}

TEST(SequenceTest, ErasePositions) {
  Value s = Seq({F({1}, {1}), F({2}, {1}), F({3}, {1})});
  OpTest("SequenceErase", 11).Input("s", s).Output("o", Seq({F({1}, {1}), F({2}, {1})})).Run();
  OpTest("SequenceErase", 11).Input("s", s).Input("p", I64(-3)).Output("o", Seq({F({2}, {1}), F({3}, {1})})).Run();
  OpTest("SequenceErase", 11)
      .Input("s", s)
      .Input("p", T_<int32_t>({1}, {}))
      .Output("o", Seq({F({1}, {1}), F({3}, {1})}))
      .Run();
  OpTest("SequenceErase", 11).Input("s", s).Input("p", I64(3)).UncheckedOutput("o").ExpectFailure("out of range");
  OpTest("SequenceErase", 11)
      .Input("s", EmptySeq(DataType::kFloat))
      .UncheckedOutput("o")
      .ExpectFailure("empty sequence");
  OpTest("SequenceErase", 11)
      .Input("s", Seq({F({1}, {1})}))
      .Output("o", EmptySeq(DataType::kFloat))
      .Run();
}

// ---- SplitToSequence ----------------------------------------------------------------

TEST(SequenceTest, SplitDefaultKeepdims) {
  // [2,3] split along axis 1 into three [2,1] (strided copies), or [2] without keepdims.
  Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3});
  OpTest("SplitToSequence", 11)
      .Attr("axis", int64_t{1})
      .Input("x", x)
      .Output("s", Seq({F({1, 4}, {2, 1}), F({2, 5}, {2, 1}), F({3, 6}, {2, 1})}))
      .Run();
  OpTest("SplitToSequence", 11)
      .Attr("axis", int64_t{-1})
      .Attr("keepdims", int64_t{0})
      .Input("x", x)
      .Output("s", Seq({F({1, 4}, {2}), F({2, 5}, {2}), F({3, 6}, {2})}))
      .Run();
  OpTest("SplitToSequence", 11)
      .Attr("keepdims", int64_t{0})
      .Input("x", x)
      .Output("s", Seq({F({1, 2, 3}, {3}), F({4, 5, 6}, {3})}))
      .Run();
}

TEST(SequenceTest, SplitScalarWithRemainder) {
  Tensor x = T_<int32_t>({1, 2, 3, 4, 5}, {5});
  OpTest("SplitToSequence", 11)
      .Input("x", x)
      .Input("split", I64(2))
      .Output("s", Seq({T_<int32_t>({1, 2}, {2}), T_<int32_t>({3, 4}, {2}), T_<int32_t>({5}, {1})}, DataType::kInt32))
      .Run();
  // keepdims is ignored when split is given.
  OpTest("SplitToSequence", 11)
      .Attr("keepdims", int64_t{0})
      .Input("x", x)
      .Input("split", T_<int32_t>({5}, {}))
      .Output("s", Seq({x}, DataType::kInt32))
      .Run();
  OpTest("SplitToSequence", 11)
      .Input("x", x)
      .Input("split", I64(0))
      .UncheckedOutput("s")
      .ExpectFailure("positive");
}

TEST(SequenceTest, SplitListWithZeroLength) {
  Tensor x = F({1, 2, 3, 4, 5, 6}, {3, 2});
  OpTest("SplitToSequence", 11)
      .Input("x", x)
      .Input("split", T_<int64_t>({1, 0, 2}, {3}))
      .Output("s", Seq({F({1, 2}, {1, 2}), F({}, {0, 2}), F({3, 4, 5, 6}, {2, 2})}))
      .Run();
  OpTest("SplitToSequence", 11)
      .Input("x", x)
      .Input("split", T_<int64_t>({1, 1}, {2}))
      .UncheckedOutput("s")
      .ExpectFailure("sum");
  OpTest("SplitToSequence", 11)
      .Input("x", x)
      .Input("split", T_<int64_t>({4, -1}, {2}))
      .UncheckedOutput("s")
      .ExpectFailure(">= 0");
  OpTest("SplitToSequence", 11)
      .Attr("axis", int64_t{2})
      .Input("x", x)
      .UncheckedOutput("s")
      .ExpectFailure("out of range");
  OpTest("SplitToSequence", 11).Input("x", F({1}, {})).UncheckedOutput("s").ExpectFailure("rank");
}

TEST(SequenceTest, SplitEmptyAxisAndStrings) {
  OpTest("SplitToSequence", 11).Input("x", F({}, {0, 3})).Output("s", EmptySeq(DataType::kFloat)).Run();
  OpTest("SplitToSequence", 11)
      .Input("x", T_<std::string>({"a", "b", "c", "d"}, {2, 2}))
      .Attr("axis", int64_t{1})
      .Attr("keepdims", int64_t{0})
      .Output("s", Seq({T_<std::string>({"a", "c"}, {2}), T_<std::string>({"b", "d"}, {2})}, DataType::kString))
      .Run();
}

// ---- ConcatFromSequence -------------------------------------------------------------

TEST(SequenceTest, ConcatInnerAxis) {
  Value s = Seq({F({1, 2, 3, 4}, {2, 2}), F({5, 6}, {2, 1})});
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{-1})
      .Input("s", s)
      .Output("y", F({1, 2, 5, 3, 4, 6}, {2, 3}))
      .Run();
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Input("s", s)
      .UncheckedOutput("y")
      .ExpectFailure("only the concatenation axis may differ");
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{2})
      .Input("s", s)
      .UncheckedOutput("y")
      .ExpectFailure("out of range");
}

TEST(SequenceTest, ConcatNewAxis) {
  Value s = Seq({F({1, 2}, {2}), F({3, 4}, {2}), F({5, 6}, {2})});
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Attr("new_axis", int64_t{1})
      .Input("s", s)
      .Output("y", F({1, 2, 3, 4, 5, 6}, {3, 2}))
      .Run();
  // axis = r is valid with new_axis: stacks along a new last dim.
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{1})
      .Attr("new_axis", int64_t{1})
      .Input("s", s)
      .Output("y", F({1, 3, 5, 2, 4, 6}, {2, 3}))
      .Run();
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{-1})
      .Attr("new_axis", int64_t{1})
      .Input("s", Seq({T_<int64_t>({1}, {}), T_<int64_t>({2}, {})}, DataType::kInt64))
      .Output("y", T_<int64_t>({1, 2}, {2}))
      .Run();
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Attr("new_axis", int64_t{1})
      .Input("s", Seq({F({1, 2}, {2}), F({3}, {1})}))
      .UncheckedOutput("y")
      .ExpectFailure("equal shapes");
}

TEST(SequenceTest, ConcatEdgeCases) {
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Input("s", EmptySeq(DataType::kFloat))
      .UncheckedOutput("y")
      .ExpectFailure("empty sequence");
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Input("s", Seq({F({1}, {}), F({2}, {})}))
      .UncheckedOutput("y")
      .ExpectFailure("scalars");
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Input("s", Seq({F({}, {0, 2}), F({1, 2}, {1, 2})}))
      .Output("y", F({1, 2}, {1, 2}))
      .Run();
  OpTest("ConcatFromSequence", 11)
      .Attr("axis", int64_t{0})
      .Input("s", Seq({T_<std::string>({"x"}, {1}), T_<std::string>({"y", "z"}, {2})}, DataType::kString))
      .Output("y", T_<std::string>({"x", "y", "z"}, {3}))
      .Run();
}

// ---- SequenceMap ----------------------------------------------------------------------

TEST(SequenceTest, MapWithBroadcastTensor) {
  // body(x, y) = (Add(x, y), Identity(x))
  auto body = std::make_shared<Graph>();
  body->name = "body";
  body->inputs = {VI("x", TypeInfo::Tensor(DataType::kFloat)), VI("y", TypeInfo::Tensor(DataType::kFloat))};
  body->outputs = {VI("sum", TypeInfo::Tensor(DataType::kFloat)), VI("same", TypeInfo::Tensor(DataType::kFloat))};
  body->nodes = {MakeNode("Add", {"x", "y"}, {"sum"}), MakeNode("Identity", {"x"}, {"same"})};
  Value s = Seq({F({1, 2}, {2}), F({3}, {1})});
  OpTest("SequenceMap", 17)
      .Attr(GraphAttr("body", body))
      .Input("s", s)
      .Input("t", F({10}, {1}))
      .Output("o1", Seq({F({11, 12}, {2}), F({13}, {1})}))
      .Output("o2", s)
      .Run();
  // A second sequence is iterated element by element.
  OpTest("SequenceMap", 17)
      .Attr(GraphAttr("body", body))
      .Input("s", s)
      .Input("t", Seq({F({10}, {1}), F({20}, {1})}))
      .Output("o1", Seq({F({11, 12}, {2}), F({23}, {1})}))
      .Output("o2", s)
      .Run();
  OpTest("SequenceMap", 17)
      .Attr(GraphAttr("body", body))
      .Input("s", s)
      .Input("t", Seq({F({10}, {1})}))
      .UncheckedOutput("o1")
      .UncheckedOutput("o2")
      .ExpectFailure("has 1 items but input 0 has 2");
  // An empty input sequence gives empty outputs.
  OpTest("SequenceMap", 17)
      .Attr(GraphAttr("body", body))
      .Input("s", EmptySeq(DataType::kFloat))
      .Input("t", F({10}, {1}))
      .Output("o1", EmptySeq(DataType::kFloat))
      .Output("o2", EmptySeq(DataType::kFloat))
      .Run();
  // Body arity must match the node's.
  OpTest("SequenceMap", 17)
      .Attr(GraphAttr("body", body))
      .Input("s", s)
      .UncheckedOutput("o1")
      .UncheckedOutput("o2")
      .ExpectFailure("inputs");
}

// ---- optionals ---------------------------------------------------------------------------

TEST(OptionalTest, ConstructHasGet) {
  Attribute type;
  type.name = "type";
  type.type = AttributeType::kTypeProto;
  type.tp = TypeInfo::Tensor(DataType::kFloat);
  OpTest("Optional", 15).Attr(type).Output("o", Value::None(TypeInfo::Tensor(DataType::kFloat))).Run();
  OpTest("Optional", 15).Input("x", F({1, 2}, {2})).Output("o", F({1, 2}, {2})).Run();
  OpTest("Optional", 15).UncheckedOutput("o").ExpectFailure("type");

  Value none = Value::None(TypeInfo::Tensor(DataType::kFloat));
  OpTest("OptionalHasElement", 15).Input("x", none).Output("b", T_<bool>({false}, {})).Run();
  OpTest("OptionalHasElement", 18).Input("x", F({1}, {1})).Output("b", T_<bool>({true}, {})).Run();
  OpTest("OptionalHasElement", 18).Input("x", EmptySeq(DataType::kFloat)).Output("b", T_<bool>({true}, {})).Run();
  OpTest("OptionalHasElement", 18).OmittedInput().Output("b", T_<bool>({false}, {})).Run();

  OpTest("OptionalGetElement", 18).Input("x", F({1}, {1})).Output("y", F({1}, {1})).Run();
  OpTest("OptionalGetElement", 15)
      .Input("x", Seq({F({1}, {1})}))
      .Output("y", Seq({F({1}, {1})}))
      .Run();
  OpTest("OptionalGetElement", 18).Input("x", none).UncheckedOutput("y").ExpectFailure("empty");
}

}  // namespace
}  // namespace tessera::test
