// The host concat step (dnnl_concat_norm.h). oneDNN's concat writes
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
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/dnnl/dnnl_channel_layout.h"

namespace tessera::dnnl_ep {

namespace {

void CopyRows(const float* x, int64_t x_stride, float* y, int64_t y_stride, int64_t rows, int64_t n) {
  // A whole channel block of both (8 floats a pixel below AVX-512) is one
  // run of bytes: a memcpy per pixel took squeezenet1_1's concats 0.62 ms.
  if (x_stride == n && y_stride == n) {
    std::memcpy(y, x, static_cast<size_t>(rows * n) * sizeof(float));
    return;
  }
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

bool LowerChannelConcat(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs) {
  const std::vector<int64_t> ys = c.ShapeOf(n.outputs[0]);
  if (axis != 1 || ys.size() != 4) return false;
  std::vector<ChannelLayout> sources;
  int like = -1;  // a channels-last input, whose layout the result takes
  bool any_blocked = false;
  for (int v : srcs) {
    auto s = ChannelLayoutOf(c.DescOf(v));
    if (!s) return false;
    if (s->block == 0 && like < 0) like = v;
    any_blocked |= s->block != 0;
    sources.push_back(*s);
  }
  const int64_t channels = ys[1], images = ys[0], pixels = ys[2] * ys[3];
  // With no channels-last input the result keeps the inputs' channel block,
  // which needs one block size and every input but the last to fill whole
  // blocks (so each starts on a block).
  const int64_t out_block = like >= 0 ? 0 : sources[0].block;
  if (out_block != 0) {
    for (size_t i = 0; i < sources.size(); ++i)
      if (sources[i].block != out_block || (i + 1 < sources.size() && sources[i].channels % out_block != 0)) return false;
  }
  const Node* bn = c.SoleConsumer(n.outputs[0]);
  std::shared_ptr<std::vector<float>> params = bn ? ScaleShiftOf(c, *bn, n.outputs[0], channels) : nullptr;
  if (params == nullptr) bn = nullptr;
  // oneDNN's own concat does as well for channels-last inputs alone.
  if (bn == nullptr && !any_blocked) return false;
  const Node* relu = bn ? c.SoleConsumer(bn->outputs[0]) : nullptr;
  if (relu != nullptr && !(IsOnnxOp(*relu, "Relu") && relu->inputs[0] == bn->outputs[0])) relu = nullptr;

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
  const Desc out_desc =
      out_block == 0 ? DenseLike(c.DescOf(like), ToDims(ys)) : ChannelBlockedDesc(ToDims(ys), out_block);
  args.push_back({DNNL_ARG_DST, c.Define(out_name, out_desc)});
  const int64_t out_blocks = out_block == 0 ? 1 : (channels + out_block - 1) / out_block;
  const ChannelLayout out{channels, out_block, out_block == 0 ? pixels * channels : out_blocks * pixels * out_block,
                         pixels * out_block};
  c.EmitHost(
      [params, sources, out, images, pixels, with_relu](const std::unordered_map<int, dnnl::memory>& a) {
        std::vector<const float*> xs(sources.size());
        for (size_t i = 0; i < xs.size(); ++i)
          xs[i] = static_cast<const float*>(a.at(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const float* scale = params ? params->data() : nullptr;
        const float* shift = params ? scale + out.channels : nullptr;
        constexpr int64_t kPixels = 256;
        const int64_t per_image = (pixels + kPixels - 1) / kPixels;
        const int64_t chunks = images * per_image;
        TESSERA_HOST_PARALLEL_FOR(chunks > 1)
        for (int64_t k = 0; k < chunks; ++k) {
          const int64_t image = k / per_image, first = (k % per_image) * kPixels;
          const int64_t rows = std::min(kPixels, pixels - first);
          int64_t at = 0;  // the input's first channel in the result
          for (size_t i = 0; i < sources.size(); ++i) {
            const ChannelLayout& s = sources[i];
            // Pieces of channels that lie in one block of the input and one
            // of the result (the result's blocks start on the input's).
            const int64_t piece = s.block != 0 ? s.block : out.block != 0 ? out.block : s.channels;
            for (int64_t c0 = 0; c0 < s.channels; c0 += piece) {
              const int64_t width = std::min(piece, s.channels - c0);
              const float* x = s.At(xs[i], image, first, c0);
              float* y_rows = out.At(y, image, first, at + c0);
              if (scale != nullptr)
                cpu::ScaleShiftRowsF32(x, s.PixelStride(), scale + at + c0, shift + at + c0, y_rows, out.PixelStride(), rows,
                                       width, with_relu);
              else
                CopyRows(x, s.PixelStride(), y_rows, out.PixelStride(), rows, width);
            }
            at += s.channels;
          }
          // A blocked result's padding lanes past the last channel stay zero.
          if (out.block != 0 && out.channels % out.block != 0) {
            const int64_t used = out.channels % out.block;
            float* tail = out.At(y, image, first, out.channels - used) + used;
            for (int64_t r = 0; r < rows; ++r)
              std::fill(tail + r * out.block, tail + r * out.block + (out.block - used), 0.0f);
          }
        }
      },
      std::move(args), label);
  return true;
}

}  // namespace tessera::dnnl_ep
