#include "tessera/ops/bound_outputs.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

std::unique_ptr<Session> AddRelu() {
  // c = a + b is a graph output and also feeds d = relu(c).
  Model m = MakeModel({MakeNode("add", "Add", {"a", "b"}, {"c"}), MakeNode("relu", "Relu", {"c"}, {"d"})},
                      {TensorInfo("a", DataType::kFloat, {2, 3}), TensorInfo("b", DataType::kFloat, {2, 3})},
                      {TensorInfo("c", DataType::kFloat, {2, 3}), TensorInfo("d", DataType::kFloat, {2, 3})});
  return std::make_unique<Session>(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
}

Feeds AddFeeds() {
  return {{"a", Tensor::FromVector<float>({1, -2, 3, -4, 5, -6}, {2, 3})},
          {"b", Tensor::FromVector<float>({1, 1, 1, 1, 1, 1}, {2, 3})}};
}

TEST(BoundOutputs, KernelsWriteIntoBoundAlignedMemory) {
  auto s = AddRelu();
  BoundOutputMap bound;
  bound["c"] = Tensor(DataType::kFloat, {2, 3});  // 64-byte aligned
  bound["d"] = Tensor(DataType::kFloat, {2, 3});
  std::vector<Value> out;
  {
    ScopedBoundOutputs scope(&bound);
    out = s->Run(AddFeeds());
  }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().raw_data(), bound["c"].raw_data());
  EXPECT_EQ(out[1].tensor().raw_data(), bound["d"].raw_data());
  const float* c = bound["c"].data<float>();
  const float* d = bound["d"].data<float>();
  std::vector<float> want_c = {2, -1, 4, -3, 6, -5};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(c[i], want_c[static_cast<size_t>(i)]);
    EXPECT_EQ(d[i], want_c[static_cast<size_t>(i)] > 0 ? want_c[static_cast<size_t>(i)] : 0.0f);
  }
  // Outside the scope the run allocates its own memory again.
  std::vector<Value> again = s->Run(AddFeeds());
  EXPECT_NE(again[0].tensor().raw_data(), bound["c"].raw_data());
}

TEST(BoundOutputs, MisfitsAreNotUsed) {
  auto s = AddRelu();
  // Another shape, another type, memory that is not 64-byte aligned.
  auto storage = std::make_shared<std::vector<float>>(32);
  BoundOutputMap bound;
  bound["c"] = Tensor(DataType::kFloat, {3, 2});
  bound["d"] = Tensor(DataType::kFloat, {2, 3},
                      TensorBuffer::Borrow(storage->data() + 1, 6 * sizeof(float), storage));
  // 4 bytes past a 16-byte aligned allocation: never 64-byte aligned.
  const float* unaligned = storage->data() + 1;
  std::vector<Value> out;
  {
    ScopedBoundOutputs scope(&bound);
    out = s->Run(AddFeeds());
  }
  EXPECT_NE(out[0].tensor().raw_data(), bound["c"].raw_data());
  EXPECT_NE(out[1].tensor().raw_data(), static_cast<const void*>(unaligned));
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 3}));
  EXPECT_EQ(ScopedBoundOutputs::Find("c", DataType::kFloat, {2, 3}), nullptr);
}

}  // namespace
}  // namespace tessera
