// Unit tests of ONNX Runtime's transformer contrib ops (com.microsoft) where
// the ORT-referenced folders in tests/data/contrib are thin: empty tensors,
// special values, float16, threads, broadcasting limits and bad inputs.
#include <cmath>
#include <limits>
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

constexpr const char* kMs = "com.microsoft";

Tensor F16(const std::vector<float>& v, Shape s) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16{FloatToHalf(f)});
  return Tensor::FromVector<Float16>(h, std::move(s));
}

TEST(ContribGelu, SpecialValuesAndEmpty) {
  const float inf = std::numeric_limits<float>::infinity();
  OpTest("Gelu", 1, kMs)
      .Input("x", T_<float>({-1000, 0, 1000, inf}, {4}))
      .Output("y", T_<float>({0, 0, 1000, inf}, {4}))
      .Run();
  OpTest("FastGelu", 1, kMs)
      .Input("x", T_<float>({-1000, 0, 1000, inf}, {4}))
      .Output("y", T_<float>({0, 0, 1000, inf}, {4}))
      .Run();
  OpTest("BiasGelu", 1, kMs)
      .Input("a", T_<float>({}, {0, 4}))
      .Input("b", T_<float>({1, 2, 3, 4}, {4}))
      .Output("y", T_<float>({}, {0, 4}))
      .Run();
  // QuickGelu's alpha: x * sigmoid(alpha x).
  OpTest("QuickGelu", 1, kMs)
      .Attr("alpha", 2.0f)
      .Input("x", T_<float>({-1, 0, 1}, {3}))
      .Output("y", T_<float>({-1.0f / (1.0f + std::exp(2.0f)), 0, 1.0f / (1.0f + std::exp(-2.0f))}, {3}))
      .Run();
}

TEST(ContribGelu, Float16RoundsTheSumFirst) {
  // FastGelu(x + bias) with the sum rounded to float16 before the tanh form.
  std::vector<float> x = {0.1f, -2.5f, 3.0f, 0.7f}, b = {0.2f, 0.1f, -1.0f, 0.05f}, want;
  for (size_t i = 0; i < x.size(); ++i) {
    float s = HalfToFloat(FloatToHalf(x[i] + b[i]));
    want.push_back(0.5f * s * (1.0f + std::tanh(0.7978845608f * (s + 0.044715f * s * s * s))));
  }
  OpTest("FastGelu", 1, kMs)
      .Input("x", F16(x, {1, 4}))
      .Input("bias", F16(b, {4}))
      .Output("y", F16(want, {1, 4}))
      .Tolerance(2e-3, 2e-3)
      .Run();
}

TEST(ContribGelu, BiasMustMatchTheLastAxis) {
  OpTest("BiasGelu", 1, kMs)
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("b", T_<float>({1, 2}, {2}))
      .UncheckedOutput("y")
      .ExpectFailure("must be a vector of the input's last dimension 3");
  OpTest("BiasSplitGelu", 1, kMs)
      .Input("x", T_<float>({1, 2, 3}, {1, 3}))
      .Input("bias", T_<float>({1, 2, 3}, {3}))
      .UncheckedOutput("y")
      .ExpectFailure("must be even to split in halves");
  OpTest("BiasAdd", 1, kMs)
      .Input("x", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("bias", T_<float>({1, 2}, {2}))
      .Input("skip", T_<float>({1, 2}, {1, 2}))
      .UncheckedOutput("y")
      .ExpectFailure("skip must have the input's type and shape");
}

TEST(ContribSkipLayerNorm, ManyRowsOverThreadsMatchOneThread) {
  const int64_t rows = 300, h = 64;
  std::vector<float> x(rows * h), skip(rows * h), gamma(h), beta(h);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = std::sin(0.37f * static_cast<float>(i));
    skip[i] = std::cos(0.11f * static_cast<float>(i));
  }
  for (int64_t j = 0; j < h; ++j) {
    gamma[static_cast<size_t>(j)] = 1.0f + 0.01f * static_cast<float>(j);
    beta[static_cast<size_t>(j)] = -0.02f * static_cast<float>(j);
  }
  std::vector<float> want(x.size()), sum(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, sq = 0;
    for (int64_t j = 0; j < h; ++j) {
      size_t i = static_cast<size_t>(r * h + j);
      sum[i] = x[i] + skip[i];
      mean += sum[i];
    }
    mean /= h;
    for (int64_t j = 0; j < h; ++j) sq += (sum[static_cast<size_t>(r * h + j)] - mean) * (sum[static_cast<size_t>(r * h + j)] - mean);
    double inv = 1.0 / std::sqrt(sq / h + 1e-12);
    for (int64_t j = 0; j < h; ++j) {
      size_t i = static_cast<size_t>(r * h + j);
      want[i] = static_cast<float>((sum[i] - mean) * inv * gamma[static_cast<size_t>(j)] + beta[static_cast<size_t>(j)]);
    }
  }
  for (int threads : {1, 2}) {
    OpTest("SkipLayerNormalization", 1, kMs)
        .Input("input", T_<float>(x, {3, 100, h}))
        .Input("skip", T_<float>(skip, {3, 100, h}))
        .Input("gamma", T_<float>(gamma, {h}))
        .Input("beta", T_<float>(beta, {h}))
        .Output("y", T_<float>(want, {3, 100, h}))
        .OmittedOutput()
        .OmittedOutput()
        .Output("sum", T_<float>(sum, {3, 100, h}))
        .Threads(threads)
        .Run();
  }
}

