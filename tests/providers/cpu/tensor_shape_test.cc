// Unit tests of the shape kernels: Reshape (0 / -1 / allowzero / opset-1
// attribute), Flatten, Squeeze, Unsqueeze, Shape, Size, Expand, Identity,
// Constant, ConstantOfShape, Range, Dropout, EyeLike. Views must share the
// input buffer; bad input must fail with a clear message.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "tessera/api/providers.h"
#include "tessera/base/half.h"
#include "tessera/providers/common/view_kernels.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

TEST(ReshapeTest, ZeroMinusOneAllowzero) {
  std::vector<float> x(24);
  for (int i = 0; i < 24; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
  OpTest("Reshape", 13)
      .Input("x", T_<float>(x, {2, 3, 4}))
      .ConstantInput("s", T_<int64_t>({0, -1}, {2}))
      .Output("y", T_<float>(x, {2, 12}))
      .Run();
  OpTest("Reshape", 14)
      .Attr("allowzero", int64_t{1})
      .Input("x", T_<float>({}, {0, 3}))
      .ConstantInput("s", T_<int64_t>({3, 0}, {2}))
      .Output("y", T_<float>({}, {3, 0}))
      .Run();
  OpTest("Reshape", 1)
      .Attr("shape", std::vector<int64_t>{4, -1})
      .Input("x", T_<float>(x, {2, 3, 4}))
      .Output("y", T_<float>(x, {4, 6}))
      .Run();
  OpTest("Reshape", 13)
      .Input("x", T_<float>(x, {2, 3, 4}))
      .ConstantInput("s", T_<int64_t>({-1, -1}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("more than one -1");
  OpTest("Reshape", 13)
      .Input("x", T_<float>(x, {2, 3, 4}))
      .ConstantInput("s", T_<int64_t>({5, -1}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("cannot reshape");
  OpTest("Reshape", 14)
      .Attr("allowzero", int64_t{1})
      .Input("x", T_<float>(x, {2, 3, 4}))
      .ConstantInput("s", T_<int64_t>({0, -1}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("-1 and 0");
  OpTest("Reshape", 13)
      .Input("x", T_<float>({1}, {1}))
      .ConstantInput("s", T_<int64_t>({1, 0}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("rank");
}

TEST(ReshapeTest, SharesBuffer) {
  OpTest t("Reshape", 13);
  t.Input("x", T_<float>({1, 2, 3, 4}, {4})).ConstantInput("s", T_<int64_t>({2, 2}, {2})).Output("y", T_<float>({1, 2, 3, 4}, {2, 2}));
  SessionOptions opts;
  Session session(t.BuildModel(), opts, MakeProviders({"cpu"}));
  Tensor in = T_<float>({1, 2, 3, 4}, {4});
  std::vector<Value> out = session.Run({{"x", in}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().raw_data(), in.raw_data());
}

TEST(FlattenTest, AxesIncludingNegativeAndZero) {
  std::vector<int32_t> x{1, 2, 3, 4, 5, 6};
  OpTest("Flatten", 13).Attr("axis", int64_t{0}).Input("x", T_<int32_t>(x, {1, 2, 3})).Output("y", T_<int32_t>(x, {1, 6})).Run();
  OpTest("Flatten", 13).Attr("axis", int64_t{-1}).Input("x", T_<int32_t>(x, {1, 2, 3})).Output("y", T_<int32_t>(x, {2, 3})).Run();
  OpTest("Flatten", 13).Attr("axis", int64_t{3}).Input("x", T_<int32_t>(x, {1, 2, 3})).Output("y", T_<int32_t>(x, {6, 1})).Run();
  OpTest("Flatten", 13).Attr("axis", int64_t{4}).Input("x", T_<int32_t>(x, {1, 2, 3})).Output("y", T_<int32_t>({}, {0})).ExpectFailure("out of range");
}

TEST(SqueezeTest, AllVersions) {
  OpTest("Squeeze", 13).Input("x", T_<float>({1, 2}, {1, 2, 1})).Output("y", T_<float>({1, 2}, {2})).Run();
  OpTest("Squeeze", 13)
      .Input("x", T_<float>({1, 2}, {1, 2, 1}))
      .ConstantInput("a", T_<int64_t>({-1}, {1}))
      .Output("y", T_<float>({1, 2}, {1, 2}))
      .Run();
  OpTest("Squeeze", 11).Attr("axes", std::vector<int64_t>{0}).Input("x", T_<float>({1, 2}, {1, 2, 1})).Output("y", T_<float>({1, 2}, {2, 1})).Run();
  OpTest("Squeeze", 13)
      .Input("x", T_<float>({1, 2}, {1, 2, 1}))
      .ConstantInput("a", T_<int64_t>({1}, {1}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("not 1");
}

TEST(UnsqueezeTest, AllVersions) {
  OpTest("Unsqueeze", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .ConstantInput("a", T_<int64_t>({-1, 0}, {2}))
      .Output("y", T_<float>({1, 2}, {1, 2, 1}))
      .Run();
  OpTest("Unsqueeze", 1).Attr("axes", std::vector<int64_t>{1}).Input("x", T_<std::string>({"a", "b"}, {2})).Output("y", T_<std::string>({"a", "b"}, {2, 1})).Run();
  OpTest("Unsqueeze", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .ConstantInput("a", T_<int64_t>({0, -3}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("more than once");
  OpTest("Unsqueeze", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .ConstantInput("a", T_<int64_t>({3}, {1}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("out of range");
}

TEST(ShapeTest, StartEndClamping) {
  OpTest("Shape", 15).Input("x", T_<float>({}, {2, 0, 4})).Output("y", T_<int64_t>({2, 0, 4}, {3})).Run();
  OpTest("Shape", 15).Attr("start", int64_t{-10}).Attr("end", int64_t{-1}).Input("x", T_<float>({}, {2, 0, 4})).Output("y", T_<int64_t>({2, 0}, {2})).Run();
  OpTest("Shape", 15).Attr("start", int64_t{2}).Attr("end", int64_t{1}).Input("x", T_<float>({}, {2, 0, 4})).Output("y", T_<int64_t>({}, {0})).Run();
  OpTest("Size", 13).Input("x", T_<float>({}, {2, 0, 4})).Output("y", T_<int64_t>({0}, {})).Run();
  OpTest("Size", 13).Input("x", T_<std::string>({"a"}, {})).Output("y", T_<int64_t>({1}, {})).Run();
}

TEST(ExpandTest, BidirectionalAndStrings) {
  OpTest("Expand", 13)
      .Input("x", T_<float>({1, 2, 3}, {3, 1}))
      .ConstantInput("s", T_<int64_t>({2, 1, 2}, {3}))
      .Output("y", T_<float>({1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, {2, 3, 2}))
      .Run();
  OpTest("Expand", 13)
      .Input("x", T_<std::string>({"a", "b"}, {2}))
      .ConstantInput("s", T_<int64_t>({2, 1}, {2}))
      .Output("y", T_<std::string>({"a", "b", "a", "b"}, {2, 2}))
      .Run();
  OpTest("Expand", 13)
      .Input("x", T_<float>({1, 2, 3}, {3}))
      .ConstantInput("s", T_<int64_t>({2}, {1}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("broadcast");
  OpTest("Expand", 13)
      .Input("x", T_<float>({1}, {1}))
      .ConstantInput("s", T_<int64_t>({0}, {1}))
      .Output("y", T_<float>({}, {0}))
      .Run();
}

TEST(IdentityTest, TensorAndSequence) {
  OpTest("Identity", 16).Input("x", T_<int8_t>({1, -2}, {2})).Output("y", T_<int8_t>({1, -2}, {2})).Run();
  SequenceValue seq;
  seq.elem_type = TypeInfo::Tensor(DataType::kFloat, {});
  seq.items.push_back(T_<float>({1, 2}, {2}));
  OpTest("Identity", 16).Input("x", Value::Sequence(seq)).Output("y", Value::Sequence(seq)).Run();
}

TEST(ConstantTest, AttributeForms) {
  OpTest("Constant", 13).Attr("value_floats", std::vector<float>{1.5f, 2}).Output("y", T_<float>({1.5f, 2}, {2})).Run();
  OpTest("Constant", 13).Attr("value_int", int64_t{7}).Output("y", T_<int64_t>({7}, {})).Run();
  OpTest("Constant", 13).Attr("value_strings", std::vector<std::string>{"a", "b"}).Output("y", T_<std::string>({"a", "b"}, {2})).Run();
  OpTest("Constant", 13).Attr("value", T_<int32_t>({1, 2, 3, 4}, {2, 2})).Output("y", T_<int32_t>({1, 2, 3, 4}, {2, 2})).Run();
  OpTest("Constant", 13).Output("y", T_<float>({}, {0})).ExpectFailure("exactly one value attribute");
}

TEST(ConstantOfShapeTest, TypesAndEmpty) {
  OpTest("ConstantOfShape", 20).Input("s", T_<int64_t>({2, 3}, {2})).Output("y", T_<float>(std::vector<float>(6, 0.0f), {2, 3})).Run();
  OpTest("ConstantOfShape", 20)
      .Attr("value", T_<int32_t>({-4}, {1}))
      .Input("s", T_<int64_t>({2}, {1}))
      .Output("y", T_<int32_t>({-4, -4}, {2}))
      .Run();
  OpTest("ConstantOfShape", 20).Attr("value", T_<bool>({true}, {1})).Input("s", T_<int64_t>({}, {0})).Output("y", T_<bool>({true}, {})).Run();
  OpTest("ConstantOfShape", 20).Attr("value", T_<double>({2.5}, {1})).Input("s", T_<int64_t>({0, 5}, {2})).Output("y", T_<double>({}, {0, 5})).Run();
  // int4: value 7, three elements -> two packed bytes 0x77, 0x07.
  Tensor v(DataType::kInt4, {1});
  static_cast<uint8_t*>(v.raw_data())[0] = 0x07;
  Tensor e(DataType::kInt4, {3});
  static_cast<uint8_t*>(e.raw_data())[0] = 0x77;
  static_cast<uint8_t*>(e.raw_data())[1] = 0x77;  // the unused high nibble is ignored by the comparison
  OpTest("ConstantOfShape", 21).Attr("value", v).Input("s", T_<int64_t>({3}, {1})).Output("y", e).Run();
  OpTest("ConstantOfShape", 20).Input("s", T_<int64_t>({-1}, {1})).Output("y", T_<float>({}, {0})).ExpectFailure("negative");
}

TEST(RangeTest, IntFloatHalfAndErrors) {
  OpTest("Range", 11)
      .Input("a", T_<int32_t>({10}, {}))
      .Input("b", T_<int32_t>({4}, {}))
      .Input("c", T_<int32_t>({-3}, {}))
      .Output("y", T_<int32_t>({10, 7}, {2}))
      .Run();
  OpTest("Range", 11)
      .Input("a", T_<int64_t>({std::numeric_limits<int64_t>::min()}, {}))
      .Input("b", T_<int64_t>({std::numeric_limits<int64_t>::min() + 2}, {}))
      .Input("c", T_<int64_t>({1}, {}))
      .Output("y", T_<int64_t>({std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1}, {2}))
      .Run();
  OpTest("Range", 11)
      .Input("a", T_<float>({1}, {}))
      .Input("b", T_<float>({2}, {}))
      .Input("c", T_<float>({0.25f}, {}))
      .Output("y", T_<float>({1, 1.25f, 1.5f, 1.75f}, {4}))
      .Run();
  OpTest("Range", 11)
      .Input("a", T_<float>({1}, {}))
      .Input("b", T_<float>({0}, {}))
      .Input("c", T_<float>({1}, {}))
      .Output("y", T_<float>({}, {0}))
      .Run();
  std::vector<Float16> h;
  for (float f : {0.0f, 1.0f, 2.0f}) h.push_back(Float16{FloatToHalf(f)});
  OpTest("Range", 27)
      .Input("a", T_<Float16>({h[0]}, {}))
      .Input("b", T_<Float16>({Float16{FloatToHalf(3.0f)}}, {}))
      .Input("c", T_<Float16>({h[1]}, {}))
      .Output("y", T_<Float16>(h, {3}))
      .Run();
  OpTest("Range", 11)
      .Input("a", T_<int32_t>({1}, {}))
      .Input("b", T_<int32_t>({4}, {}))
      .Input("c", T_<int32_t>({0}, {}))
      .Output("y", T_<int32_t>({}, {0}))
      .ExpectFailure("delta cannot be 0");
}

TEST(DropoutTest, InferenceAndSeededTraining) {
  OpTest("Dropout", 7).Input("x", T_<float>({1, -2}, {2})).Output("y", T_<float>({1, -2}, {2})).UncheckedOutput("m").Run();
  OpTest("Dropout", 13)
      .Input("x", T_<float>({1, -2}, {2}))
      .Output("y", T_<float>({1, -2}, {2}))
      .Output("m", T_<bool>({true, true}, {2}))
      .Run();
  // Seed 0 with numpy's MT19937: u = 0.5488, 0.7152, 0.6028, 0.5449, 0.4237.
  OpTest("Dropout", 13)
      .Attr("seed", int64_t{0})
      .Input("x", T_<float>({1, 2, 3, 4, 5}, {5}))
      .Input("r", T_<float>({0.55f}, {}))
      .Input("t", T_<bool>({true}, {}))
      .Output("y", T_<float>({0, 2 / 0.45f, 3 / 0.45f, 0, 0}, {5}))
      .Output("m", T_<bool>({false, true, true, false, false}, {5}))
      .Run();
}

TEST(EyeLikeTest, OffsetsAndTypes) {
  OpTest("EyeLike", 9)
      .Attr("k", int64_t{1})
      .Input("x", T_<float>(std::vector<float>(6), {2, 3}))
      .Output("y", T_<float>({0, 1, 0, 0, 0, 1}, {2, 3}))
      .Run();
  OpTest("EyeLike", 9)
      .Attr("k", int64_t{-1})
      .Attr("dtype", int64_t{9})
      .Input("x", T_<int32_t>(std::vector<int32_t>(6), {3, 2}))
      .Output("y", T_<bool>({false, false, true, false, false, true}, {3, 2}))
      .Run();
  OpTest("EyeLike", 9).Input("x", T_<float>({1}, {1})).Output("y", T_<float>({}, {0})).ExpectFailure("2-D");
}

// The ai.onnx rows of the shape, layout and cast families cover each op's
// opsets from its first version to kMaxOnnxOpset without gaps or overlaps
// (ONNX Runtime's com.microsoft Trilu and Range share their kernels).
TEST(TensorFamilyRowsTest, CoverEveryOpsetOnce) {
  const std::map<std::string, int64_t> first = {
      {"Reshape", 1},  {"Flatten", 1},      {"Squeeze", 1},        {"Unsqueeze", 1},     {"Shape", 1},
      {"Size", 1},     {"Expand", 8},       {"Identity", 1},       {"Constant", 1},      {"ConstantOfShape", 9},
      {"Range", 11},   {"Dropout", 1},      {"EyeLike", 9},        {"Transpose", 1},     {"Concat", 1},
      {"Split", 1},    {"Slice", 1},        {"Tile", 1},           {"Pad", 1},           {"DepthToSpace", 1},
      {"SpaceToDepth", 1}, {"Trilu", 14},   {"Compress", 9},       {"ReverseSequence", 10},
      {"CenterCropPad", 18}, {"Cast", 1},   {"CastLike", 15},      {"BitCast", 26}};
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> ranges;
  for (auto family : {cpu::ViewKernels, cpu::ShapeKernels, cpu::LayoutKernels, cpu::PadKernels, cpu::CastKernels})
    for (const KernelRow& r : family()) {
      if (r.domain == kMicrosoftDomain) {
        EXPECT_TRUE(r.op_type == "Trilu" || r.op_type == "Range") << r.op_type;
        continue;
      }
      EXPECT_EQ(r.domain, "ai.onnx");
      ranges[r.op_type].push_back({r.first_opset, r.last_opset});
    }
  EXPECT_EQ(ranges.size(), first.size());
  for (auto& [op, rs] : ranges) {
    ASSERT_TRUE(first.count(op)) << op;
    std::sort(rs.begin(), rs.end());
    int64_t next = first.at(op);
    for (auto [a, b] : rs) {
      EXPECT_EQ(a, next) << op;
      EXPECT_LE(a, b) << op;
      next = b + 1;
    }
    EXPECT_EQ(next, kMaxOnnxOpset + 1) << op;
  }
}

}  // namespace
}  // namespace tessera::test
