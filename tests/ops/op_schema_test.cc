#include "tessera/ops/op_schema.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/ops/kernel_table.h"

namespace tessera {
namespace {

using namespace op_trait;

// Adding a kernel without saying what its op is (its output-type rule and
// traits) fails here, for every provider built into this binary.
TEST(OpSchema, EveryKernelRowOfEveryProviderHasASchemaForItsWholeRange) {
  std::vector<std::string> missing;
  for (const std::string& name : AvailableProviders()) {
    ProviderList providers;
    try {
      providers = MakeProviders({name});
    } catch (const Error& e) {
      continue;  // a device provider without a device here
    }
    for (const auto& p : providers) {
      for (const KernelRow& row : p->kernels().rows())
        for (int64_t v = row.first_opset; v <= row.last_opset; ++v)
          if (!FindOpSchema(row.domain, row.op_type, v)) {
            missing.push_back(p->name() + ": " + row.domain + ":" + row.op_type + " opset " + std::to_string(v));
            break;
          }
    }
  }
  std::string list;
  for (const auto& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << "kernel rows without an op schema (add one to an ops/infer_<family>.cc table):"
                               << list;
}

TEST(OpSchema, EntriesAreOrderedAndDoNotOverlap) {
  const std::vector<OpSchema>& all = AllOpSchemas();
  ASSERT_GT(all.size(), 250u);
  for (size_t i = 1; i < all.size(); ++i) {
    const OpSchema& a = all[i - 1];
    const OpSchema& b = all[i];
    if (a.domain == b.domain && a.op_type == b.op_type) {
      EXPECT_LT(a.last_opset, b.first_opset) << b.op_type;
    }
  }
  for (const OpSchema& s : all) EXPECT_EQ(FindOpSchema(s.domain, s.op_type, s.first_opset), &s) << s.op_type;
}

TEST(OpSchema, FindsByDomainAndOpset) {
  const OpSchema* relu = FindOpSchema(kOnnxDomain, "Relu", 14);
  ASSERT_NE(relu, nullptr);
  EXPECT_NE(relu->infer, nullptr);
  EXPECT_EQ(FindOpSchema(kOnnxDomain, "Relu", kMaxOnnxOpset + 1), nullptr) << "a version Tessera does not know";
  EXPECT_EQ(FindOpSchema(kOnnxDomain, "Relu", -1), relu) << "unknown opset: the newest entry";
  EXPECT_EQ(FindOpSchema(kOnnxDomain, "NoSuchOp", 14), nullptr);
  EXPECT_EQ(FindOpSchema(kMicrosoftDomain, "Relu", 1), nullptr) << "domains are separate";
  ASSERT_NE(FindOpSchema(kMicrosoftDomain, "MatMulNBits", 1), nullptr);
  EXPECT_EQ(FindOpSchema(kOnnxDomain, "If", 16)->infer, nullptr) << "typed by its kernel";
}

TEST(OpSchema, TraitsAreWhatThePassesRelyOn) {
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Dropout", kNondeterministic));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "RandomUniformLike", kNondeterministic));
  EXPECT_FALSE(OpHasTrait(kOnnxDomain, "Add", kNondeterministic));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Expand", kMayGrow));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Expand", kDataMovement));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Range", kMayGrow));
  EXPECT_FALSE(OpHasTrait(kMicrosoftDomain, "Range", kMayGrow)) << "the contrib Range is not folded as growing";
  EXPECT_FALSE(OpHasTrait(kOnnxDomain, "Relu", kDataMovement));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Relu", kShapePreserving));
  EXPECT_TRUE(OpHasTrait(kOnnxDomain, "Reshape", kDataMovement));
  EXPECT_FALSE(OpHasTrait(kOnnxDomain, "NoSuchOp", kDataMovement));
}

// The memory planner takes in-place permission from the kernel row alone.
TEST(OpSchema, InPlacePermissionIsTheKernelRowsNotTheOps) {
  ProviderList cpu = MakeProviders({"cpu"});
  std::string why;
  const KernelTable& table = cpu.front()->kernels();
  EXPECT_EQ(table.Find(kOnnxDomain, "Add", 13, &why)->in_place_inputs, 0b11u);
  EXPECT_EQ(table.Find(kOnnxDomain, "Add", 6, &why)->in_place_inputs, 0u) << "legacy broadcast makes a temporary";
  EXPECT_EQ(table.Find(kOnnxDomain, "Relu", 14, &why)->in_place_inputs, 0b1u);
  EXPECT_EQ(table.Find(kOnnxDomain, "Softmax", 13, &why)->in_place_inputs, 0u);
  for (const auto& p : MakeProviders(DefaultProviders())) {
    if (p->IsHostFallback()) continue;
    for (const KernelRow& row : p->kernels().rows()) EXPECT_EQ(row.in_place_inputs, 0u) << p->name() << row.op_type;
  }
}

}  // namespace
}  // namespace tessera
