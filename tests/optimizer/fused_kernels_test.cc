// The ai.tessera kernels the fusion passes produce, run directly: small
// hand-computed cases and the errors bad inputs get.
#include <gtest/gtest.h>

#include <cmath>

#include "support/model_builder.h"
#include "support/op_test.h"
#include "tessera/ops/shape_inference.h"

namespace tessera {
namespace {

using test::OpTest;

Tensor F(std::vector<float> v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }

TEST(FusedKernels, FusedMatMulTransposesAddsBiasAndActivates) {
  // A^T with A = [[1, -2], [3, 4]] (stored [2,2]); B = I; bias [1, -10]; Relu.
  OpTest("FusedMatMul", 1, kTesseraDomain)
      .Attr("transA", int64_t{1})
      .Attr("activation", std::string("Relu"))
      .Input("a", F({1, -2, 3, 4}, {2, 2}))
      .Input("b", F({1, 0, 0, 1}, {2, 2}))
      .Input("bias", F({1, -10}, {2}))
      .Output("y", F({2, 0, 0, 0}, {2, 2}))
      .Run();
  // Batched, transB, alpha: y[b] = 2 * A[b] B^T.
  OpTest("FusedMatMul", 1, kTesseraDomain)
      .Attr("transB", int64_t{1})
      .Attr("alpha", 2.0f)
      .Input("a", F({1, 2, 3, 4}, {2, 1, 2}))
      .Input("b", F({1, 1, 0, 1}, {2, 2}))
      .Output("y", F({6, 4, 14, 8}, {2, 1, 2}))
      .Run();
}

TEST(FusedKernels, FusedMatMulRejectsBadBiasAndUnknownActivation) {
  OpTest("FusedMatMul", 1, kTesseraDomain)
      .Input("a", F({1, 2}, {1, 2}))
      .Input("b", F({1, 2, 3, 4}, {2, 2}))
      .Input("bias", F({1, 2, 3}, {3}))
      .Output("y", F({0, 0}, {1, 2}))
      .ExpectFailure("bias must be a vector of 2 values");
  OpTest("FusedMatMul", 1, kTesseraDomain)
      .Attr("activation", std::string("Softplus"))
      .Input("a", F({1, 2}, {1, 2}))
      .Input("b", F({1, 2, 3, 4}, {2, 2}))
      .Output("y", F({0, 0}, {1, 2}))
      .ExpectFailure("unknown activation 'Softplus'");
  OpTest("FusedGemm", 1, kTesseraDomain)
      .Attr("activation", std::string("Clip"))
      .Attr("activation_params", std::vector<float>{0.0f})
      .Input("a", F({1, 2}, {1, 2}))
      .Input("b", F({1, 2, 3, 4}, {2, 2}))
      .Output("y", F({0, 0}, {1, 2}))
      .ExpectFailure("takes 2 activation_params, got 1");
}

TEST(FusedKernels, FusedConvAndGemmApplyTheActivationAfterTheBias) {
  // 1x1 convolution, one channel: y = clip(2x + 1, 0, 4).
  OpTest("FusedConv", 1, kTesseraDomain)
      .Attr("activation", std::string("Clip"))
      .Attr("activation_params", std::vector<float>{0.0f, 4.0f})
      .Input("x", F({-3, 0, 1, 5}, {1, 1, 2, 2}))
      .Input("w", F({2}, {1, 1, 1, 1}))
      .Input("b", F({1}, {1}))
      .Output("y", F({0, 1, 3, 4}, {1, 1, 2, 2}))
      .Run();
  OpTest("FusedGemm", 1, kTesseraDomain)
      .Attr("activation", std::string("LeakyRelu"))
      .Attr("activation_params", std::vector<float>{0.5f})
      .Input("a", F({1, -4}, {1, 2}))
      .Input("b", F({1, 0, 0, 1}, {2, 2}))
      .Input("c", F({0, 1}, {2}))
      .Output("y", F({1, -1.5f}, {1, 2}))
      .Run();
}

TEST(FusedKernels, GeluAndNormalizationsAtAnyModelOpset) {
  float x = 1.5f;
  float erf_gelu = 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f)));
  OpTest("Gelu", 1, kTesseraDomain).Input("x", F({x}, {1})).Output("y", F({erf_gelu}, {1})).Run();
  OpTest("LayerNormalization", 1, kTesseraDomain)
      .Input("x", F({1, 3}, {1, 2}))
      .Input("g", F({1, 1}, {2}))
      .Input("b", F({0, 10}, {2}))
      .Output("y", F({-1, 11}, {1, 2}))
      .Tolerance(1e-4, 1e-5)
      .Run();
  OpTest("RMSNormalization", 1, kTesseraDomain)
      .Attr("epsilon", 0.0f)
      .Input("x", F({3, 4}, {1, 2}))
      .Input("g", F({1, 2}, {2}))
      .Output("y", F({3 / std::sqrt(12.5f), 8 / std::sqrt(12.5f)}, {1, 2}))
      .Run();
}

