#include <gtest/gtest.h>

#include "optimizer/fuse_test_util.h"

namespace tessera {
namespace {

using namespace test;

// Builds GELU of x in elementary ops; `tail` picks the order of 0.5 * x * a.
Model GeluModel(bool tanh_form, int tail, bool pow_cube = false) {
  std::vector<Node> n;
  std::string t;
  if (!tanh_form) {
    n.push_back(MakeNode("div", "Div", {"x", "sqrt2"}, {"d"}));
    n.push_back(MakeNode("erf", "Erf", {"d"}, {"e"}));
    t = "e";
  } else {
    if (pow_cube) {
      n.push_back(MakeNode("pow", "Pow", {"x", "three"}, {"cube"}));
    } else {
      n.push_back(MakeNode("sq", "Mul", {"x", "x"}, {"xx"}));
      n.push_back(MakeNode("cu", "Mul", {"x", "xx"}, {"cube"}));
    }
    n.push_back(MakeNode("k", "Mul", {"c044", "cube"}, {"kc"}));
    n.push_back(MakeNode("in", "Add", {"x", "kc"}, {"inner"}));
    n.push_back(MakeNode("sc", "Mul", {"c079", "inner"}, {"arg"}));
    n.push_back(MakeNode("tanh", "Tanh", {"arg"}, {"e"}));
    t = "e";
  }
  n.push_back(MakeNode("one", "Add", {t, "one"}, {"a"}));
  if (tail == 0) {  // (x * a) * 0.5
    n.push_back(MakeNode("m1", "Mul", {"x", "a"}, {"xa"}));
    n.push_back(MakeNode("m2", "Mul", {"xa", "half"}, {"y"}));
  } else if (tail == 1) {  // (x * 0.5) * a
    n.push_back(MakeNode("h", "Mul", {"x", "half"}, {"xh"}));
    n.push_back(MakeNode("m1", "Mul", {"xh", "a"}, {"y"}));
  } else {  // x * (a * 0.5)
    n.push_back(MakeNode("m1", "Mul", {"a", "half"}, {"ah"}));
    n.push_back(MakeNode("m2", "Mul", {"x", "ah"}, {"y"}));
  }
  Model m = MakeModel(n, {TensorInfo("x", DataType::kFloat, {2, 8})}, {TensorInfo("y", DataType::kFloat, {})});
  auto& init = m.graph->initializers;
  init["sqrt2"] = Scalar(1.4142135381698608f);
  init["one"] = Scalar(1.0f);
  init["half"] = Scalar(0.5f);
  init["three"] = Scalar(3.0f);
  init["c044"] = Scalar(0.044715f);
  init["c079"] = Scalar(0.7978845834732056f);
  return m;
}

Feeds Input() { return {{"x", RandomFloats({2, 8}, 1, -4.0f, 4.0f)}}; }

TEST(GeluFusion, FusesErfFormInEachOrder) {
  for (int tail = 0; tail < 3; ++tail) {
    int changes = 0;
    Model opt = ApplyAndCompare(*MakeGeluFusion(), GeluModel(false, tail), Input(), &changes);
    EXPECT_EQ(changes, 1) << tail;
    ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Gelu"}) << tail;
    EXPECT_EQ(AttrS(opt.graph->nodes[0], "approximate"), "none");
    EXPECT_EQ(opt.graph->nodes[0].domain, kTesseraDomain);
  }
}

TEST(GeluFusion, FusesTanhForm) {
  for (bool pow_cube : {false, true})
    for (int tail = 0; tail < 3; ++tail) {
      int changes = 0;
      Model opt = ApplyAndCompare(*MakeGeluFusion(), GeluModel(true, tail, pow_cube), Input(), &changes);
      EXPECT_EQ(changes, 1);
      ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"Gelu"});
      EXPECT_EQ(AttrS(opt.graph->nodes[0], "approximate"), "tanh");
    }
}

TEST(GeluFusion, LeavesWrongConstantsAndSharedIntermediates) {
  Model m = GeluModel(false, 0);
  m.graph->initializers["half"] = Scalar(0.25f);
  int changes = 0;
  ApplyAndCompare(*MakeGeluFusion(), m, Input(), &changes);
  EXPECT_EQ(changes, 0);
  Model m2 = GeluModel(false, 0);
  m2.graph->initializers["sqrt2"] = Scalar(2.0f);
  EXPECT_EQ(ApplyPass(*MakeGeluFusion(), m2), 0);
  // The Erf output is also a graph output.
  Model m3 = GeluModel(false, 0);
  m3.graph->outputs.push_back(TensorInfo("e", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeGeluFusion(), m3), 0);
  // 0.5 * y * (1 + erf(x / sqrt2)) with y != x.
  Model m4 = GeluModel(false, 0);
  m4.graph->nodes[3].inputs[0] = "z";
  m4.graph->inputs.push_back(TensorInfo("z", DataType::kFloat, {2, 8}));
  EXPECT_EQ(ApplyPass(*MakeGeluFusion(), m4), 0);
  // A non-constant 1.
  Model m5 = GeluModel(true, 1);
  m5.graph->inputs.push_back(TensorInfo("one", DataType::kFloat, {}));
  EXPECT_EQ(ApplyPass(*MakeGeluFusion(), m5), 0);
}

TEST(GeluFusion, WholeOptimizerFusesMatMulBiasGeluIntoOneNode) {
  Model m = GeluModel(false, 0);
  // x = MatMul(a, w) + bias, three-dimensional.
  m.graph->nodes.insert(m.graph->nodes.begin(), {MakeNode("mm", "MatMul", {"inp", "w"}, {"p"}),
                                                 MakeNode("bias", "Add", {"bias", "p"}, {"x"})});
  m.graph->inputs = {TensorInfo("inp", DataType::kFloat, {2, 3, 4})};
  m.graph->initializers["w"] = RandomFloats({4, 8}, 2);
  m.graph->initializers["bias"] = RandomFloats({8}, 3);
  Model opt = ExpectSameResults(m, {{"inp", RandomFloats({2, 3, 4}, 4, -2.0f, 2.0f)}});
  ASSERT_EQ(OpTypes(*opt.graph), std::vector<std::string>{"FusedMatMul"});
  EXPECT_EQ(AttrS(opt.graph->nodes[0], "activation"), "Gelu");
}

}  // namespace
}  // namespace tessera
