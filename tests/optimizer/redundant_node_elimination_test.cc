#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/basic_passes.h"

namespace tessera {
namespace {

using namespace test;

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) - 3.5f;
  return v;
}

// x[2,3] -> node -> Relu -> y, with extra initializers.
Model Around(Node node, std::vector<std::pair<std::string, Tensor>> inits = {}, int64_t opset = 17,
             std::vector<int64_t> in_dims = {2, 3}) {
  Model m = MakeModel({std::move(node), MakeNode("relu", "Relu", {"mid"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, in_dims)}, {TensorInfo("y", DataType::kFloat, {})}, opset);
  m.graph->outputs[0].type.shape.reset();
  for (auto& [k, v] : inits) m.graph->initializers[k] = v;
  return m;
}

int Rne(Model& m) { return ApplyPass(*MakeRedundantNodeElimination(), m); }
Feeds X(Shape s = {2, 3}) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return {{"x", Floats(Iota(static_cast<size_t>(n)), s)}};
}

TEST(RedundantNodeElimination, RemovesIdentity) {
  Model m = Around(MakeNode("id", "Identity", {"x"}, {"mid"}));
  EXPECT_EQ(Rne(m), 1);
  EXPECT_EQ(OpTypes(*m.graph), std::vector<std::string>{"Relu"});
  EXPECT_EQ(m.graph->nodes[0].inputs[0], "x");
}

