#include <gtest/gtest.h>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/layout_passes.h"

namespace tessera {
namespace {

using namespace test;

// y = x · Bᵀ + c with B (N=3, K=4) constant.
Model GemmTransB(bool shared_b = false) {
  std::vector<Node> nodes = {WithAttrs(MakeNode("gemm", "Gemm", {"x", "b", "c"}, {"y"}), {IntAttr("transB", 1)})};
  std::vector<ValueInfo> outputs = {TensorInfo("y", DataType::kFloat, {2, 3})};
  if (shared_b) {
    nodes.push_back(MakeNode("neg", "Neg", {"b"}, {"nb"}));
    outputs.push_back(TensorInfo("nb", DataType::kFloat, {3, 4}));
  }
  Model m = MakeModel(nodes, {TensorInfo("x", DataType::kFloat, {2, 4})}, outputs);
  m.graph->initializers["b"] = Floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 4});
  m.graph->initializers["c"] = Floats({0.5f, -1, 2}, {3});
  return m;
}

PassContext BoundFor(const Model& m, const std::string& provider) {
  PassContext ctx = CpuContext(m);
  ctx.provider_of = [provider](const Node&) { return provider; };
  ctx.pass_providers = {"opencl"};
  return ctx;
}

Feeds XFeed() { return {{"x", Floats({1, -2, 0.5f, 3, -1, 0, 2, 1}, {2, 4})}}; }

TEST(GemmWeightLayout, StoresTransposedConstantForOpenClGemm) {
  Model m = GemmTransB();
  std::vector<Value> before = RunUnoptimized(m, XFeed());
  EXPECT_EQ(ApplyPass(*MakeGemmWeightLayout(), m, BoundFor(m, "opencl")), 1);
  const Node& gemm = m.graph->nodes[0];
  EXPECT_EQ(gemm.FindAttribute("transB")->i, 0);
  const Tensor& kn = m.graph->initializers.at(gemm.inputs[1]);
  EXPECT_EQ(kn.shape(), (Shape{4, 3}));
  EXPECT_EQ(kn.data<float>()[1], 5.0f);  // Bᵀ[0][1] = B[1][0]
  EXPECT_FALSE(m.graph->initializers.count("b"));  // the old layout is gone
  std::vector<Value> after = RunUnoptimized(m, XFeed());
  CompareResult c = CompareValues(after[0], before[0], 0, 0);
  EXPECT_TRUE(c.match) << c.message;
}

TEST(GemmWeightLayout, LeavesCpuGemmsSharedWeightsAndFeedsAlone) {
  {  // bound for the CPU: BLAS takes transB as it is
    Model m = GemmTransB();
    EXPECT_EQ(ApplyPass(*MakeGemmWeightLayout(), m, BoundFor(m, "cpu")), 0);
  }
  {  // B also read by another node
    Model m = GemmTransB(/*shared_b=*/true);
    EXPECT_EQ(ApplyPass(*MakeGemmWeightLayout(), m, BoundFor(m, "opencl")), 0);
  }
  {  // B overridable by a feed: not a constant
    Model m = GemmTransB();
    m.graph->inputs.push_back(TensorInfo("b", DataType::kFloat, {3, 4}));
    EXPECT_EQ(ApplyPass(*MakeGemmWeightLayout(), m, BoundFor(m, "opencl")), 0);
  }
  {  // transB already 0
    Model m = GemmTransB();
    m.graph->nodes[0].attributes[0].i = 0;
    m.graph->initializers["b"] = Floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {4, 3});
    EXPECT_EQ(ApplyPass(*MakeGemmWeightLayout(), m, BoundFor(m, "opencl")), 0);
  }
}

}  // namespace
}  // namespace tessera
