#include <cmath>

#include "support/op_test.h"

namespace tessera::test {
namespace {

TEST(ResizeTest, NearestAsymmetricFloorInt32) {
  OpTest("Resize", 13)
      .Attr("mode", std::string("nearest"))
      .Attr("coordinate_transformation_mode", std::string("asymmetric"))
      .Attr("nearest_mode", std::string("floor"))
      .Input("x", T_<int32_t>({1, 2}, {1, 2}))
      .OmittedInput()
      .Input("scales", T_<float>({1, 2}, {2}))
      .Output("y", T_<int32_t>({1, 1, 2, 2}, {1, 4}))
      .Run();
}

TEST(ResizeTest, LinearAlignCornersSizes) {
  OpTest("Resize", 13)
      .Attr("mode", std::string("linear"))
      .Attr("coordinate_transformation_mode", std::string("align_corners"))
      .Input("x", T_<float>({0, 3}, {2}))
      .OmittedInput()
      .OmittedInput()
      .Input("sizes", T_<int64_t>({4}, {1}))
      .Output("y", T_<float>({0, 1, 2, 3}, {4}))
      .Run();
}

TEST(ResizeTest, AxesNegative) {
  OpTest("Resize", 18)
      .Attr("mode", std::string("nearest"))
      .Attr("axes", std::vector<int64_t>{-1})
      .Input("x", T_<float>({1, 2, 3, 4}, {2, 2}))
      .OmittedInput()
      .Input("scales", T_<float>({2}, {1}))
      .Output("y", T_<float>({1, 1, 2, 2, 3, 3, 4, 4}, {2, 4}))
      .Run();
}

TEST(ResizeTest, ScalesAndSizesBothFail) {
  OpTest("Resize", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .OmittedInput()
      .Input("scales", T_<float>({2}, {1}))
      .Input("sizes", T_<int64_t>({4}, {1}))
      .Output("y", T_<float>({0, 0, 0, 0}, {4}))
      .ExpectFailure("only one");
}

TEST(ResizeTest, WrongScalesLengthFails) {
  OpTest("Resize", 13)
      .Input("x", T_<float>({1, 2}, {1, 2}))
      .OmittedInput()
      .Input("scales", T_<float>({2}, {1}))
      .Output("y", T_<float>({0, 0, 0, 0}, {1, 4}))
      .ExpectFailure("scales");
}

TEST(ResizeTest, Resize10NearestAndUpsample7Linear) {
  OpTest("Resize", 10)
      .Input("x", T_<float>({1, 2}, {1, 2}))
      .Input("scales", T_<float>({1, 1.5f}, {2}))
      .Output("y", T_<float>({1, 1, 2}, {1, 3}))
      .Run();
  OpTest("Upsample", 7)
      .Attr("mode", std::string("linear"))
      .Attr("scales", std::vector<float>{1, 2})
      .Input("x", T_<float>({1, 3}, {1, 2}))
      .Output("y", T_<float>({1, 2, 3, 3}, {1, 4}))
      .Run();
}

TEST(ResizeTest, GridSample1DLinearBorder) {
  OpTest("GridSample", 20)
      .Attr("padding_mode", std::string("border"))
      .Attr("align_corners", int64_t{1})
      .Input("x", T_<float>({0, 10}, {1, 1, 2}))
      .Input("grid", T_<float>({-1, 0, 1, 3}, {1, 4, 1}))
      .Output("y", T_<float>({0, 5, 10, 10}, {1, 1, 4}))
      .Run();
}

TEST(ResizeTest, GridSampleMismatchFails) {
  OpTest("GridSample", 20)
      .Input("x", T_<float>({0, 10}, {1, 1, 2}))
      .Input("grid", T_<float>({0, 0}, {1, 1, 2}))
      .Output("y", T_<float>({0}, {1, 1, 1}))
      .ExpectFailure("grid");
}

TEST(ResizeTest, AffineGridIdentity) {
  OpTest("AffineGrid", 20)
      .Attr("align_corners", int64_t{1})
      .Input("theta", T_<float>({1, 0, 0, 0, 1, 0}, {1, 2, 3}))
      .Input("size", T_<int64_t>({1, 1, 2, 2}, {4}))
      .Output("grid", T_<float>({-1, -1, 1, -1, -1, 1, 1, 1}, {1, 2, 2, 2}))
      .Run();
}

TEST(ResizeTest, Col2ImSimple) {
  // 1D image of 3, block 2, stride 1: columns [a0 a1; b0 b1] overlap at 1.
  OpTest("Col2Im", 18)
      .Input("x", T_<float>({1, 2, 10, 20}, {1, 2, 2}))
      .Input("image_shape", T_<int64_t>({1, 3}, {2}))
      .Input("block_shape", T_<int64_t>({1, 2}, {2}))
      .Output("y", T_<float>({1, 12, 20}, {1, 1, 1, 3}))
      .Run();
}

TEST(ResizeTest, RoiAlignBadBatchIndexFails) {
  OpTest("RoiAlign", 16)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("rois", T_<float>({0, 0, 1, 1}, {1, 4}))
      .Input("bi", T_<int64_t>({3}, {1}))
      .Output("y", T_<float>({0}, {1, 1, 1, 1}))
      .ExpectFailure("batch index");
}

TEST(ResizeTest, NonMaxSuppressionZeroMaxOutput) {
  OpTest("NonMaxSuppression", 11)
      .Input("boxes", T_<float>({0, 0, 1, 1}, {1, 1, 4}))
      .Input("scores", T_<float>({0.9f}, {1, 1, 1}))
      .Output("sel", T_<int64_t>({}, {0, 3}))
      .Run();
}

TEST(ResizeTest, NonMaxSuppressionScoreThreshold) {
  OpTest("NonMaxSuppression", 11)
      .Attr("center_point_box", int64_t{1})
      .Input("boxes", T_<float>({0.5f, 0.5f, 1, 1, 5, 5, 1, 1, 0.6f, 0.5f, 1, 1}, {1, 3, 4}))
      .Input("scores", T_<float>({0.9f, 0.2f, 0.8f}, {1, 1, 3}))
      .Input("max", T_<int64_t>({10}, {1}))
      .Input("iou", T_<float>({0.5f}, {1}))
      .Input("score", T_<float>({0.3f}, {1}))
      .Output("sel", T_<int64_t>({0, 0, 0}, {1, 3}))
      .Run();
}

TEST(ResizeTest, Upsample1HeightWidthScales) {
  OpTest("Upsample", 1)
      .Attr("height_scale", 2.0f)
      .Attr("width_scale", 1.0f)
      .Input("x", T_<float>({1, 2}, {1, 1, 1, 2}))
      .Output("y", T_<float>({1, 2, 1, 2}, {1, 1, 2, 2}))
      .Run();
}

TEST(ResizeTest, KeepAspectRatioNotLarger) {
  // in 2x4, sizes 4x4 not_larger: scale = min(2, 1) = 1 -> unchanged.
  OpTest("Resize", 18)
      .Attr("keep_aspect_ratio_policy", std::string("not_larger"))
      .Attr("axes", std::vector<int64_t>{0, 1})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}))
      .OmittedInput()
      .OmittedInput()
      .Input("sizes", T_<int64_t>({4, 4}, {2}))
      .Output("y", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}))
      .Run();
}

