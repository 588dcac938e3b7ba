// ExtendedKernelTable: each row the KernelTable finds maps back to the
// provider's own row, and rows of other tables map to nothing.
#include "tessera/providers/common/extended_kernel_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tessera {
namespace {

struct TaggedRow {
  KernelRow row;
  std::string tag;
};

TaggedRow Row(const char* op, int64_t first, int64_t last, const char* tag) {
  TaggedRow r;
  r.row.domain = "ai.onnx";
  r.row.op_type = op;
  r.row.first_opset = first;
  r.row.last_opset = last;
  r.tag = tag;
  return r;
}

TEST(ExtendedKernelTableTest, FindReturnsTheRowAndItsExtras) {
  ExtendedKernelTable<TaggedRow> t("test", {Row("Relu", 6, 13, "old relu"), Row("Relu", 14, 21, "new relu"),
                                            Row("Add", 7, 21, "add")});
  ASSERT_EQ(t.table().rows().size(), 3u);
  std::string why;
  const auto [row, extras] = t.Find("ai.onnx", "Relu", 14, &why);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row, &t.table().rows()[1]);  // the table's copy, which sessions hold
  ASSERT_NE(extras, nullptr);
  EXPECT_EQ(extras->tag, "new relu");
  EXPECT_EQ(t.ExtrasOf(*row), extras);
  EXPECT_EQ(t.ExtrasOf(t.table().rows()[2])->tag, "add");
}

TEST(ExtendedKernelTableTest, NoRowGivesNullsAndTheTablesReason) {
  ExtendedKernelTable<TaggedRow> t("test", {Row("Relu", 14, 21, "relu")});
  std::string why;
  const auto [row, extras] = t.Find("ai.onnx", "Relu", 6, &why);
  EXPECT_EQ(row, nullptr);
  EXPECT_EQ(extras, nullptr);
  EXPECT_NE(why.find("opset 6"), std::string::npos) << why;
  const auto missing = t.Find("ai.onnx", "Conv", 14, &why);
  EXPECT_EQ(missing.row, nullptr);
  EXPECT_EQ(why, "test has no kernel for ai.onnx:Conv");
}

TEST(ExtendedKernelTableTest, RowsOfAnotherTableHaveNoExtras) {
  ExtendedKernelTable<TaggedRow> t("test", {Row("Relu", 14, 21, "relu")});
  const KernelRow stranger = t.table().rows()[0];  // equal, but not the table's
  EXPECT_EQ(t.ExtrasOf(stranger), nullptr);
}

}  // namespace
}  // namespace tessera
