#include "tessera/ops/flop_estimate.h"

#include <gtest/gtest.h>

#include "support/model_builder.h"

namespace tessera {
namespace {

using test::MakeNode;

GraphTypes Types(std::initializer_list<std::pair<std::string, std::vector<int64_t>>> shapes) {
  GraphTypes t;
  for (const auto& [name, dims] : shapes) {
    std::vector<Dim> d;
    for (int64_t x : dims) d.push_back(x < 0 ? Dim::Symbol("n") : Dim::Known(x));
    t.types.emplace(name, TypeInfo::Tensor(DataType::kFloat, d));
  }
  return t;
}

TEST(FlopEstimate, ConvCountsMultiplyAddsPerOutputOverItsGroup) {
  // 1x1 convolution 32 -> 64 on 8x8: 64*64 outputs of 32 multiply-adds.
  auto t = Types({{"x", {1, 32, 8, 8}}, {"w", {64, 32, 1, 1}}, {"y", {1, 64, 8, 8}}});
  EXPECT_EQ(EstimateFlops(MakeNode("c", "Conv", {"x", "w"}, {"y"}), t), 2 * 64 * 64 * 32);
  // Depthwise 3x3 on 16 channels: 9 multiply-adds per output.
  auto dw = Types({{"x", {1, 16, 8, 8}}, {"w", {16, 1, 3, 3}}, {"y", {1, 16, 8, 8}}});
  EXPECT_EQ(EstimateFlops(MakeNode("c", "Conv", {"x", "w"}, {"y"}), dw), 2 * 16 * 64 * 9);
}

TEST(FlopEstimate, MatMulAndGemm) {
  auto t = Types({{"a", {2, 5, 3}}, {"b", {3, 7}}, {"y", {2, 5, 7}}});
  EXPECT_EQ(EstimateFlops(MakeNode("m", "MatMul", {"a", "b"}, {"y"}), t), 2 * 2 * 5 * 7 * 3);
  auto g = Types({{"a", {4, 6}}, {"b", {6, 9}}, {"y", {4, 9}}});
  EXPECT_EQ(EstimateFlops(MakeNode("g", "Gemm", {"a", "b"}, {"y"}), g), 2 * 4 * 9 * 6);
}

TEST(FlopEstimate, RecurrencesCountInputAndStateProducts) {
  // lstm_2x512's first layer: 64 steps, batch 1, 256 inputs, hidden 512.
  auto t = Types({{"x", {64, 1, 256}}, {"w", {1, 2048, 256}}, {"r", {1, 2048, 512}}, {"y", {64, 1, 1, 512}}});
  EXPECT_EQ(EstimateFlops(MakeNode("l", "LSTM", {"x", "w", "r"}, {"y"}), t), 2LL * 64 * 2048 * (256 + 512));
  // A bidirectional GRU over batch 3: both directions' weights count.
  auto g = Types({{"x", {5, 3, 4}}, {"w", {2, 18, 4}}, {"r", {2, 18, 6}}, {"y", {5, 2, 3, 6}}});
  EXPECT_EQ(EstimateFlops(MakeNode("g", "GRU", {"x", "w", "r"}, {"y"}), g), 2LL * 5 * 3 * 2 * 18 * (4 + 6));
}

TEST(FlopEstimate, OtherOpsCountOutputsAndUnknownShapesGiveMinusOne) {
  auto t = Types({{"x", {2, 3}}, {"y", {2, 3}}});
  EXPECT_EQ(EstimateFlops(MakeNode("r", "Relu", {"x"}, {"y"}), t), 6);
  auto reshape = Types({{"x", {2, 3}}, {"s", {1}}, {"y", {6}}});
  EXPECT_EQ(EstimateFlops(MakeNode("r", "Reshape", {"x", "s"}, {"y"}), reshape), 0) << "data movement only";
  auto dynamic = Types({{"x", {-1, 3}}, {"y", {-1, 3}}});
  EXPECT_EQ(EstimateFlops(MakeNode("r", "Relu", {"x"}, {"y"}), dynamic), -1);
  auto no_x = Types({{"w", {1, 8, 2}}, {"r", {1, 8, 2}}, {"y", {3, 1, 1, 2}}});
  EXPECT_EQ(EstimateFlops(MakeNode("l", "LSTM", {"x", "w", "r"}, {"y"}), no_x), -1);
}

}  // namespace
}  // namespace tessera