TEST(RedundantNodeElimination, IdentityAsGraphOutput) {
  // y = Identity(Relu(x)): Relu now produces y itself.
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("id", "Identity", {"r"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {2, 3})}, {TensorInfo("y", DataType::kFloat, {2, 3})});
  Model opt = ExpectSameResults(m, X(), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Relu"});
  EXPECT_EQ(opt.graph->nodes[0].outputs[0], "y");
  // y = Identity(x) with x a graph input: nothing can produce y instead.
  Model keep = MakeModel({MakeNode("id", "Identity", {"x"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {2})},
                         {TensorInfo("y", DataType::kFloat, {2})});
  EXPECT_EQ(Rne(keep), 0);
  // Both outputs of the chain are graph outputs: keep the Identity.
  Model both = MakeModel({MakeNode("relu", "Relu", {"x"}, {"r"}), MakeNode("id", "Identity", {"r"}, {"y"})},
                         {TensorInfo("x", DataType::kFloat, {2})},
                         {TensorInfo("y", DataType::kFloat, {2}), TensorInfo("r", DataType::kFloat, {2})});
  EXPECT_EQ(Rne(both), 0);
}

TEST(RedundantNodeElimination, DropoutOnlyInInferenceModeWithMaskUnread) {
  Model m = Around(MakeNode("drop", "Dropout", {"x"}, {"mid"}), {}, 13);
  EXPECT_EQ(Rne(m), 1);
  Model off = Around(MakeNode("drop", "Dropout", {"x", "", "tm"}, {"mid"}), {{"tm", Tensor::Scalar<bool>(false)}}, 13);
  EXPECT_EQ(Rne(off), 1);
  Model old = Around(MakeNode("drop", "Dropout", {"x"}, {"mid", "mask"}), {}, 10);
  EXPECT_EQ(Rne(old), 1);
  // Must not fire: training mode on, training mode fed at run time, mask read.
  Model training = Around(MakeNode("drop", "Dropout", {"x", "", "tm"}, {"mid"}), {{"tm", Tensor::Scalar<bool>(true)}}, 13);
  EXPECT_EQ(Rne(training), 0);
  Model fed = Around(MakeNode("drop", "Dropout", {"x", "", "tm"}, {"mid"}), {}, 13);
  fed.graph->inputs.push_back(TensorInfo("tm", DataType::kBool, {}));
  EXPECT_EQ(Rne(fed), 0);
  Model mask = Around(MakeNode("drop", "Dropout", {"x"}, {"mid", "mask"}), {}, 13);
  mask.graph->outputs.push_back(TensorInfo("mask", DataType::kBool, {2, 3}));
  EXPECT_EQ(Rne(mask), 0);
  // Training with ratio 0 keeps every element.
  Model zero = Around(MakeNode("drop", "Dropout", {"x", "ratio", "tm"}, {"mid"}),
                      {{"tm", Tensor::Scalar<bool>(true)}, {"ratio", Tensor::Scalar<float>(0.0f)}}, 13);
  EXPECT_EQ(Rne(zero), 1);
}

TEST(RedundantNodeElimination, CastToTheSameType) {
  Model same = Around(WithAttrs(MakeNode("cast", "Cast", {"x"}, {"mid"}), {IntAttr("to", 1)}));
  EXPECT_EQ(Rne(same), 1);
  Model other = Around(WithAttrs(MakeNode("cast", "Cast", {"x"}, {"c"}), {IntAttr("to", 10)}));
  other.graph->nodes.insert(other.graph->nodes.begin() + 1,
                            WithAttrs(MakeNode("back", "Cast", {"c"}, {"mid"}), {IntAttr("to", 1)}));
  EXPECT_EQ(Rne(other), 0);  // float -> float16 -> float rounds: not a no-op
  Model like = Around(MakeNode("cl", "CastLike", {"x", "f"}, {"mid"}), {{"f", Floats({0}, {1})}});
  EXPECT_EQ(Rne(like), 1);
}

TEST(RedundantNodeElimination, ShapePreservingReshapeExpandTileSlicePad) {
  EXPECT_EQ([] { Model m = Around(MakeNode("r", "Reshape", {"x", "s"}, {"mid"}), {{"s", Ints({2, -1})}}); return Rne(m); }(), 1);
  EXPECT_EQ([] { Model m = Around(MakeNode("r", "Reshape", {"x", "s"}, {"mid"}), {{"s", Ints({3, 2})}}); return Rne(m); }(), 0);
  EXPECT_EQ([] { Model m = Around(MakeNode("e", "Expand", {"x", "s"}, {"mid"}), {{"s", Ints({1, 3})}}); return Rne(m); }(), 1);
  EXPECT_EQ([] { Model m = Around(MakeNode("e", "Expand", {"x", "s"}, {"mid"}), {{"s", Ints({2, 2, 3})}}); return Rne(m); }(), 0);
  EXPECT_EQ([] { Model m = Around(MakeNode("t", "Tile", {"x", "r"}, {"mid"}), {{"r", Ints({1, 1})}}); return Rne(m); }(), 1);
  EXPECT_EQ([] { Model m = Around(MakeNode("t", "Tile", {"x", "r"}, {"mid"}), {{"r", Ints({1, 2})}}); return Rne(m); }(), 0);
  EXPECT_EQ([] { Model m = Around(MakeNode("p", "Pad", {"x", "p"}, {"mid"}), {{"p", Ints({0, 0, 0, 0})}}); return Rne(m); }(), 1);
  // Shifting pads keep the shape but move the data.
  EXPECT_EQ([] { Model m = Around(MakeNode("p", "Pad", {"x", "p"}, {"mid"}), {{"p", Ints({0, 1, 0, -1})}}); return Rne(m); }(), 0);
  EXPECT_EQ([] {
    Model m = Around(MakeNode("s", "Slice", {"x", "st", "en"}, {"mid"}), {{"st", Ints({0})}, {"en", Ints({100})}});
    return Rne(m);
  }(), 1);
  EXPECT_EQ([] {
    Model m = Around(MakeNode("s", "Slice", {"x", "st", "en"}, {"mid"}), {{"st", Ints({1})}, {"en", Ints({100})}});
    return Rne(m);
  }(), 0);
  // A reversing slice keeps the shape too.
  EXPECT_EQ([] {
    Model m = Around(MakeNode("s", "Slice", {"x", "st", "en", "ax", "step"}, {"mid"}),
                     {{"st", Ints({-1})}, {"en", Ints({-100})}, {"ax", Ints({1})}, {"step", Ints({-1})}});
    return Rne(m);
  }(), 0);
  // Symbolic input dims: the shapes cannot be compared.
  EXPECT_EQ([] {
    Model m = Around(MakeNode("r", "Reshape", {"x", "s"}, {"mid"}), {{"s", Ints({0, 3})}}, 17, {-1, 3});
    return Rne(m);
  }(), 0);
}

TEST(RedundantNodeElimination, TransposePairsCancelOrCompose) {
  Node t1 = WithAttrs(MakeNode("t1", "Transpose", {"x"}, {"a"}), {IntsAttr("perm", {1, 2, 0})});
  Node t2 = WithAttrs(MakeNode("t2", "Transpose", {"a"}, {"mid"}), {IntsAttr("perm", {2, 0, 1})});
  Model m = Around(t1, {}, 17, {2, 3, 4});
  m.graph->nodes.insert(m.graph->nodes.begin() + 1, t2);
  Model opt = ExpectSameResults(m, X({2, 3, 4}), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Relu"});

  Node t3 = WithAttrs(MakeNode("t3", "Transpose", {"a"}, {"mid"}), {IntsAttr("perm", {1, 0, 2})});
  Model c = Around(t1, {}, 17, {2, 3, 4});
  c.graph->nodes.insert(c.graph->nodes.begin() + 1, t3);
  Model copt = ExpectSameResults(c, X({2, 3, 4}), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*copt.graph), (std::vector<std::string>{"Transpose", "Relu"}));
  EXPECT_EQ(copt.graph->nodes[0].inputs[0], "x");

  // Two default (reversing) transposes cancel whatever the rank.
  Model r = Around(MakeNode("r1", "Transpose", {"x"}, {"a"}), {}, 17, {-1, 3});
  r.graph->nodes.insert(r.graph->nodes.begin() + 1, MakeNode("r2", "Transpose", {"a"}, {"mid"}));
  EXPECT_EQ(Rne(r), 1);
  EXPECT_EQ(r.graph->nodes.back().inputs[0], "x");

  // The first transpose also feeds a graph output: it stays, the second goes.
  Model shared = Around(t1, {}, 17, {2, 3, 4});
  shared.graph->nodes.insert(shared.graph->nodes.begin() + 1, t2);
  shared.graph->outputs.push_back(TensorInfo("a", DataType::kFloat, {3, 4, 2}));
  Model sopt = ExpectSameResults(shared, X({2, 3, 4}), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*sopt.graph), (std::vector<std::string>{"Transpose", "Relu"}));
}

