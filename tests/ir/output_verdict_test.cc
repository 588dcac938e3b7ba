// OutputVerdict, the per-output rule `tessera validate` and tessera.validate()
// share: counts over sets, structural failures counting every element, and
// a sequence's mismatches counted item by item.
#include <limits>

#include <gtest/gtest.h>

#include "tessera/ir/output_verdict.h"

namespace tessera {
namespace {

Value Floats(std::vector<float> v) {
  Shape shape = {static_cast<int64_t>(v.size())};
  return Tensor::FromVector<float>(v, shape);
}

TEST(OutputVerdict, SumsOverSetsAndKeepsTheFirstMessage) {
  OutputVerdict v;
  v.Add(Floats({1, 2, 3}), Floats({1, 2, 3}), 1e-3, 1e-5, "set_0");
  v.Add(Floats({1, 2, 9}), Floats({1, 2, 3}), 1e-3, 1e-5, "set_1");
  v.Add(Floats({0, 2, 3}), Floats({1, 2, 3}), 1e-3, 1e-5, "set_2");
  EXPECT_TRUE(v.checked);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.elements, 9);
  EXPECT_EQ(v.mismatched, 2);
  EXPECT_DOUBLE_EQ(v.max_abs_error, 6.0);
  EXPECT_DOUBLE_EQ(v.mismatch_fraction(), 2.0 / 9.0);
  EXPECT_EQ(v.message, "set_1: element 2 is 9, expected 3");
}

TEST(OutputVerdict, AShapeProblemCountsEveryElement) {
  OutputVerdict v;
  v.Add(Floats({1, 2}), Floats({1, 2, 3}), 1e-3, 1e-5, "");
  EXPECT_EQ(v.mismatched, 3);
  EXPECT_DOUBLE_EQ(v.mismatch_fraction(), 1.0);
  EXPECT_EQ(v.message.rfind("shape ", 0), 0u) << v.message;
}

TEST(OutputVerdict, ASequenceCountsItsItemsMismatches) {
  auto seq = [](std::vector<Value> items) {
    SequenceValue s;
    s.items = std::move(items);
    return Value::Sequence(std::move(s));
  };
  OutputVerdict v;
  v.Add(seq({Floats({1, 5}), Floats({1, 2})}), seq({Floats({1, 2}), Floats({1, 2, 3})}), 1e-3, 1e-5, "");
  EXPECT_EQ(v.elements, 5);
  EXPECT_EQ(v.mismatched, 1 + 3);  // one element off, then a whole item of the wrong shape
  EXPECT_EQ(v.message, "sequence item 0: element 1 is 5, expected 2");
}

TEST(OutputVerdict, NanMatchesNanAndInfinitiesMustBeEqual) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  OutputVerdict v;
  v.Add(Floats({nan, inf, -inf, 1}), Floats({nan, inf, inf, nan}), 1e-3, 1e-5, "");
  EXPECT_EQ(v.mismatched, 2);
  EXPECT_DOUBLE_EQ(v.max_abs_error, 0.0);
}

}  // namespace
}  // namespace tessera
