// The concat plus BatchNormalization pass (dnnl_concat_norm.h). oneDNN's
// concat writes the whole concatenation and its batch normalization reads
// and writes it again; this step reads each input once and writes once.
// DenseNet-121 at 1 thread: the two passes cost 7.0 ms of 60 per run.
#include "tessera/providers/dnnl/dnnl_concat_norm.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/simd_elementwise.h"

namespace tessera::dnnl_ep {

namespace {

}  // namespace

bool LowerConcatScaleShift(Compiler& c, const Node& n, int64_t axis, const std::vector<int>& srcs) {
  if (axis != 1) return false;
  for (int v : srcs)
    if (!IsChannelsLastDense(c.DescOf(v))) return false;
  const Node* bn = c.SoleConsumer(n.outputs[0]);
  if (bn == nullptr || !IsOnnxOp(*bn, "BatchNormalization") || bn->inputs.size() != 5 || bn->inputs[0] != n.outputs[0])
    return false;
  for (size_t i = 1; i < bn->outputs.size(); ++i)
    if (!bn->outputs[i].empty()) return false;
  KernelInfo info(*bn, c.OpsetOf(*bn));
  if (c.OpsetOf(*bn) < 9 || info.attr_int("training_mode", 0) != 0) return false;
  const std::vector<int64_t> ys = c.ShapeOf(n.outputs[0]);
  const int64_t channels = ys[1];
  const Tensor* p[4];  // scale, B, mean, var
  for (size_t i = 0; i < 4; ++i) {
    p[i] = c.ConstantOf(bn->inputs[i + 1]);
    if (p[i] == nullptr || p[i]->dtype() != DataType::kFloat || p[i]->numel() != channels) return false;
  }
  const Node* relu = c.SoleConsumer(bn->outputs[0]);
  if (relu != nullptr && !(IsOnnxOp(*relu, "Relu") && relu->inputs[0] == bn->outputs[0])) relu = nullptr;

  // y = x * s + t with s = scale / sqrt(var + epsilon), t = B - mean * s.
  const double eps = info.attr_float("epsilon", 1e-5f);
  auto params = std::make_shared<std::vector<float>>(static_cast<size_t>(2 * channels));
  for (int64_t k = 0; k < channels; ++k) {
    const double s = p[0]->data<float>()[k] / std::sqrt(static_cast<double>(p[3]->data<float>()[k]) + eps);
    (*params)[static_cast<size_t>(k)] = static_cast<float>(s);
    (*params)[static_cast<size_t>(channels + k)] = static_cast<float>(p[1]->data<float>()[k] - p[2]->data<float>()[k] * s);
  }
  std::vector<int64_t> widths;
  for (int v : srcs) widths.push_back(c.DescOf(v).dims()[1]);
  const int64_t pixels = ys[0] * ys[2] * ys[3];
  const bool with_relu = relu != nullptr;

  c.Absorb(*bn);
  if (relu != nullptr) c.Absorb(*relu);
  std::vector<std::pair<int, int>> args;
  for (size_t i = 0; i < srcs.size(); ++i) args.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcs[i]});
  const std::string& out_name = relu != nullptr ? relu->outputs[0] : bn->outputs[0];
  args.push_back({DNNL_ARG_DST, c.Define(out_name, DenseLike(c.DescOf(srcs[0]), ToDims(ys)))});
  c.EmitHost(
      [params, widths, pixels, channels, with_relu](const std::unordered_map<int, dnnl::memory>& a) {
        std::vector<const float*> xs(widths.size());
        for (size_t i = 0; i < xs.size(); ++i)
          xs[i] = static_cast<const float*>(a.at(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const float* scale = params->data();
        const float* shift = scale + channels;
        constexpr int64_t kPixels = 256;
        const int64_t chunks = (pixels + kPixels - 1) / kPixels;
        TESSERA_HOST_PARALLEL_FOR(chunks > 1)
        for (int64_t k = 0; k < chunks; ++k) {
          const int64_t first = k * kPixels, rows = std::min(kPixels, pixels - first);
          int64_t offset = 0;
          for (size_t i = 0; i < xs.size(); ++i) {
            cpu::ScaleShiftRowsF32(xs[i] + first * widths[i], widths[i], scale + offset, shift + offset,
                                   y + first * channels + offset, channels, rows, widths[i], with_relu);
            offset += widths[i];
          }
        }
      },
      std::move(args), n.Label() + " + " + bn->Label() + (relu != nullptr ? " + " + relu->Label() : ""));
  return true;
}

}  // namespace tessera::dnnl_ep