TEST(RedundantNodeElimination, MalformedPermutationsStayForTheKernelToReport) {
  // [0, 0] would "cancel" [1, 0]... into nonsense: left alone.
  Node t1 = WithAttrs(MakeNode("t1", "Transpose", {"x"}, {"a"}), {IntsAttr("perm", {0, 0})});
  Node t2 = WithAttrs(MakeNode("t2", "Transpose", {"a"}, {"mid"}), {IntsAttr("perm", {1, 0})});
  Model m = Around(t1);
  m.graph->nodes.insert(m.graph->nodes.begin() + 1, t2);
  EXPECT_EQ(Rne(m), 0);
  Model bad = Around(WithAttrs(MakeNode("t", "Transpose", {"x"}, {"mid"}), {IntsAttr("perm", {0, 7})}));
  EXPECT_EQ(Rne(bad), 0);
}

TEST(RedundantNodeElimination, UnsqueezeThenSqueezeOfTheSameAxes) {
  Model m = Around(MakeNode("u", "Unsqueeze", {"x", "ax"}, {"u1"}), {{"ax", Ints({0, -1})}, {"ax2", Ints({3, 0})}});
  m.graph->nodes.insert(m.graph->nodes.begin() + 1, MakeNode("s", "Squeeze", {"u1", "ax2"}, {"mid"}));
  Model opt = ExpectSameResults(m, X(), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Relu"});
  // Different axes: must not fire.
  Model d = Around(MakeNode("u", "Unsqueeze", {"x", "ax"}, {"u1"}), {{"ax", Ints({0})}, {"ax2", Ints({1})}}, 17, {1, 3});
  d.graph->nodes.insert(d.graph->nodes.begin() + 1, MakeNode("s", "Squeeze", {"u1", "ax2"}, {"mid"}));
  EXPECT_EQ(Rne(d), 0);
  // Opset 11 carries axes as attributes.
  Model a = Around(WithAttrs(MakeNode("u", "Unsqueeze", {"x"}, {"u1"}), {IntsAttr("axes", {1})}), {}, 11);
  a.graph->nodes.insert(a.graph->nodes.begin() + 1, WithAttrs(MakeNode("s", "Squeeze", {"u1"}, {"mid"}), {IntsAttr("axes", {1})}));
  EXPECT_EQ(Rne(a), 1);
}

TEST(RedundantNodeElimination, ReshapeAndFlattenChainsReadTheSource) {
  Model m = Around(MakeNode("r1", "Reshape", {"x", "s1"}, {"a"}), {{"s1", Ints({6})}, {"s2", Ints({3, 2})}});
  m.graph->nodes.insert(m.graph->nodes.begin() + 1, MakeNode("r2", "Reshape", {"a", "s2"}, {"mid"}));
  Model opt = ExpectSameResults(m, X(), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*opt.graph), (std::vector<std::string>{"Reshape", "Relu"}));
  EXPECT_EQ(opt.graph->nodes[0].inputs[0], "x");
  // A 0 in the second shape copies a dim of the intermediate: spelled out
  // from the static shape.
  Model z = Around(MakeNode("r1", "Reshape", {"x", "s1"}, {"a"}), {{"s1", Ints({3, 2})}, {"s2", Ints({0, 1, 2})}});
  z.graph->nodes.insert(z.graph->nodes.begin() + 1, MakeNode("r2", "Reshape", {"a", "s2"}, {"mid"}));
  Model zopt = ExpectSameResults(z, X(), OptimizationLevel::kBasic);
  EXPECT_EQ(zopt.graph->nodes[0].inputs[0], "x");
  EXPECT_EQ(zopt.graph->initializers.at(zopt.graph->nodes[0].inputs[1]).ToInt64Vector(),
            (std::vector<int64_t>{3, 1, 2}));
  // Flatten after Reshape.
  Model f = Around(MakeNode("r1", "Reshape", {"x", "s1"}, {"a"}), {{"s1", Ints({3, 2})}});
  f.graph->nodes.insert(f.graph->nodes.begin() + 1, WithAttrs(MakeNode("f", "Flatten", {"a"}, {"mid"}), {IntAttr("axis", 0)}));
  Model fopt = ExpectSameResults(f, X(), OptimizationLevel::kBasic);
  EXPECT_EQ(OpTypes(*fopt.graph), (std::vector<std::string>{"Reshape", "Relu"}));
  // A 0 with a symbolic intermediate shape: must not fire.
  Model dyn = Around(MakeNode("r1", "Reshape", {"x", "s1"}, {"a"}), {{"s1", Ints({-1, 2})}, {"s2", Ints({0, 2})}}, 17, {-1, 4});
  dyn.graph->nodes.insert(dyn.graph->nodes.begin() + 1, MakeNode("r2", "Reshape", {"a", "s2"}, {"mid"}));
  EXPECT_EQ(Rne(dyn), 0);
}

}  // namespace
}  // namespace tessera
