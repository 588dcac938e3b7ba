// Unit tests of the layout kernels (Transpose, Concat, Split, Slice, Tile,
// Pad, DepthToSpace, SpaceToDepth, Trilu, Compress, ReverseSequence,
// CenterCropPad): every element kind (strings, float16, packed int4), fast and
// general paths checked against naive references, multi-threaded runs, bad input.
#include <numeric>
#include <string>
#include <vector>

#include "support/op_test.h"
#include "tessera/api/providers.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/runtime/session.h"

namespace tessera::test {
namespace {

std::vector<float> Iota(int64_t n, float start = 0) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}
int64_t Numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
std::vector<std::string> Strs(int64_t n) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < n; ++i) v.push_back("s" + std::to_string(i) + std::string(static_cast<size_t>(i % 7) * 5, 'x'));
  return v;
}

// Naive transpose of a row-major vector.
template <typename T>
std::vector<T> RefTranspose(const std::vector<T>& in, const Shape& s, const std::vector<int64_t>& perm, Shape* out_s) {
  size_t r = s.size();
  Shape os(r);
  for (size_t i = 0; i < r; ++i) os[i] = s[static_cast<size_t>(perm[i])];
  std::vector<int64_t> ist(r, 1);
  for (size_t i = r; i-- > 1;) ist[i - 1] = ist[i] * s[i];
  std::vector<T> out(in.size());
  for (int64_t o = 0; o < Numel(os); ++o) {
    int64_t rem = o, off = 0;
    for (size_t d = r; d-- > 0;) {
      int64_t idx = rem % os[d];
      rem /= os[d];
      off += idx * ist[static_cast<size_t>(perm[d])];
    }
    out[static_cast<size_t>(o)] = in[static_cast<size_t>(off)];
  }
  *out_s = os;
  return out;
}

// Runs a model with several intra-op threads and compares with expected.
void RunThreaded(const OpTest& t, const Feeds& feeds, const std::vector<Value>& expected) {
  SessionOptions opts;
  opts.intra_op_num_threads = 4;
  Session session(t.BuildModel(), opts, MakeProviders({"cpu"}));
  std::vector<Value> got = session.Run(feeds);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CompareResult c = CompareValues(got[i], expected[i], 0, 0);
    EXPECT_TRUE(c.match) << c.message;
  }
}

