// The channel shuffle step (dnnl_channel_shuffle.h).
#include "tessera/providers/dnnl/dnnl_channel_shuffle.h"

#include <algorithm>
#include <limits>

#include "tessera/ops/kernel.h"
#include "tessera/providers/common/simd_elementwise.h"

namespace tessera::dnnl_ep {

namespace {

// Constant int64 values of input i of n, or nullopt.
std::optional<std::vector<int64_t>> Ints(const Compiler& c, const Node& n, size_t i) {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
  const Tensor* t = c.ConstantOf(n.inputs[i]);
  if (t == nullptr) return std::nullopt;
  return t->ToInt64Vector();
}

// The channel range [begin, end) a Slice of a [N, C, H, W] value keeps, or
// nullopt when it slices anything else (another axis, a step).
std::optional<std::pair<int64_t, int64_t>> ChannelRange(const Compiler& c, const Node& s, int64_t channels) {
  if (!IsOnnxOp(s, "Slice") || c.OpsetOf(s) < 10 || s.inputs.size() < 3) return std::nullopt;
  auto starts = Ints(c, s, 1), ends = Ints(c, s, 2);
  auto axes = Ints(c, s, 3);  // (absent: axis 0)
  if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1) return std::nullopt;
  if ((*axes)[0] != 1 && (*axes)[0] != -3) return std::nullopt;
  if (s.inputs.size() > 4 && !s.inputs[4].empty()) {
    auto steps = Ints(c, s, 4);
    if (!steps || steps->size() != 1 || (*steps)[0] != 1) return std::nullopt;
  }
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + channels : v, 0, channels); };
  return std::make_pair(clamp((*starts)[0]), clamp((*ends)[0]));
}

}  // namespace

bool LowerChannelShuffle(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs) {
  if (axis != 1 || srcs.size() != 2) return false;
  for (int v : srcs)
    if (!IsChannelsLastDense(c.DescOf(v))) return false;
  const std::vector<int64_t> ys = c.ShapeOf(n.outputs[0]);
  const int64_t channels = ys[1], half = channels / 2;
  if (channels % 2 != 0 || c.DescOf(srcs[0]).dims()[1] != half) return false;
  const Node* split = c.SoleConsumer(n.outputs[0]);
  if (split == nullptr || !IsOnnxOp(*split, "Reshape") ||
      c.ShapeOf(split->outputs[0]) != std::vector<int64_t>{ys[0], 2, half, ys[2], ys[3]})
    return false;
  const Node* swap = c.SoleConsumer(split->outputs[0]);
  if (swap == nullptr || !IsOnnxOp(*swap, "Transpose") ||
      KernelInfo(*swap, c.OpsetOf(*swap)).attr_ints("perm", {}) != std::vector<int64_t>{0, 2, 1, 3, 4})
    return false;
  const Node* merge = c.SoleConsumer(swap->outputs[0]);
  if (merge == nullptr || !IsOnnxOp(*merge, "Reshape") || c.ShapeOf(merge->outputs[0]) != ys) return false;
  const std::string& shuffled = merge->outputs[0];

  // Split into halves by two Slices when that is all that reads the result.
  const Node* halves[2] = {nullptr, nullptr};
  std::vector<const Node*> readers = c.Consumers(shuffled);
  if (readers.size() == 2) {
    for (const Node* r : readers) {
      auto range = ChannelRange(c, *r, channels);
      if (range == std::make_pair(int64_t{0}, half)) halves[0] = r;
      if (range == std::make_pair(half, channels)) halves[1] = r;
    }
  }
  const bool split_out = halves[0] != nullptr && halves[1] != nullptr;
  for (const Node* absorbed : {split, swap, merge}) c.Absorb(*absorbed);
  std::vector<std::pair<int, int>> args = {{DNNL_ARG_MULTIPLE_SRC, srcs[0]}, {DNNL_ARG_MULTIPLE_SRC + 1, srcs[1]}};
  const Desc like = c.DescOf(srcs[0]);
  if (split_out) {
    c.Absorb(*halves[0]);
    c.Absorb(*halves[1]);
    const Dims dims = {ys[0], half, ys[2], ys[3]};
    args.push_back({DNNL_ARG_DST, c.Define(halves[0]->outputs[0], DenseLike(like, dims))});
    args.push_back({DNNL_ARG_DST + 1, c.Define(halves[1]->outputs[0], DenseLike(like, dims))});
  } else {
    args.push_back({DNNL_ARG_DST, c.Define(shuffled, DenseLike(like, ToDims(ys)))});
  }
  const int64_t pixels = ys[0] * ys[2] * ys[3];
  c.EmitHost(
      [half, pixels, split_out](const std::unordered_map<int, dnnl::memory>& a) {
        const float* x0 = static_cast<const float*>(a.at(DNNL_ARG_MULTIPLE_SRC).get_data_handle());
        const float* x1 = static_cast<const float*>(a.at(DNNL_ARG_MULTIPLE_SRC + 1).get_data_handle());
        float* first = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        float* second = split_out ? static_cast<float*>(a.at(DNNL_ARG_DST + 1).get_data_handle()) : nullptr;
        const int64_t out_row = split_out ? half : 2 * half;
        constexpr int64_t kPixels = 128;
        const int64_t chunks = (pixels + kPixels - 1) / kPixels;
        TESSERA_HOST_PARALLEL_FOR(chunks > 1)
        for (int64_t k = 0; k < chunks; ++k) {
          const int64_t p0 = k * kPixels, rows = std::min(kPixels, pixels - p0);
          cpu::ShuffleChannelsF32(x0 + p0 * half, x1 + p0 * half, half, rows, first + p0 * out_row,
                                  second != nullptr ? second + p0 * half : nullptr);
        }
      },
      std::move(args), n.Label() + " + channel shuffle" + (split_out ? " + split" : ""));
  return true;
}

}  // namespace tessera::dnnl_ep
