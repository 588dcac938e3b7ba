#include <limits>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

TEST(PoolTest, MaxPool2DWithIndices) {
  // 1x1x3x3, kernel 2, stride 1.
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Input("x", T_<float>({1, 2, 3, 4, 9, 6, 7, 8, 5}, {1, 1, 3, 3}))
      .Output("y", T_<float>({9, 9, 9, 9}, {1, 1, 2, 2}))
      .Output("i", T_<int64_t>({4, 4, 4, 4}, {1, 1, 2, 2}))
      .Run();
}

TEST(PoolTest, MaxPool2DFloatNanInfAndPadding) {
  // 1x1x3x4, kernel 2x2, stride 2, pads 1 on every side: windows clipped at
  // every border; a NaN wins its window, -inf stays -inf.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Input("x", T_<float>({-inf, 1, 2, 3,
                              4, nan, -inf, -inf,
                              8, 9, -inf, 11}, {1, 1, 3, 4}))
      .Output("y", T_<float>({-inf, 2, 3,
                               8, nan, 11}, {1, 1, 2, 3}))
      .ExceptProvider("dnnl", "oneDNN's max pool starts from -FLT_MAX and drops NaN (docs/execution-providers.md)")
      .Run();
}

// 8-bit MaxPool (QDQ models' pools on the quantized values): the row-max
// path against a hand-computed result, windows clipped by pads and
// ceil_mode, the type's extremes.
TEST(PoolTest, MaxPool2DEightBitWithPaddingAndCeil) {
  // 1x1x3x5, kernel 3x3, stride 2, pads 1, ceil_mode: output 2x3.
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{3, 3})
      .Attr("strides", std::vector<int64_t>{2, 2})
      .Attr("pads", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("ceil_mode", int64_t{1})
      .Input("x", T_<uint8_t>({0, 1, 2, 3, 4,
                                255, 0, 7, 0, 9,
                                10, 11, 0, 13, 0}, {1, 1, 3, 5}))
      .Output("y", T_<uint8_t>({255, 7, 9,
                                 255, 13, 13}, {1, 1, 2, 3}))
      .Run();
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Input("x", T_<int8_t>({-128, -128, -5, -128, -128, -1, -128, 127, -128}, {1, 1, 3, 3}))
      .Output("y", T_<int8_t>({-128, -1, 127, 127}, {1, 1, 2, 2}))
      .Run();
}

TEST(PoolTest, MaxPoolStorageOrderColumnMajor) {
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{1, 2})
      .Attr("storage_order", int64_t{1})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {1, 1, 2, 3}))
      .Output("y", T_<float>({2, 3, 5, 6}, {1, 1, 2, 2}))
      // element (h, w) -> w * H + h with H = 2
      .Output("i", T_<int64_t>({2, 4, 3, 5}, {1, 1, 2, 2}))
      .Run();
}

TEST(PoolTest, MaxPoolInt8AndUInt8) {
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Input("x", T_<int8_t>({-5, -3, 7, -128}, {1, 1, 4}))
      .Output("y", T_<int8_t>({-3, 7}, {1, 1, 2}))
      .Run();
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{1, 1})
      .Input("x", T_<uint8_t>({200, 3, 255}, {1, 1, 3}))
      .Output("y", T_<uint8_t>({200, 200, 255, 255}, {1, 1, 4}))
      .Run();
}

TEST(PoolTest, MaxPool4DSpatial) {
  // N-D pooling beyond 3 spatial dims.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2, 2, 2, 2})
      .Input("x", T_<float>(v, {1, 1, 2, 2, 2, 2}))
      .Output("y", T_<float>({15}, {1, 1, 1, 1, 1, 1}))
      .Run();
}

TEST(PoolTest, AveragePoolCountIncludePad) {
  OpTest("AveragePool", 19)
      .Attr("kernel_shape", std::vector<int64_t>{3})
      .Attr("pads", std::vector<int64_t>{1, 1})
      .Attr("count_include_pad", int64_t{1})
      .Input("x", T_<float>({3, 6, 9}, {1, 1, 3}))
      .Output("y", T_<float>({3, 6, 5}, {1, 1, 3}))
      .Run();
  OpTest("AveragePool", 19)
      .Attr("kernel_shape", std::vector<int64_t>{3})
      .Attr("pads", std::vector<int64_t>{1, 1})
      .Input("x", T_<float>({3, 6, 9}, {1, 1, 3}))
      .Output("y", T_<float>({4.5f, 6, 7.5f}, {1, 1, 3}))
      .Run();
}

TEST(PoolTest, AveragePoolCeilModeDropsWindowStartingInPad) {
  // in=4, k=2, s=2, pad end 1, ceil: the third window would start at 4 (in the
  // end padding) and is dropped.
  OpTest("AveragePool", 19)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Attr("pads", std::vector<int64_t>{0, 1})
      .Attr("ceil_mode", int64_t{1})
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 4}))
      .Output("y", T_<float>({1.5f, 3.5f}, {1, 1, 2}))
      .Run();
}

