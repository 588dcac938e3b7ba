// Unit tests of Det: pivoting (zero leading element), singular matrices,
// batches, empty batches, 0x0 and 1x1 matrices, double / float16 and
// non-square input errors.
#include <vector>

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

TEST(DetTest, NeedsPivotingAndSingular) {
  OpTest("Det", 22)
      .Input("x", T_<float>({0, 2, 1,  //
                             1, 0, 3,  //
                             4, 1, 0,  //
                             1, 2, 3,  //
                             2, 4, 6,  //
                             7, 8, 9},
                            {2, 3, 3}))
      .Output("y", T_<float>({25.0f, 0.0f}, {2}))
      .Run();
}

TEST(DetTest, DoubleBatchOfOneByOneAndEmpty) {
  OpTest("Det", 11)
      .Input("x", T_<double>({-3.5, 2.0}, {2, 1, 1, 1}))
      .Output("y", T_<double>({-3.5, 2.0}, {2, 1}))
      .Run();
  OpTest("Det", 22)
      .Input("x", T_<float>({}, {0, 2, 2}))
      .Output("y", T_<float>({}, {0}))
      .Run();
  OpTest("Det", 22)
      .Input("x", T_<float>({}, {0, 0}))
      .Output("y", T_<float>({1.0f}, {}))
      .Run();
}

TEST(DetTest, Float16) {
  std::vector<Float16> x;
  for (float f : {3.0f, 1.0f, 2.0f, 4.0f}) x.push_back(Float16{FloatToHalf(f)});
  OpTest("Det", 22)
      .Input("x", Tensor::FromVector<Float16>(x, {2, 2}))
      .Output("y", Tensor::FromVector<Float16>({Float16{FloatToHalf(10.0f)}}, {}))
      .Run();
}

TEST(DetTest, NonSquareFails) {
  OpTest("Det", 22)
      .Input("x", T_<float>({1, 2, 3, 4, 5, 6}, {2, 3}))
      .Output("y", T_<float>({0.0f}, {}))
      .ExpectFailure("square");
  OpTest("Det", 22)
      .Input("x", T_<float>({1, 2}, {2}))
      .Output("y", T_<float>({0.0f}, {}))
      .ExpectFailure("rank");
}

}  // namespace
}  // namespace tessera::test
