// KernelInfo::optional_attr_ints and KernelContext::optional_input: absent
// is told apart from present-but-empty.
#include <gtest/gtest.h>

#include <vector>

#include "support/model_builder.h"
#include "tessera/ops/kernel.h"

namespace tessera {
namespace {

TEST(KernelInfoTest, OptionalAttrIntsAbsentIsNullopt) {
  Node n;
  n.op_type = "Transpose";
  KernelInfo info(n, 13);
  EXPECT_FALSE(info.optional_attr_ints("perm").has_value());
}

TEST(KernelInfoTest, OptionalAttrIntsKeepsAnEmptyList) {
  Node n;
  n.op_type = "Transpose";
  n.attributes = {test::IntsAttr("perm", {}), test::IntsAttr("axes", {2, 0, 1})};
  KernelInfo info(n, 13);
  ASSERT_TRUE(info.optional_attr_ints("perm").has_value());
  EXPECT_TRUE(info.optional_attr_ints("perm")->empty());
  EXPECT_EQ(info.optional_attr_ints("axes"), (std::vector<int64_t>{2, 0, 1}));
}

TEST(KernelContextTest, OptionalInputIsNullWhenOmittedOrMissing) {
  Node n;
  n.op_type = "Clip";
  n.inputs = {"x", "", "max"};
  n.outputs = {"y"};
  Value x = Tensor::Scalar<float>(1.0f), max = Tensor::Scalar<float>(2.0f), none;
  std::vector<Value> outs(1);
  KernelContext ctx(n, {&x, &none, &max}, &outs, nullptr, nullptr);
  EXPECT_EQ(ctx.optional_input(0), &ctx.input(0));
  EXPECT_EQ(ctx.optional_input(1), nullptr);  // omitted: an empty value
  EXPECT_EQ(ctx.optional_input(2), &ctx.input(2));
  EXPECT_EQ(ctx.optional_input(3), nullptr);  // past the inputs given
}

}  // namespace
}  // namespace tessera