TEST(TransposeTest, AllPermutationsMatchReference) {
  Shape s{3, 17, 40};
  std::vector<float> in = Iota(Numel(s));
  std::vector<int64_t> perm{0, 1, 2};
  do {
    Shape os;
    auto ref = RefTranspose(in, s, perm, &os);
    OpTest("Transpose", 13)
        .Attr("perm", perm)
        .Input("x", T_<float>(in, s))
        .Output("y", T_<float>(ref, os))
        .Run();
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposeTest, Rank4TiledAndThreaded) {
  Shape s{2, 33, 9, 70};
  std::vector<float> in = Iota(Numel(s));
  for (std::vector<int64_t> perm : {std::vector<int64_t>{0, 3, 1, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {1, 0, 3, 2}}) {
    Shape os;
    auto ref = RefTranspose(in, s, perm, &os);
    OpTest t("Transpose", 13);
    t.Attr("perm", perm).Input("x", T_<float>(in, s)).Output("y", T_<float>(ref, os)).Run();
    RunThreaded(t, {{"x", T_<float>(in, s)}}, {T_<float>(ref, os)});
  }
}

TEST(TransposeTest, DefaultReversesAndStringsAndNegativePerm) {
  Shape s{2, 3, 4};
  auto strs = Strs(24);
  Shape os;
  auto ref = RefTranspose(strs, s, {2, 1, 0}, &os);
  OpTest("Transpose").Input("x", T_<std::string>(strs, s)).Output("y", T_<std::string>(ref, os)).Run();
  std::vector<int64_t> big(24);
  std::iota(big.begin(), big.end(), 0);
  auto ref2 = RefTranspose(big, s, {1, 2, 0}, &os);
  OpTest("Transpose").Attr("perm", std::vector<int64_t>{1, 2, 0}).Input("x", T_<int64_t>(big, s)).Output("y", T_<int64_t>(ref2, os)).Run();
}

TEST(TransposeTest, SizeOneDimsAndEmpty) {
  OpTest("Transpose")
      .Attr("perm", std::vector<int64_t>{1, 0, 2})
      .Input("x", T_<float>({1, 2, 3}, {1, 1, 3}))
      .Output("y", T_<float>({1, 2, 3}, {1, 1, 3}))
      .Run();
  OpTest("Transpose").Input("x", T_<float>({}, {0, 3})).Output("y", T_<float>({}, {3, 0})).Run();
}

TEST(TransposeTest, Int4Packed) {
  // int4 [2,3] = [[1,2,3],[4,5,6]] packed low nibble first.
  Tensor x(DataType::kInt4, {2, 3});
  uint8_t* b = static_cast<uint8_t*>(x.raw_data());
  b[0] = 0x21; b[1] = 0x43; b[2] = 0x65;
  Tensor y(DataType::kInt4, {3, 2});  // [[1,4],[2,5],[3,6]]
  uint8_t* c = static_cast<uint8_t*>(y.raw_data());
  c[0] = 0x41; c[1] = 0x52; c[2] = 0x63;
  OpTest("Transpose", 21).Input("x", x).Output("y", y).Run();
}

TEST(TransposeTest, BadPermFails) {
  OpTest("Transpose").Attr("perm", std::vector<int64_t>{0, 0}).Input("x", T_<float>({1, 2}, {1, 2})).Output("y", T_<float>({}, {0})).ExpectFailure("permutation");
  OpTest("Transpose").Attr("perm", std::vector<int64_t>{0}).Input("x", T_<float>({1, 2}, {1, 2})).Output("y", T_<float>({}, {0})).ExpectFailure("perm has 1");
}

TEST(ConcatTest, AxesStringsEmptyAndErrors) {
  OpTest("Concat", 13)
      .Attr("axis", int64_t{-1})
      .Input("a", T_<std::string>({"a", "b"}, {2, 1}))
      .Input("b", T_<std::string>({}, {2, 0}))
      .Input("c", T_<std::string>({"c", "d", "e", "f"}, {2, 2}))
      .Output("y", T_<std::string>({"a", "c", "d", "b", "e", "f"}, {2, 3}))
      .Run();
  OpTest("Concat", 4)
      .Attr("axis", int64_t{0})
      .Input("a", T_<int64_t>({1, 2}, {1, 2}))
      .Input("b", T_<int64_t>({3, 4, 5, 6}, {2, 2}))
      .Output("y", T_<int64_t>({1, 2, 3, 4, 5, 6}, {3, 2}))
      .Run();
  // Concat-1 defaults to axis 1.
  OpTest("Concat", 1)
      .Input("a", T_<float>({1, 2}, {2, 1}))
      .Input("b", T_<float>({3, 4}, {2, 1}))
      .Output("y", T_<float>({1, 3, 2, 4}, {2, 2}))
      .Run();
  OpTest("Concat", 13)
      .Attr("axis", int64_t{0})
      .Input("a", T_<float>({1, 2}, {1, 2}))
      .Input("b", T_<float>({1, 2, 3}, {1, 3}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("differ outside axis");
  OpTest("Concat", 13)
      .Attr("axis", int64_t{2})
      .Input("a", T_<float>({1, 2}, {1, 2}))
      .Input("b", T_<float>({1, 2}, {1, 2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("out of range");
}

TEST(SplitTest, VersionsAndUneven) {
  // opset 18 num_outputs with an uneven last chunk.
  OpTest("Split", 18)
      .Attr("axis", int64_t{0})
      .Attr("num_outputs", int64_t{3})
      .Input("x", T_<float>(Iota(7), {7}))
      .Output("a", T_<float>({0, 1, 2}, {3}))
      .Output("b", T_<float>({3, 4, 5}, {3}))
      .Output("c", T_<float>({6}, {1}))
      .Run();
  // opset 11 split attribute, negative axis.
  OpTest("Split", 11)
      .Attr("axis", int64_t{-1})
      .Attr("split", std::vector<int64_t>{1, 2})
      .Input("x", T_<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Output("a", T_<int32_t>({1, 4}, {2, 1}))
      .Output("b", T_<int32_t>({2, 3, 5, 6}, {2, 2}))
      .Run();
  // opset 13 split input with a zero-sized part.
  OpTest("Split", 13)
      .Input("x", T_<std::string>({"a", "b", "c"}, {3}))
      .ConstantInput("split", T_<int64_t>({0, 3}, {2}))
      .Output("a", T_<std::string>({}, {0}))
      .Output("b", T_<std::string>({"a", "b", "c"}, {3}))
      .Run();
  OpTest("Split", 13)
      .Input("x", T_<float>(Iota(5), {5}))
      .Output("a", T_<float>({}, {0}))
      .Output("b", T_<float>({}, {0}))
      .ExpectFailure("evenly");
  OpTest("Split", 13)
      .Input("x", T_<float>(Iota(5), {5}))
      .ConstantInput("split", T_<int64_t>({2, 2}, {2}))
      .Output("a", T_<float>({}, {0}))
      .Output("b", T_<float>({}, {0}))
      .ExpectFailure("sums to");
}

TEST(SliceTest, NegativeStepsClampingDefaults) {
  std::vector<float> x = Iota(20);  // [4,5]
  // Reverse the whole second axis with huge bounds.
  OpTest("Slice", 13)
      .Input("x", T_<float>(x, {4, 5}))
      .ConstantInput("starts", T_<int64_t>({-1}, {1}))
      .ConstantInput("ends", T_<int64_t>({std::numeric_limits<int64_t>::min()}, {1}))
      .ConstantInput("axes", T_<int64_t>({-1}, {1}))
      .ConstantInput("steps", T_<int64_t>({-2}, {1}))
      .Output("y", T_<float>({4, 2, 0, 9, 7, 5, 14, 12, 10, 19, 17, 15}, {4, 3}))
      .Run();
  // Omitted axes and steps; out-of-range ends clamp; int32 indices.
  OpTest("Slice", 13)
      .Input("x", T_<float>(x, {4, 5}))
      .ConstantInput("starts", T_<int32_t>({1, 3}, {2}))
      .ConstantInput("ends", T_<int32_t>({1000, 1000}, {2}))
      .Output("y", T_<float>({8, 9, 13, 14, 18, 19}, {3, 2}))
      .Run();
  // Empty result when start >= end.
  OpTest("Slice", 13)
      .Input("x", T_<float>(x, {4, 5}))
      .ConstantInput("starts", T_<int64_t>({3}, {1}))
      .ConstantInput("ends", T_<int64_t>({1}, {1}))
      .Output("y", T_<float>({}, {0, 5}))
      .Run();
  // Opset 1 attribute form.
  OpTest("Slice", 1)
      .Attr("starts", std::vector<int64_t>{0, 1})
      .Attr("ends", std::vector<int64_t>{-1, 1000})
      .Attr("axes", std::vector<int64_t>{0, 1})
      .Input("x", T_<std::string>(Strs(20), {4, 5}))
      .Output("y", T_<std::string>({Strs(20)[1], Strs(20)[2], Strs(20)[3], Strs(20)[4], Strs(20)[6], Strs(20)[7],
                                    Strs(20)[8], Strs(20)[9], Strs(20)[11], Strs(20)[12], Strs(20)[13], Strs(20)[14]},
                                   {3, 4}))
      .Run();
  OpTest("Slice", 13)
      .Input("x", T_<float>(x, {4, 5}))
      .ConstantInput("starts", T_<int64_t>({0}, {1}))
      .ConstantInput("ends", T_<int64_t>({1}, {1}))
      .ConstantInput("axes", T_<int64_t>({0}, {1}))
      .ConstantInput("steps", T_<int64_t>({0}, {1}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("step cannot be 0");
  OpTest("Slice", 13)
      .Input("x", T_<float>(x, {4, 5}))
      .ConstantInput("starts", T_<int64_t>({0, 0}, {2}))
      .ConstantInput("ends", T_<int64_t>({1, 1}, {2}))
      .ConstantInput("axes", T_<int64_t>({0, -2}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("more than once");
}

TEST(SliceTest, HugeNegativeStep) {
  OpTest("Slice", 13)
      .Input("x", T_<int64_t>({1, 2, 3}, {3}))
      .ConstantInput("starts", T_<int64_t>({std::numeric_limits<int64_t>::max()}, {1}))
      .ConstantInput("ends", T_<int64_t>({std::numeric_limits<int64_t>::min()}, {1}))
      .ConstantInput("axes", T_<int64_t>({0}, {1}))
      .ConstantInput("steps", T_<int64_t>({std::numeric_limits<int64_t>::min()}, {1}))
      .Output("y", T_<int64_t>({3}, {1}))
      .Run();
}

// Shape inference used to compute (e - s + step - 1) / step, which overflows
// for a huge positive step (UBSan found the INT64_MIN case above).
TEST(SliceTest, HugePositiveStep) {
  OpTest("Slice", 13)
      .Input("x", T_<int64_t>({1, 2, 3}, {3}))
      .ConstantInput("starts", T_<int64_t>({1}, {1}))
      .ConstantInput("ends", T_<int64_t>({std::numeric_limits<int64_t>::max()}, {1}))
      .ConstantInput("axes", T_<int64_t>({0}, {1}))
      .ConstantInput("steps", T_<int64_t>({std::numeric_limits<int64_t>::max()}, {1}))
      .Output("y", T_<int64_t>({2}, {1}))
      .Run();
}

TEST(TileTest, StringsAndThreaded) {
  OpTest("Tile", 13)
      .Input("x", T_<std::string>({"a", "b"}, {2, 1}))
      .ConstantInput("r", T_<int64_t>({2, 3}, {2}))
      .Output("y", T_<std::string>({"a", "a", "a", "b", "b", "b", "a", "a", "a", "b", "b", "b"}, {4, 3}))
      .Run();
  OpTest("Tile", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .ConstantInput("r", T_<int64_t>({0}, {1}))
      .Output("y", T_<float>({}, {0}))
      .Run();
  std::vector<float> in = Iota(6);
  std::vector<float> ref;
  for (int rep0 = 0; rep0 < 300; ++rep0)
    for (int i = 0; i < 2; ++i)
      for (int rep1 = 0; rep1 < 40; ++rep1)
        for (int j = 0; j < 3; ++j) ref.push_back(in[static_cast<size_t>(i * 3 + j)]);
  OpTest t("Tile", 13);
  t.Input("x", T_<float>(in, {2, 3})).ConstantInput("r", T_<int64_t>({300, 40}, {2})).Output("y", T_<float>(ref, {600, 120}));
  t.Run();
  RunThreaded(t, {{"x", T_<float>(in, {2, 3})}}, {T_<float>(ref, {600, 120})});
  OpTest("Tile", 13)
      .Input("x", T_<float>({1, 2}, {2}))
      .ConstantInput("r", T_<int64_t>({1, 2}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("repeats has 2");
}

TEST(PadTest, ModesWithNegativePadsAndAxes) {
  std::vector<float> x{1, 2, 3, 4, 5, 6};  // [2,3]
  OpTest("Pad", 18)
      .Attr("mode", std::string("reflect"))
      .Input("x", T_<float>(x, {2, 3}))
      .ConstantInput("pads", T_<int64_t>({2, -1}, {2}))
      .OmittedInput()
      .ConstantInput("axes", T_<int64_t>({-1}, {1}))
      .Output("y", T_<float>({3, 2, 1, 2, 6, 5, 4, 5}, {2, 4}))
      .Run();
  OpTest("Pad", 19)
      .Attr("mode", std::string("wrap"))
      .Input("x", T_<float>(x, {2, 3}))
      .ConstantInput("pads", T_<int64_t>({1, 4, 0, 0}, {4}))
      .Output("y", T_<float>({6, 4, 5, 6, 4, 5, 6, 3, 1, 2, 3, 1, 2, 3, 6, 4, 5, 6, 4, 5, 6}, {3, 7}))
      .Run();
  OpTest("Pad", 13)
      .Attr("mode", std::string("edge"))
      .Input("x", T_<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .ConstantInput("pads", T_<int64_t>({0, 2, 1, 0}, {4}))
      .Output("y", T_<int32_t>({1, 1, 1, 2, 3, 4, 4, 4, 5, 6, 4, 4, 4, 5, 6}, {3, 5}))
      .Run();
  OpTest("Pad", 13)
      .Input("x", T_<std::string>({"a", "b"}, {2}))
      .ConstantInput("pads", T_<int64_t>({1, 1}, {2}))
      .ConstantInput("v", T_<std::string>({"z"}, {}))
      .Output("y", T_<std::string>({"z", "a", "b", "z"}, {4}))
      .Run();
  // Pad-2 attribute form and crop with constant mode.
  OpTest("Pad", 2)
      .Attr("pads", std::vector<int64_t>{-1, 1, 0, 1})
      .Attr("value", 9.5f)
      .Input("x", T_<float>(x, {2, 3}))
      .Output("y", T_<float>({9.5f, 4, 5, 6, 9.5f}, {1, 5}))
      .Run();
  OpTest("Pad", 13)
      .Attr("mode", std::string("edge"))
      .Input("x", T_<float>({}, {0, 2}))
      .ConstantInput("pads", T_<int64_t>({1, 0, 0, 0}, {4}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("empty axis");
  OpTest("Pad", 13)
      .Input("x", T_<float>(x, {2, 3}))
      .ConstantInput("pads", T_<int64_t>({1, 0}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("pads has 2");
}

TEST(DepthSpaceTest, RoundTripAndModes) {
  std::vector<float> x = Iota(2 * 8 * 2 * 3);
  // SpaceToDepth(DepthToSpace(x)) == x for DCR.
  OpTest("DepthToSpace", 13)
      .Attr("blocksize", int64_t{2})
      .Attr("mode", std::string("CRD"))
      .Input("x", T_<float>(Iota(8), {1, 8, 1, 1}))
      .Output("y", T_<float>({0, 1, 2, 3, 4, 5, 6, 7}, {1, 2, 2, 2}))
      .Run();
  OpTest("DepthToSpace", 13)
      .Attr("blocksize", int64_t{2})
      .Input("x", T_<float>(Iota(8), {1, 8, 1, 1}))
      .Output("y", T_<float>({0, 2, 4, 6, 1, 3, 5, 7}, {1, 2, 2, 2}))
      .Run();
  OpTest("SpaceToDepth", 13)
      .Attr("blocksize", int64_t{2})
      .Input("x", T_<float>({0, 2, 4, 6, 1, 3, 5, 7}, {1, 2, 2, 2}))
      .Output("y", T_<float>(Iota(8), {1, 8, 1, 1}))
      .Run();
  OpTest("DepthToSpace", 13)
      .Attr("blocksize", int64_t{3})
      .Input("x", T_<float>(Iota(8), {1, 8, 1, 1}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("not divisible");
}

TEST(TriluTest, UpperLowerK) {
  std::vector<int64_t> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // [3,4]
  OpTest("Trilu", 14)
      .Input("x", T_<int64_t>(x, {3, 4}))
      .ConstantInput("k", T_<int64_t>({1}, {}))
      .Output("y", T_<int64_t>({0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12}, {3, 4}))
      .Run();
  OpTest("Trilu", 14)
      .Attr("upper", int64_t{0})
      .Input("x", T_<int64_t>(x, {3, 4}))
      .ConstantInput("k", T_<int64_t>({-1}, {}))
      .Output("y", T_<int64_t>({0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}, {3, 4}))
      .Run();
  OpTest("Trilu", 14)
      .Attr("upper", int64_t{0})
      .Input("x", T_<bool>({true, true, true, true}, {1, 2, 2}))
      .ConstantInput("k", T_<int64_t>({-100}, {}))
      .Output("y", T_<bool>({false, false, false, false}, {1, 2, 2}))
      .Run();
}

TEST(CompressTest, AxisFlatAndShortCondition) {
  OpTest("Compress", 11)
      .Attr("axis", int64_t{-1})
      .Input("x", T_<std::string>({"a", "b", "c", "d", "e", "f"}, {2, 3}))
      .Input("c", T_<bool>({false, true}, {2}))
      .Output("y", T_<std::string>({"b", "e"}, {2, 1}))
      .Run();
  OpTest("Compress", 11)
      .Input("x", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("c", T_<bool>({true, false, false, true}, {4}))
      .Output("y", T_<float>({1, 4}, {2}))
      .Run();
  OpTest("Compress", 11)
      .Attr("axis", int64_t{0})
      .Input("x", T_<float>({1, 2}, {2}))
      .Input("c", T_<bool>({false, false, true}, {3}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("beyond axis");
}

TEST(ReverseSequenceTest, BatchMajorAndBadLength) {
  OpTest("ReverseSequence", 10)
      .Attr("time_axis", int64_t{1})
      .Attr("batch_axis", int64_t{0})
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("l", T_<int64_t>({3, 0}, {2}))
      .Output("y", T_<float>({3, 2, 1, 4, 5, 6}, {2, 3}))
      .Run();
  OpTest("ReverseSequence", 10)
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {3, 2}))
      .Input("l", T_<int64_t>({4, 1}, {2}))
      .Output("y", T_<float>({}, {0}))
      .ExpectFailure("outside");
}

TEST(CenterCropPadTest, CropAndPadOddSizes) {
  // [5] -> [2]: crop start (5-2)/2 = 1; [1] -> [4]: pad begin (4-1)/2 = 1.
  OpTest("CenterCropPad", 18)
      .Input("x", T_<float>({1, 2, 3, 4, 5}, {5, 1}))
      .ConstantInput("s", T_<int64_t>({2, 4}, {2}))
      .Output("y", T_<float>({0, 2, 0, 0, 0, 3, 0, 0}, {2, 4}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
