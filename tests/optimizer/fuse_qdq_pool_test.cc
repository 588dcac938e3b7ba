// QdqToQLinearPool: DQ -> GlobalAveragePool / AveragePool -> Q becomes
// QLinearGlobalAveragePool / QLinearAveragePool, within one step of the
// QDQ model; dilations keep it float.
#include <gtest/gtest.h>

#include "optimizer/qdq_test_util.h"

namespace tessera {
namespace {

using namespace test;

const DataType U8 = DataType::kUInt8;

Model QdqPool(const std::string& op, std::vector<Attribute> attrs, Shape out) {
  Model m = MakeModel({}, {TensorInfo("xq", U8, {2, 3, 7, 7})}, {TensorInfo("yq", U8, std::vector<int64_t>(out.begin(), out.end()))}, 19);
  auto& n = m.graph->nodes;
  n.push_back(QdqNode(m, "DequantizeLinear", "xq", "x", 0.02f, U8, 128));
  n.push_back(WithAttrs(MakeNode("pool", op, {"x"}, {"y"}), std::move(attrs)));
  n.push_back(QdqNode(m, "QuantizeLinear", "y", "yq", 0.013f, U8, 120));
  return m;
}

TEST(QdqToQLinearPool, AveragePoolsFuse) {
  const Feeds feeds = {{"xq", QBytes(U8, {2, 3, 7, 7}, 5)}};
  int changes = 0;
  Model g = ApplyAndCompareQ(*MakeQdqToQLinearPool(), QdqPool("GlobalAveragePool", {}, {2, 3, 1, 1}), feeds, &changes);
  EXPECT_EQ(changes, 1);
  EXPECT_EQ(OpTypes(*g.graph), std::vector<std::string>{"QLinearGlobalAveragePool"});
  Model a = ApplyAndCompareQ(*MakeQdqToQLinearPool(), QdqPool("AveragePool",
                                    {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}),
                                     IntsAttr("pads", {1, 1, 1, 1}), IntAttr("count_include_pad", 1), IntAttr("ceil_mode", 1)},
                                    {2, 3, 4, 4}),
                            feeds, &changes);
  EXPECT_EQ(changes, 1);
  ASSERT_EQ(OpTypes(*a.graph), std::vector<std::string>{"QLinearAveragePool"});
  EXPECT_NE(a.graph->nodes[0].FindAttribute("count_include_pad"), nullptr);
}

TEST(QdqToQLinearPool, DilationsStayFloat) {
  const Model m = QdqPool("AveragePool", {IntsAttr("kernel_shape", {2, 2}), IntsAttr("dilations", {2, 2})}, {2, 3, 5, 5});
  int changes = 0;
  ApplyAndCompareQ(*MakeQdqToQLinearPool(), m, {{"xq", QBytes(U8, {2, 3, 7, 7}, 5)}}, &changes);
  EXPECT_EQ(changes, 0);
  EXPECT_NE(PassLog(*MakeQdqToQLinearPool(), m).find("stays float: it has dilations"), std::string::npos);
}

}  // namespace
}  // namespace tessera