TEST(PoolTest, LpPoolP1) {
  OpTest("LpPool", 18)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("p", int64_t{1})
      .Input("x", T_<float>({-1, 2, -3}, {1, 1, 3}))
      .Output("y", T_<float>({3, 5}, {1, 1, 2}))
      .Run();
}

TEST(PoolTest, GlobalPools) {
  auto x = T_<float>({1, -2, 3, 4, 5, 6, 7, 8}, {1, 2, 2, 2});
  OpTest("GlobalAveragePool", 13).Input("x", x).Output("y", T_<float>({1.5f, 6.5f}, {1, 2, 1, 1})).Run();
  OpTest("GlobalMaxPool", 13).Input("x", x).Output("y", T_<float>({4, 8}, {1, 2, 1, 1})).Run();
  OpTest("GlobalLpPool", 13)
      .Input("x", T_<float>({3, 4}, {1, 1, 2}))
      .Output("y", T_<float>({5}, {1, 1, 1}))
      .Run();
}

TEST(PoolTest, MaxUnpoolRoundTrip) {
  OpTest("MaxUnpool", 11)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Input("x", T_<float>({5, 7}, {1, 1, 2}))
      .Input("i", T_<int64_t>({1, 2}, {1, 1, 2}))
      .Output("y", T_<float>({0, 5, 7, 0}, {1, 1, 4}))
      .Run();
}

TEST(PoolTest, MaxUnpoolRejectsOutOfRangeIndex) {
  OpTest("MaxUnpool", 11)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("strides", std::vector<int64_t>{2})
      .Input("x", T_<float>({5, 7}, {1, 1, 2}))
      .Input("i", T_<int64_t>({1, 99}, {1, 1, 2}))
      .Output("y", T_<float>({0, 0, 0, 0}, {1, 1, 4}))
      .ExpectFailure("out of range");
}

TEST(PoolTest, MaxPoolRankMismatchFails) {
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2, 2})
      .Input("x", T_<float>({1, 2, 3}, {1, 1, 3}))
      .Output("y", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("kernel_shape");
}

TEST(PoolTest, MaxPoolKernelLargerThanInputFails) {
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{5})
      .Input("x", T_<float>({1, 2, 3}, {1, 1, 3}))
      .Output("y", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("larger than");
}

TEST(PoolTest, MaxRoiPool) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  OpTest("MaxRoiPool", 13)
      .Attr("pooled_shape", std::vector<int64_t>{2, 2})
      .Input("x", T_<float>(v, {1, 1, 4, 4}))
      .Input("rois", T_<float>({0, 0, 0, 3, 3}, {1, 5}))
      .Output("y", T_<float>({5, 7, 13, 15}, {1, 1, 2, 2}))
      .Run();
}

TEST(PoolTest, EmptyBatch) {
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Input("x", T_<float>({}, {0, 1, 3}))
      .Output("y", T_<float>({}, {0, 1, 2}))
      .Run();
}

Tensor F16(const std::vector<float>& v, Shape s) {
  std::vector<Float16> h;
  for (float f : v) h.push_back(Float16{FloatToHalf(f)});
  return Tensor::FromVector<Float16>(h, std::move(s));
}

TEST(PoolTest, Float16AveragePoolAndMaxPool) {
  OpTest("AveragePool", 19)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Input("x", F16({1, 2, 4}, {1, 1, 3}))
      .Output("y", F16({1.5f, 3}, {1, 1, 2}))
      .Run();
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("auto_pad", std::string("SAME_UPPER"))
      .Input("x", F16({1, 2, 4}, {1, 1, 3}))
      .Output("y", F16({2, 4, 4}, {1, 1, 3}))
      .Run();
}

TEST(PoolTest, MaxPoolDilationAndSameLower) {
  // dilation 2, kernel 2: window covers x[i], x[i + 2].
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("dilations", std::vector<int64_t>{2})
      .Input("x", T_<float>({5, 1, 2, 7}, {1, 1, 4}))
      .Output("y", T_<float>({5, 7}, {1, 1, 2}))
      .Run();
  // SAME_LOWER puts the odd padding cell at the start.
  OpTest("MaxPool", 12)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("auto_pad", std::string("SAME_LOWER"))
      .Input("x", T_<float>({1, 3, 2}, {1, 1, 3}))
      .Output("y", T_<float>({1, 3, 3}, {1, 1, 3}))
      .Run();
}

TEST(PoolTest, LpPoolOpset1FloatP) {
  OpTest("LpPool", 1)
      .Attr("kernel_shape", std::vector<int64_t>{2})
      .Attr("p", 1.0f)
      .Input("x", T_<float>({-1, 2, -3}, {1, 1, 3}))
      .Output("y", T_<float>({3, 5}, {1, 1, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