TEST(ResizeTest, CropAndResizeExtrapolation) {
  OpTest("Resize", 13)
      .Attr("mode", std::string("linear"))
      .Attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"))
      .Attr("extrapolation_value", 9.0f)
      .Input("x", T_<float>({0, 10}, {2}))
      .Input("roi", T_<float>({0.5f, 1.5f}, {2}))
      .OmittedInput()
      .Input("sizes", T_<int64_t>({3}, {1}))
      .Output("y", T_<float>({5, 10, 9}, {3}))
      .Run();
}

TEST(ResizeTest, GridSampleNaNGridGivesZero) {
  OpTest("GridSample", 16)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("grid", T_<float>({std::nanf(""), 0, 1e30f, -1e30f}, {1, 1, 2, 2}))
      .Output("y", T_<float>({0, 0}, {1, 1, 1, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

TEST(ResizeTest, HostileInputsFailCleanly) {
  OpTest("Resize", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .OmittedInput()
      .OmittedInput()
      .Input("sizes", T_<int64_t>({-3}, {1}))
      .Output("y", T_<float>({0}, {1}))
      .ExpectFailure("non-negative");
  OpTest("Col2Im", 18)
      .Input("x", T_<float>({1, 2}, {1, 2, 1}))
      .Input("image_shape", T_<int64_t>({1, 3}, {2}))
      .Input("block_shape", T_<int64_t>({1, 2}, {2}))
      .Output("y", T_<float>({0, 0, 0}, {1, 1, 1, 3}))
      .ExpectFailure("number of blocks");
  OpTest("AffineGrid", 20)
      .Input("theta", T_<float>({1, 0, 0, 0, 1, 0}, {1, 2, 3}))
      .Input("size", T_<int64_t>({1, 1, 2, 2, 2}, {5}))
      .Output("grid", T_<float>({0}, {1}))
      .ExpectFailure("theta");
  OpTest("NonMaxSuppression", 11)
      .Input("boxes", T_<float>({0, 0, 1, 1}, {1, 1, 4}))
      .Input("scores", T_<float>({0.9f, 0.5f}, {1, 1, 2}))
      .Output("sel", T_<int64_t>({}, {0, 3}))
      .ExpectFailure("scores");
  OpTest("RoiAlign", 16)
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("rois", T_<float>({0, std::nanf(""), 1, 1}, {1, 4}))
      .Input("bi", T_<int64_t>({0}, {1}))
      .Output("y", T_<float>({0}, {1, 1, 1, 1}))
      .ExpectFailure("finite");
  OpTest("GridSample", 20)
      .Input("x", T_<float>({}, {1, 1, 0, 2}))
      .Input("grid", T_<float>({0, 0}, {1, 1, 1, 2}))
      .Output("y", T_<float>({0}, {1, 1, 1, 1}))
      .ExpectFailure("empty");
}

TEST(ResizeTest, RoiAlignAvgSimple) {
  // One bin covering the 2x2 image with half_pixel: samples at pixel centres average all four.
  OpTest("RoiAlign", 16)
      .Attr("sampling_ratio", int64_t{2})
      .Input("x", T_<float>({1, 2, 3, 4}, {1, 1, 2, 2}))
      .Input("rois", T_<float>({0, 0, 2, 2}, {1, 4}))
      .Input("bi", T_<int64_t>({0}, {1}))
      .Output("y", T_<float>({2.5f}, {1, 1, 1, 1}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
