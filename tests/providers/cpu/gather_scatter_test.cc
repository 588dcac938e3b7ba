#include <cstring>
#include <string>

#include "support/op_test.h"

namespace tessera::test {
namespace {

TEST(GatherScatterTest, GatherAxis1NegativeIndices) {
  OpTest("Gather", 13)
      .Attr("axis", int64_t{1})
      .Input("data", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Input("indices", T_<int32_t>({-1, 0}, {2}))
      .Output("y", T_<float>({3, 1, 6, 4}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, GatherStrings) {
  OpTest("Gather", 13)
      .Input("data", T_<std::string>({"a", "bb", "ccc"}, {3}))
      .Input("indices", T_<int64_t>({2, 2, 0}, {3}))
      .Output("y", T_<std::string>({"ccc", "ccc", "a"}, {3}))
      .Run();
}

TEST(GatherScatterTest, GatherScalarIndex) {
  OpTest("Gather", 13)
      .Input("data", T_<int64_t>({1, 2, 3, 4}, {2, 2}))
      .Input("indices", T_<int64_t>({1}, {}))
      .Output("y", T_<int64_t>({3, 4}, {2}))
      .Run();
}

TEST(GatherScatterTest, GatherOutOfRangeFails) {
  OpTest("Gather", 13)
      .Input("data", T_<float>({1, 2, 3}, {3}))
      .Input("indices", T_<int64_t>({3}, {1}))
      .Output("y", T_<float>({0}, {1}))
      .ExpectFailure("out of range");
}

TEST(GatherScatterTest, GatherElementsAxis1) {
  OpTest("GatherElements", 13)
      .Attr("axis", int64_t{1})
      .Input("data", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("indices", T_<int64_t>({0, 0, 1, 0}, {2, 2}))
      .Output("y", T_<float>({1, 1, 4, 3}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, GatherNDBatchDims) {
  OpTest("GatherND", 13)
      .Attr("batch_dims", int64_t{1})
      .Input("data", T_<int32_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}))
      .Input("indices", T_<int64_t>({1, 0}, {2, 1}))
      .Output("y", T_<int32_t>({2, 3, 4, 5}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, GatherNDBadTupleFails) {
  OpTest("GatherND", 13)
      .Input("data", T_<int32_t>({0, 1, 2, 3}, {2, 2}))
      .Input("indices", T_<int64_t>({0, 2}, {1, 2}))
      .Output("y", T_<int32_t>({0}, {1}))
      .ExpectFailure("out of range");
}

TEST(GatherScatterTest, ScatterElementsAddWithDuplicates) {
  OpTest("ScatterElements", 18)
      .Attr("axis", int64_t{1})
      .Attr("reduction", std::string("add"))
      .Input("data", T_<float>({1, 2, 3, 4, 5}, {1, 5}))
      .Input("indices", T_<int64_t>({1, 1}, {1, 2}))
      .Input("updates", T_<float>({1.1f, 2.1f}, {1, 2}))
      .Output("y", T_<float>({1, 5.2f, 3, 4, 5}, {1, 5}))
      .Run();
}

TEST(GatherScatterTest, ScatterElementsMaxRejectedBeforeOpset18) {
  OpTest("ScatterElements", 16)
      .Attr("reduction", std::string("max"))
      .Input("data", T_<float>({1, 2}, {2}))
      .Input("indices", T_<int64_t>({1}, {1}))
      .Input("updates", T_<float>({1}, {1}))
      .Output("y", T_<float>({1, 2}, {2}))
      .ExpectFailure("reduction");
}

TEST(GatherScatterTest, ScatterNDMulAndStrings) {
  OpTest("ScatterND", 18)
      .Attr("reduction", std::string("mul"))
      .Input("data", T_<int32_t>({1, 2, 3, 4}, {4}))
      .Input("indices", T_<int64_t>({1, 1, -1}, {3, 1}))
      .Input("updates", T_<int32_t>({3, 5, 2}, {3}))
      .Output("y", T_<int32_t>({1, 30, 3, 8}, {4}))
      .Run();
  OpTest("ScatterND", 18)
      .Input("data", T_<std::string>({"a", "b", "c", "d"}, {2, 2}))
      .Input("indices", T_<int64_t>({1}, {1, 1}))
      .Input("updates", T_<std::string>({"x", "y"}, {1, 2}))
      .Output("y", T_<std::string>({"a", "b", "x", "y"}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, TensorScatterCircular) {
  OpTest("TensorScatter", 24)
      .Attr("mode", std::string("circular"))
      .Attr("axis", int64_t{1})
      .Input("past", T_<float>({0, 0, 0, 0, 0, 0}, {2, 3}))
      .Input("update", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("write_indices", T_<int64_t>({2, 0}, {2}))
      .Output("present", T_<float>({2, 0, 1, 3, 4, 0}, {2, 3}))
      .Run();
}

TEST(GatherScatterTest, TensorScatterLinearOverflowFails) {
  OpTest("TensorScatter", 24)
      .Attr("axis", int64_t{1})
      .Input("past", T_<float>({0, 0, 0}, {1, 3}))
      .Input("update", T_<float>({1, 2}, {1, 2}))
      .Input("write_indices", T_<int64_t>({2}, {1}))
      .Output("present", T_<float>({0, 0, 0}, {1, 3}))
      .ExpectFailure("out of range");
}

TEST(GatherScatterTest, OneHotAxis0) {
  OpTest("OneHot", 11)
      .Attr("axis", int64_t{0})
      .Input("indices", T_<int64_t>({0, -1, 5}, {3}))
      .Input("depth", T_<float>({3}, {}))
      .Input("values", T_<int32_t>({0, 7}, {2}))
      .Output("y", T_<int32_t>({7, 0, 0, 0, 0, 0, 0, 7, 0}, {3, 3}))
      .Run();
}

TEST(GatherScatterTest, NonZeroCoordinates) {
  OpTest("NonZero", 13)
      .Input("x", T_<float>({0, 1, 2, 0}, {2, 2}))
      .Output("y", T_<int64_t>({0, 1, 1, 0}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, TopKTiesByIndex) {
  OpTest("TopK", 11)
      .Input("x", T_<float>({1, 3, 3, 2, 3}, {5}))
      .Input("k", T_<int64_t>({3}, {1}))
      .Output("values", T_<float>({3, 3, 3}, {3}))
      .Output("indices", T_<int64_t>({1, 2, 4}, {3}))
      .Run();
  OpTest("TopK", 11)
      .Attr("largest", int64_t{0})
      .Attr("axis", int64_t{0})
      .Input("x", T_<int32_t>({4, 1, 2, 3}, {2, 2}))
      .Input("k", T_<int64_t>({1}, {1}))
      .Output("values", T_<int32_t>({2, 1}, {1, 2}))
      .Output("indices", T_<int64_t>({1, 0}, {1, 2}))
      .Run();
}

TEST(GatherScatterTest, TopKOpset1AttributeK) {
  OpTest("TopK", 1)
      .Attr("k", int64_t{1})
      .Input("x", T_<float>({1, 3, 2}, {3}))
      .Output("values", T_<float>({3}, {1}))
      .Output("indices", T_<int64_t>({1}, {1}))
      .Run();
}

TEST(GatherScatterTest, TopKTooLargeFails) {
  OpTest("TopK", 11)
      .Input("x", T_<float>({1, 2}, {2}))
      .Input("k", T_<int64_t>({3}, {1}))
      .Output("values", T_<float>({0}, {1}))
      .Output("indices", T_<int64_t>({0}, {1}))
      .ExpectFailure("out of range");
}

TEST(GatherScatterTest, CumSumExclusiveReverse) {
  OpTest("CumSum", 14)
      .Attr("exclusive", int64_t{1})
      .Attr("reverse", int64_t{1})
      .Input("x", T_<int64_t>({1, 2, 3, 4}, {4}))
      .Input("axis", T_<int32_t>({0}, {}))
      .Output("y", T_<int64_t>({9, 7, 4, 0}, {4}))
      .Run();
}

TEST(GatherScatterTest, CumProdAxis0) {
  OpTest("CumProd", 26)
      .Input("x", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("axis", T_<int64_t>({0}, {}))
      .Output("y", T_<float>({1, 2, 3, 8}, {2, 2}))
      .Run();
}

TEST(GatherScatterTest, UniqueUnsortedAllOutputs) {
  OpTest("Unique", 11)
      .Attr("sorted", int64_t{0})
      .Input("x", T_<float>({2, 1, 1, 3, 4, 3}, {6}))
      .Output("y", T_<float>({2, 1, 3, 4}, {4}))
      .Output("indices", T_<int64_t>({0, 1, 3, 4}, {4}))
      .Output("inverse", T_<int64_t>({0, 1, 1, 2, 3, 2}, {6}))
      .Output("counts", T_<int64_t>({1, 2, 2, 1}, {4}))
      .Run();
}

TEST(GatherScatterTest, UniqueSortedAxis0) {
  OpTest("Unique", 11)
      .Attr("axis", int64_t{0})
      .Input("x", T_<int32_t>({2, 3, 1, 0, 2, 3}, {3, 2}))
      .Output("y", T_<int32_t>({1, 0, 2, 3}, {2, 2}))
      .Output("indices", T_<int64_t>({1, 0}, {2}))
      .Output("inverse", T_<int64_t>({1, 0, 1}, {3}))
      .Output("counts", T_<int64_t>({1, 2}, {2}))
      .Run();
}

TEST(GatherScatterTest, UniqueStrings) {
  OpTest("Unique", 11)
      .Input("x", T_<std::string>({"b", "a", "b"}, {3}))
      .Output("y", T_<std::string>({"a", "b"}, {2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test

namespace tessera::test {
namespace {

Tensor Packed(DataType dt, Shape shape, std::vector<uint8_t> bytes) {
  Tensor t(dt, std::move(shape));
  std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  return t;
}

TEST(GatherScatterTest, TensorScatterPackedInt4) {
  // past [1, 4, 1] int4 = 1,2,3,4 (low nibble first); write 7 at position 2.
  OpTest("TensorScatter", 24)
      .Attr("axis", int64_t{1})
      .Input("past", Packed(DataType::kInt4, {1, 4, 1}, {0x21, 0x43}))
      .Input("update", Packed(DataType::kInt4, {1, 1, 1}, {0x07}))
      .Input("write_indices", T_<int64_t>({2}, {1}))
      .Output("present", Packed(DataType::kInt4, {1, 4, 1}, {0x21, 0x47}))
      .Run();
}

TEST(GatherScatterTest, ScatterOpset9AndBoolAdd) {
  OpTest("Scatter", 9)
      .Attr("axis", int64_t{1})
      .Input("data", T_<float>({0, 0, 0}, {1, 3}))
      .Input("indices", T_<int64_t>({2, 0}, {1, 2}))
      .Input("updates", T_<float>({5, 6}, {1, 2}))
      .Output("y", T_<float>({6, 0, 5}, {1, 3}))
      .Run();
  OpTest("ScatterND", 16)
      .Attr("reduction", std::string("add"))
      .Input("data", T_<bool>({false, true}, {2}))
      .Input("indices", T_<int64_t>({0, 0}, {2, 1}))
      .Input("updates", T_<bool>({true, true}, {2}))
      .Output("y", T_<bool>({true, true}, {2}))
      .Run();
}

TEST(GatherScatterTest, GatherEmptyIndices) {
  OpTest("Gather", 13)
      .Input("data", T_<float>({1, 2, 3}, {3}))
      .Input("indices", T_<int64_t>({}, {0}))
      .Output("y", T_<float>({}, {0}))
      .Run();
}

TEST(GatherScatterTest, GatherElementsShapeMismatchFails) {
  OpTest("GatherElements", 13)
      .Input("data", T_<float>({1, 2, 3, 4}, {2, 2}))
      .Input("indices", T_<int64_t>({0, 0, 0}, {1, 3}))
      .Output("y", T_<float>({0, 0, 0}, {1, 3}))
      .ExpectFailure("exceeds data shape");
}

TEST(GatherScatterTest, NonZeroStringsAndScalar) {
  OpTest("NonZero", 13)
      .Input("x", T_<std::string>({"", "a", "b"}, {3}))
      .Output("y", T_<int64_t>({1, 2}, {1, 2}))
      .Run();
}

}  // namespace
}  // namespace tessera::test