TEST(ContribSkipLayerNorm, StatisticsOutputsAndBadSkip) {
  // Rows (1, 3) and (2, 2): mean 2 / 2, variance 1 / 0 over two values.
  OpTest("SkipSimplifiedLayerNormalization", 1, kMs)
      .Attr("epsilon", 0.0f)
      .Input("input", T_<float>({1, 1, 1, 1}, {2, 2}))
      .Input("skip", T_<float>({0, 2, 1, 1}, {2, 2}))
      .Input("gamma", T_<float>({1, 1}, {2}))
      .Output("y", T_<float>({1 / std::sqrt(5.0f), 3 / std::sqrt(5.0f), 1, 1}, {2, 2}))
      .OmittedOutput()
      .Output("inv", T_<float>({1 / std::sqrt(5.0f), 0.5f}, {2, 1}))
      .Run();
  OpTest("SkipLayerNormalization", 1, kMs)
      .Input("input", T_<float>({1, 2, 3, 4, 5, 6}, {1, 3, 2}))
      .Input("skip", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("gamma", T_<float>({1, 1}, {2}))
      .UncheckedOutput("y")
      .ExpectFailure("must have the input's shape [1,3,2] or its trailing dimensions");
}

TEST(ContribBiasSoftmax, BroadcastsAndRejectsWhatDoesNot) {
  // One row of three: softmax(data + bias) with the bias repeated per row.
  std::vector<float> e = {std::exp(0.0f), std::exp(1.0f), std::exp(2.0f)};
  float s = e[0] + e[1] + e[2];
  OpTest("BiasSoftmax", 1, kMs)
      .Attr("axis", int64_t{1})
      .Attr("is_inner_broadcast", int64_t{0})
      .Input("data", T_<float>({0, 0, 0, 1, 1, 1}, {2, 3}))
      .Input("bias", T_<float>({0, 1, 2}, {3}))
      .Output("y", T_<float>({e[0] / s, e[1] / s, e[2] / s, e[0] / s, e[1] / s, e[2] / s}, {2, 3}))
      .Run();
  OpTest("BiasSoftmax", 1, kMs)
      .Attr("axis", int64_t{1})
      .Attr("is_inner_broadcast", int64_t{0})
      .Input("data", T_<float>({0, 0, 0, 1, 1, 1}, {2, 3}))
      .Input("bias", T_<float>({0, 1}, {2}))
      .UncheckedOutput("y")
      .ExpectFailure("does not broadcast to data");
}

// transBatchA reads A [2, 1, 3] as [1, 2, 3]: its axis 0 gives the rows. B
// constant (packed at creation, its tensor then unread) and as an input.
TEST(ContribFusedMatMul, TransBatchMovesAxisZeroToTheRows) {
  for (bool constant_b : {true, false}) {
    OpTest t("FusedMatMul", 1, kMs);
    t.Attr("transBatchA", int64_t{1}).Input("a", T_<float>({1, 2, 3, 4, 5, 6}, {2, 1, 3}));
    if (constant_b) t.ConstantInput("b", T_<float>({1, 1, 1}, {1, 3, 1}));
    else t.Input("b", T_<float>({1, 1, 1}, {1, 3, 1}));
    t.Output("y", T_<float>({6, 15}, {1, 2, 1})).Run();
  }
  // transBatchB reads B [3, 1, 2] as [1, 3, 2].
  OpTest("FusedMatMul", 1, kMs)
      .Attr("transBatchB", int64_t{1})
      .Input("a", T_<float>({1, 1, 1}, {1, 1, 3}))
      .Input("b", T_<float>({1, 2, 3, 4, 5, 6}, {3, 1, 2}))
      .Output("y", T_<float>({9, 12}, {1, 1, 2}))
      .Run();
}

TEST(ContribFusedMatMul, TransBatchNeedsOneRankOfAtLeastThree) {
  OpTest("FusedMatMul", 1, kMs)
      .Attr("transBatchA", int64_t{1})
      .Input("a", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("b", T_<float>({1, 2, 3, 4}, {2, 2}))
      .UncheckedOutput("y")
      .ExpectFailure("need A and B of one rank, at least 3");
  OpTest("FusedMatMul", 1, kMs)
      .Attr("transBatchB", int64_t{1})
      .Input("a", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}))
      .Input("b", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2}))
      .UncheckedOutput("y")
      .ExpectFailure("need A and B of one rank, at least 3");
}

