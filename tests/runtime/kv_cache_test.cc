// KvCacheSlots (runtime/kv_cache.h) and the shared-buffer cache it allows:
// GroupQueryAttention bound to write its present into its past's memory
// gives, step after step, what a cache that grows by copies gives.
#include "tessera/runtime/kv_cache.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/ops/bound_outputs.h"

namespace tessera {
namespace {

using test::IntAttr;
using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

constexpr int64_t kHeads = 2, kKvHeads = 1, kHead = 8;

// One GroupQueryAttention over past_key_values.0.*; with `concat_value`,
// the value cache is a Concat instead (a cache that must grow).
std::unique_ptr<Session> Decoder(bool concat_value) {
  Node gqa = MakeNode("attn", "GroupQueryAttention",
                      {"q", "k", "v", "past_key_values.0.key", "past_key_values.0.value", "seqlens_k", "total"},
                      {"out", "present.0.key", concat_value ? "gqa_value" : "present.0.value"});
  gqa.domain = kMicrosoftDomain;
  gqa.attributes = {IntAttr("num_heads", kHeads), IntAttr("kv_num_heads", kKvHeads)};
  std::vector<Node> nodes = {gqa};
  if (concat_value) {
    Node cat = MakeNode("cat", "Concat", {"past_key_values.0.value", "v4"}, {"present.0.value"});
    cat.attributes = {IntAttr("axis", 2)};
    nodes.push_back(cat);
  }
  std::vector<ValueInfo> inputs = {TensorInfo("q", DataType::kFloat, {1, -1, kHeads * kHead}),
                                   TensorInfo("k", DataType::kFloat, {1, -1, kKvHeads * kHead}),
                                   TensorInfo("v", DataType::kFloat, {1, -1, kKvHeads * kHead}),
                                   TensorInfo("past_key_values.0.key", DataType::kFloat, {1, kKvHeads, -1, kHead}),
                                   TensorInfo("past_key_values.0.value", DataType::kFloat, {1, kKvHeads, -1, kHead}),
                                   TensorInfo("seqlens_k", DataType::kInt32, {1}),
                                   TensorInfo("total", DataType::kInt32, {})};
  if (concat_value) inputs.push_back(TensorInfo("v4", DataType::kFloat, {1, kKvHeads, -1, kHead}));
  Model m = MakeModel(nodes, inputs,
                      {TensorInfo("out", DataType::kFloat, {1, -1, kHeads * kHead}),
                       TensorInfo("present.0.key", DataType::kFloat, {1, kKvHeads, -1, kHead}),
                       TensorInfo("present.0.value", DataType::kFloat, {1, kKvHeads, -1, kHead})});
  m.opset_imports.push_back({kMicrosoftDomain, 1});
  return std::make_unique<Session>(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
}

Tensor Ramp(Shape shape, float phase) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::sin(phase + 0.7f * static_cast<float>(i));
  return t;
}

TEST(KvCache, SlotsShareABufferOnlyWhereGroupQueryAttentionWritesThePresent) {
  const std::vector<KvCacheSlot> gqa = KvCacheSlots(*Decoder(false));
  ASSERT_EQ(gqa.size(), 2u);
  EXPECT_EQ(gqa[0].present, "present.0.key");
  EXPECT_TRUE(gqa[0].shares_buffer && gqa[1].shares_buffer);
  const std::vector<KvCacheSlot> mixed = KvCacheSlots(*Decoder(true));
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_TRUE(mixed[0].shares_buffer);
  EXPECT_FALSE(mixed[1].shares_buffer);  // Concat appends: its cache grows
}

TEST(KvCache, SharedBufferStepsMatchAGrowingCache) {
  auto s = Decoder(false);
  const int64_t prompt = 3, steps = 4, capacity = prompt + steps;
  Tensor shared_k(DataType::kFloat, {1, kKvHeads, capacity, kHead}), shared_v(shared_k.dtype(), shared_k.shape());
  std::memset(shared_k.raw_data(), 0, shared_k.nbytes());
  std::memset(shared_v.raw_data(), 0, shared_v.nbytes());
  Value grow_k(Tensor(DataType::kFloat, {1, kKvHeads, 0, kHead})), grow_v(grow_k);
  BoundOutputMap bound = {{"present.0.key", shared_k}, {"present.0.value", shared_v}};
  int64_t total = 0;
  for (int64_t step = 0; step < steps; ++step) {
    const int64_t len = step == 0 ? prompt : 1;
    total += len;
    const float phase = static_cast<float>(step);
    auto feeds = [&](Value k_cache, Value v_cache) {
      return Feeds{{"q", Ramp({1, len, kHeads * kHead}, phase)},
                   {"k", Ramp({1, len, kKvHeads * kHead}, phase + 1)},
                   {"v", Ramp({1, len, kKvHeads * kHead}, phase + 2)},
                   {"past_key_values.0.key", std::move(k_cache)},
                   {"past_key_values.0.value", std::move(v_cache)},
                   {"seqlens_k", Tensor::FromVector<int32_t>({static_cast<int32_t>(total - 1)}, {1})},
                   {"total", Tensor::Scalar<int32_t>(static_cast<int32_t>(total))}};
    };
    std::vector<Value> grown = s->Run(feeds(std::move(grow_k), std::move(grow_v)));
    std::vector<Value> in_place;
    {
      ScopedBoundOutputs scope(&bound);
      in_place = s->Run(feeds(Value(shared_k), Value(shared_v)));
    }
    // The presents are the shared buffers themselves, at their capacity.
    ASSERT_EQ(in_place[1].tensor().raw_data(), shared_k.raw_data());
    ASSERT_EQ(in_place[2].tensor().raw_data(), shared_v.raw_data());
    const Tensor& out = in_place[0].tensor();
    for (int64_t i = 0; i < out.numel(); ++i)
      ASSERT_FLOAT_EQ(out.data<float>()[i], grown[0].tensor().data<float>()[i]) << "step " << step << ", value " << i;
    // The grown cache's rows are the shared buffer's first `total` rows.
    for (int o : {1, 2}) {
      const Tensor& g = grown[static_cast<size_t>(o)].tensor();
      ASSERT_EQ(g.dim(2), total);
      const float* sh = (o == 1 ? shared_k : shared_v).data<float>();
      for (int64_t i = 0; i < total * kHead; ++i) ASSERT_EQ(g.data<float>()[i], sh[i]) << "step " << step;
    }
    grow_k = std::move(grown[1]);
    grow_v = std::move(grown[2]);
  }
}

}  // namespace
}  // namespace tessera
