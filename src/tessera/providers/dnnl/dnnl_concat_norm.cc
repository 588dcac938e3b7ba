// The channels-last concat step (dnnl_concat_norm.h). oneDNN's concat writes
// the whole concatenation and its batch normalization reads and writes it
// again; this step reads each input once and writes once. DenseNet-121 at 1
// thread: the two passes cost 7.0 ms of 60 per run. With Winograd
// convolutions (blocked output) next to 1x1 ones (channels-last), it also
// saves the reorders that would bring every input to one layout first.
#include "tessera/providers/dnnl/dnnl_concat_norm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/simd_elementwise.h"

namespace tessera::dnnl_ep {

namespace {

// How the step reads one input: pixel rows of `channels` floats
// (channels-last, block == 0), or rows of `block` floats per channel block
// (block_stride floats from one block of an image to the next).
struct ConcatSource {
  int64_t channels = 0, block = 0, image_stride = 0, block_stride = 0;
};

std::optional<ConcatSource> SourceOf(const Desc& d) {
  const auto& m = d.data;
  const int64_t n = m.dims[0], ch = m.dims[1], h = m.dims[2], w = m.dims[3];
  if (IsChannelsLastDense(d)) return ConcatSource{ch, 0, h * w * ch, 0};
  const auto& b = m.format_desc.blocking;
  if (m.ndims != 4 || m.format_kind != dnnl_blocked || m.offset0 != 0 || b.inner_nblks != 1 || b.inner_idxs[0] != 1)
    return std::nullopt;
  const int64_t block = b.inner_blks[0];
  const int64_t blocks = (ch + block - 1) / block;
  if ((block != 8 && block != 16) || m.padded_dims[1] != blocks * block || m.padded_dims[0] != n ||
      m.padded_dims[2] != h || m.padded_dims[3] != w)
    return std::nullopt;
  // aBcd{block}b, dense: [n][blocks][h][w][block].
  if (b.strides[3] != block || b.strides[2] != w * block || b.strides[1] != h * w * block ||
      (n > 1 && b.strides[0] != blocks * h * w * block))
    return std::nullopt;
  return ConcatSource{ch, block, blocks * h * w * block, h * w * block};
}

void CopyRows(const float* x, int64_t x_stride, float* y, int64_t y_stride, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(y + r * y_stride, x + r * x_stride, static_cast<size_t>(n) * sizeof(float));
}

// The BatchNormalization reading the concat's output as y = x * s + t,
// s = scale / sqrt(var + epsilon), t = B - mean * s: [s..., t...]; null
// when `bn` is no inference BatchNormalization with constant parameters.
std::shared_ptr<std::vector<float>> ScaleShiftOf(Compiler& c, const Node& bn, const std::string& input, int64_t channels) {
  if (!IsOnnxOp(bn, "BatchNormalization") || bn.inputs.size() != 5 || bn.inputs[0] != input) return nullptr;
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (!bn.outputs[i].empty()) return nullptr;
  KernelInfo info(bn, c.OpsetOf(bn));
  if (c.OpsetOf(bn) < 9 || info.attr_int("training_mode", 0) != 0) return nullptr;
  const Tensor* p[4];  // scale, B, mean, var
  for (size_t i = 0; i < 4; ++i) {
    p[i] = c.ConstantOf(bn.inputs[i + 1]);
    if (p[i] == nullptr || p[i]->dtype() != DataType::kFloat || p[i]->numel() != channels) return nullptr;
  }
  const double eps = info.attr_float("epsilon", 1e-5f);
  auto params = std::make_shared<std::vector<float>>(static_cast<size_t>(2 * channels));
  for (int64_t k = 0; k < channels; ++k) {
    const double s = p[0]->data<float>()[k] / std::sqrt(static_cast<double>(p[3]->data<float>()[k]) + eps);
    (*params)[static_cast<size_t>(k)] = static_cast<float>(s);
    (*params)[static_cast<size_t>(channels + k)] = static_cast<float>(p[1]->data<float>()[k] - p[2]->data<float>()[k] * s);
  }
  return params;
}

}  // namespace

bool LowerConcatChannelsLast(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs) {
  const std::vector<int64_t> ys = c.ShapeOf(n.outputs[0]);
  if (axis != 1 || ys.size() != 4) return false;
  std::vector<ConcatSource> sources;
  int like = -1;  // a channels-last input, whose layout the result takes
  bool mixed = false;
  for (int v : srcs) {
    auto s = SourceOf(c.DescOf(v));
    if (!s) return false;
    if (s->block == 0 && like < 0) like = v;
    mixed |= s->block != 0;
    sources.push_back(*s);
  }
  if (like < 0) return false;
  const int64_t channels = ys[1];
  const Node* bn = c.SoleConsumer(n.outputs[0]);
  std::shared_ptr<std::vector<float>> params = bn ? ScaleShiftOf(c, *bn, n.outputs[0], channels) : nullptr;
  if (params == nullptr) bn = nullptr;
  if (bn == nullptr && !mixed) return false;  // oneDNN's concat does as well
  const Node* relu = bn ? c.SoleConsumer(bn->outputs[0]) : nullptr;
  if (relu != nullptr && !(IsOnnxOp(*relu, "Relu") && relu->inputs[0] == bn->outputs[0])) relu = nullptr;

  const int64_t images = ys[0], pixels = ys[2] * ys[3];
  const bool with_relu = relu != nullptr;
  std::string label = n.Label();
  if (bn != nullptr) {
    c.Absorb(*bn);
    label += " + " + bn->Label();
  }
  if (relu != nullptr) {
    c.Absorb(*relu);
    label += " + " + relu->Label();
  }
  std::vector<std::pair<int, int>> args;
  for (size_t i = 0; i < srcs.size(); ++i) args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcs[i]});
  const std::string& out_name = relu ? relu->outputs[0] : bn ? bn->outputs[0] : n.outputs[0];
  args.push_back({DNNL_ARG_DST, c.Define(out_name, DenseLike(c.DescOf(like), ToDims(ys)))});
  c.EmitHost(
      [params, sources, images, pixels, channels, with_relu](const std::unordered_map<int, dnnl::memory>& a) {
        std::vector<const float*> xs(sources.size());
        for (size_t i = 0; i < xs.size(); ++i)
          xs[i] = static_cast<const float*>(a.at(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const float* scale = params ? params->data() : nullptr;
        const float* shift = params ? scale + channels : nullptr;
        // rows x n floats, x_stride and y_stride apart, into y at channel `at`.
        auto put = [&](const float* x, int64_t x_stride, float* y_rows, int64_t rows, int64_t n, int64_t at) {
          if (scale != nullptr)
            cpu::ScaleShiftRowsF32(x, x_stride, scale + at, shift + at, y_rows, channels, rows, n, with_relu);
          else
            CopyRows(x, x_stride, y_rows, channels, rows, n);
        };
        constexpr int64_t kPixels = 256;
        const int64_t per_image = (pixels + kPixels - 1) / kPixels;
        const int64_t chunks = images * per_image;
        TESSERA_HOST_PARALLEL_FOR(chunks > 1)
        for (int64_t k = 0; k < chunks; ++k) {
          const int64_t image = k / per_image, first = (k % per_image) * kPixels;
          const int64_t rows = std::min(kPixels, pixels - first);
          float* y_rows = y + (image * pixels + first) * channels;
          int64_t at = 0;
          for (size_t i = 0; i < sources.size(); ++i) {
            const ConcatSource& s = sources[i];
            const float* x = xs[i] + image * s.image_stride;
            if (s.block == 0) {
              put(x + first * s.channels, s.channels, y_rows + at, rows, s.channels, at);
            } else {
              for (int64_t c0 = 0; c0 < s.channels; c0 += s.block)
                put(x + (c0 / s.block) * s.block_stride + first * s.block, s.block, y_rows + at + c0, rows,
                    std::min(s.block, s.channels - c0), at + c0);
            }
            at += s.channels;
          }
        }
      },
      std::move(args), label);
  return true;
}

}  // namespace tessera::dnnl_ep