// Bad inputs of GroupQueryAttention: clear errors, never a read past a buffer.
TEST(ContribGroupQueryAttention, BadShapesAndLengthsAreClearErrors) {
  auto gqa = [](int64_t heads, int64_t kv_heads, int32_t seqlen, int32_t total, int64_t past) {
    OpTest t("GroupQueryAttention", 1, kMs);
    t.Attr("num_heads", heads).Attr("kv_num_heads", kv_heads);
    t.Input("query", T_<float>(std::vector<float>(16, 0.5f), {1, 1, 16}));
    t.Input("key", T_<float>(std::vector<float>(8, 0.5f), {1, 1, 8}));
    t.Input("value", T_<float>(std::vector<float>(8, 0.5f), {1, 1, 8}));
    if (past > 0) {
      t.Input("past_key", T_<float>(std::vector<float>(static_cast<size_t>(past * 8), 0.1f), {1, 1, past, 8}));
      t.Input("past_value", T_<float>(std::vector<float>(static_cast<size_t>(past * 8), 0.1f), {1, 1, past, 8}));
    } else {
      t.OmittedInput().OmittedInput();
    }
    t.Input("seqlens_k", T_<int32_t>({seqlen}, {1}));
    t.Input("total_sequence_length", T_<int32_t>({total}, {}));
    t.UncheckedOutput("output");
    return t;
  };
  gqa(3, 2, 0, 1, 0).ExpectFailure("num_heads (3) must be a positive multiple of kv_num_heads (2)");
  gqa(2, 1, 5, 3, 2).ExpectFailure("seqlens_k[0] + 1 = 6 must be in [1, total_sequence_length = 3]");
  // Four past tokens asked of a cache that holds two rows.
  gqa(2, 1, 4, 5, 2).ExpectFailure("has 4 past tokens (seqlens_k + 1 - sequence_length) but the KV cache holds 2");
  gqa(2, 1, 3, 4, 0).ExpectFailure("the KV cache is absent");
  // All keys equal: the output is V's row whatever the scores.
  OpTest("GroupQueryAttention", 1, kMs)
      .Attr("num_heads", int64_t{2})
      .Attr("kv_num_heads", int64_t{1})
      .Input("query", T_<float>(std::vector<float>(16, 0.3f), {1, 1, 16}))
      .Input("key", T_<float>(std::vector<float>(8, 1.0f), {1, 1, 8}))
      .Input("value", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 8}))
      .OmittedInput()
      .OmittedInput()
      .Input("seqlens_k", T_<int32_t>({0}, {1}))
      .Input("total_sequence_length", T_<int32_t>({1}, {}))
      .Output("output", T_<float>({1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 16}))
      .Run();
}