TEST(FusedKernels, SkipLayerNormalizationReturnsTheSum) {
  OpTest("SkipLayerNormalization", 1, kTesseraDomain)
      .Attr("epsilon", 0.0f)
      .Input("x", F({1, 2}, {1, 2}))
      .Input("skip", F({0, 2}, {1, 2}))
      .Input("g", F({2, 2}, {2}))
      .Input("b", F({1, 1}, {2}))
      .Output("y", F({-1, 3}, {1, 2}))
      .Output("sum", F({1, 4}, {1, 2}))
      .Run();
  OpTest("SkipLayerNormalization", 1, kTesseraDomain)
      .Input("x", F({1, 2}, {1, 2}))
      .Input("skip", F({0, 2, 1, 1}, {2, 2}))
      .Input("g", F({2, 2}, {2}))
      .Output("y", F({0, 0}, {1, 2}))
      .ExpectFailure("must have X's shape");
}

TEST(FusedKernels, AttentionMasksAndChecksShapes) {
  // One query, two keys; the bool mask hides the second key.
  OpTest("Attention", 1, kTesseraDomain)
      .Attr("scale", 1.0f)
      .Attr("mask_fill", -1e9f)
      .Input("q", F({1, 0}, {1, 1, 2}))
      .Input("kt", F({1, 0, 0, 1}, {1, 2, 2}))
      .Input("v", F({10, 20}, {1, 2, 1}))
      .Input("m", Tensor::FromVector<bool>({true, false}, {1, 2}))
      .Output("y", F({10}, {1, 1, 1}))
      .Run();
  // Equal scores average the values.
  OpTest("Attention", 1, kTesseraDomain)
      .Input("q", F({0, 0}, {1, 1, 2}))
      .Input("kt", F({1, 0, 0, 1}, {1, 2, 2}))
      .Input("v", F({10, 20}, {1, 2, 1}))
      .Output("y", F({15}, {1, 1, 1}))
      .Run();
  OpTest("Attention", 1, kTesseraDomain)
      .Input("q", F({0, 0}, {1, 1, 2}))
      .Input("kt", F({1, 0, 0, 1, 1, 0, 0, 1}, {2, 2, 2}))
      .Input("v", F({10, 20}, {1, 2, 1}))
      .Output("y", F({15}, {1, 1, 1}))
      .ExpectFailure("must share their leading axes");
}

TypeInfo Floats(std::vector<int64_t> dims) { return test::TensorInfo("", DataType::kFloat, std::move(dims)).type; }

TEST(FusedKernels, ShapeInferenceKnowsTheFusedOps) {
  Node mm = test::MakeNode("mm", "FusedMatMul", {"a", "b", "bias"}, {"y"});
  mm.domain = kTesseraDomain;
  Attribute ta;
  ta.name = "transA";
  ta.type = AttributeType::kInt;
  ta.i = 1;
  mm.attributes = {ta};
  auto out = InferOutputTypes({mm, 1, {Floats({2, 4, 3}), Floats({4, 5}), Floats({5})}, {}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ToString(), "tensor(float)[2,3,5]");
  Node att = test::MakeNode("att", "Attention", {"q", "kt", "v"}, {"y"});
  att.domain = kTesseraDomain;
  out = InferOutputTypes({att, 1, {Floats({2, 5, 8}), Floats({2, 8, 6}), Floats({2, 6, 7})}, {}});
  EXPECT_EQ(out[0].ToString(), "tensor(float)[2,5,7]");
  Node skip = test::MakeNode("s", "SkipLayerNormalization", {"x", "k", "g"}, {"y", "sum"});
  skip.domain = kTesseraDomain;
  out = InferOutputTypes({skip, 1, {Floats({2, 8}), Floats({2, 8}), Floats({8})}, {}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].ToString(), "tensor(float)[2,8]");
}

}  // namespace
}  // namespace tessera