TEST(ContribAttention, BadMaskAndWeightsAreClearErrors) {
  auto attention = [](Tensor weights, Tensor mask) {
    OpTest t("Attention", 1, kMs);
    t.Attr("num_heads", int64_t{2});
    t.Input("input", T_<float>(std::vector<float>(8, 0.5f), {1, 2, 4}));
    t.Input("weights", weights);
    t.OmittedInput();
    t.Input("mask_index", mask);
    t.UncheckedOutput("output");
    return t;
  };
  Tensor w = T_<float>(std::vector<float>(48, 0.1f), {4, 12});
  attention(w, T_<int32_t>({1, 1, 1}, {3})).ExpectFailure("mask_index int32[3] is none of (1), (2), (1, 2)");
  attention(T_<float>(std::vector<float>(40, 0.1f), {4, 10}), T_<int32_t>({2}, {1}))
      .ExpectFailure("weights' width 10 must be Q + K + V hidden sizes");
  // A fully masked row averages V rather than giving NaN (the filter value is finite).
  OpTest("Attention", 1, kMs)
      .Attr("num_heads", int64_t{1})
      .Input("input", T_<float>({1, 0, 0, 1}, {1, 2, 2}))
      .Input("weights", T_<float>({0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1}, {2, 6}))
      .OmittedInput()
      .Input("mask_index", T_<int32_t>({0, 0}, {1, 2}))
      .Output("output", T_<float>({0.5f, 0.5f, 0.5f, 0.5f}, {1, 2, 2}))
      .Run();
}

TEST(ContribInverse, SingularAndEmptyBatches) {
  OpTest("Inverse", 1, kMs)
      .Input("x", T_<double>({2, 0, 0, 4}, {1, 2, 2}))
      .Output("y", T_<double>({0.5, 0, 0, 0.25}, {1, 2, 2}))
      .Run();
  OpTest("Inverse", 1, kMs)
      .Input("x", T_<float>({1, 2, 2, 4}, {2, 2}))
      .UncheckedOutput("y")
      .ExpectFailure("matrix 0 of the batch is singular");
  OpTest("Inverse", 1, kMs).Input("x", T_<float>({}, {0, 3, 3})).Output("y", T_<float>({}, {0, 3, 3})).Run();
}

// Z is added before the activation: relu(x * w + b + z), in float and float16.
TEST(ContribFusedConv, AddsTheSumInputBeforeTheActivation) {
  OpTest("FusedConv", 1, kMs)
      .Attr("activation", std::string("Relu"))
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("w", T_<float>({2}, {1, 1, 1, 1}))
      .Input("b", T_<float>({1}, {1}))
      .Input("z", T_<float>({-4, -4, 0, 1}, {1, 1, 2, 2}))
      .Output("y", T_<float>({0, 1, 7, 10}, {1, 1, 2, 2}))
      .Run();
  OpTest("FusedConv", 1, kMs)
      .Attr("activation", std::string("Relu"))
      .Input("x", F16({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("w", F16({2}, {1, 1, 1, 1}))
      .Input("b", F16({1}, {1}))
      .Input("z", F16({-4, -4, 0, 1}, {1, 1, 2, 2}))
      .Output("y", F16({0, 1, 7, 10}, {1, 1, 2, 2}))
      .Run();
}

TEST(ContribFusedConv, ASumOfAnotherShapeIsAClearError) {
  OpTest("FusedConv", 1, kMs)
      .Attr("activation", std::string("Relu"))
      .Input("x", T_<float>(std::vector<float>(9, 1.f), {1, 1, 3, 3}))
      .Input("w", T_<float>({1}, {1, 1, 1, 1}))
      .Input("b", T_<float>({0}, {1}))
      .Input("z", T_<float>(std::vector<float>(3, 1.f), {1, 1, 1, 3}))
      .UncheckedOutput("y")
      .ExpectFailure("Z must have the output's type and shape");
}

}  // namespace
}  // namespace tessera::test
