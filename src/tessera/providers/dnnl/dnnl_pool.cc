// MaxPool, AveragePool and their global forms as oneDNN pooling, reading
// the producer's layout as is (no reorder between a Conv and its pool).
// 2-D max pooling over a channel-blocked input is a host step instead.
#include <algorithm>
#include <limits>

#include "tessera/providers/common/simd_pool.h"
#include "tessera/providers/dnnl/dnnl_channel_layout.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"
#include "tessera/providers/dnnl/dnnl_geometry.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

namespace {

bool IsGlobal(const Node& n) { return n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool"; }
bool IsMax(const Node& n) { return n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool"; }

std::vector<int64_t> KernelOf(const KernelInfo& info, const std::vector<int64_t>& x) {
  if (IsGlobal(info.node())) return std::vector<int64_t>(x.begin() + 2, x.end());
  return info.attr_ints("kernel_shape");
}

std::string PoolWindow(const KernelInfo& info, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                       Window* w) {
  if (x.size() < 3 || x.size() > 5) return "oneDNN pools are 1-3 D";
  if (!IsGlobal(info.node()) && !info.has_attr("kernel_shape")) return "kernel_shape missing";
  std::string why = WindowOf(info, x, y, KernelOf(info, x), w);
  if (!why.empty()) return why;
  if (!IsMax(info.node()) && info.attr_int("count_include_pad", 0) != 0 && w->extended_right)
    return "ceil_mode with count_include_pad";
  if (!IsMax(info.node())) {
    for (auto d : w->dilations)
      if (d != 0) return "dilated average pooling";
  }
  return "";
}

std::string CheckPool(const NodeQuery& q) {
  if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return "MaxPool indices output";
  if (q.node.op_type == "MaxPool" && KernelInfo(q.node, q.opset).attr_int("storage_order", 0) != 0)
    return "storage_order";
  Window w;
  return PoolWindow(KernelInfo(q.node, q.opset), *q.input_type(0)->StaticShape(), *q.output_type(0)->StaticShape(), &w);
}

// The valid taps [first, end) of a window starting at `start` with `taps`
// taps `step` apart over an extent of `size`.
std::pair<int64_t, int64_t> ValidTaps(int64_t start, int64_t taps, int64_t step, int64_t size) {
  int64_t first = 0, end = taps;
  while (first < end && start + first * step < 0) ++first;
  while (end > first && start + (end - 1) * step >= size) --end;
  return {first, end};
}

// oneDNN 2.6's AVX2 pooling over channel-blocked (aBcd8b) data is 3-4x
// slower than its AVX-512 pooling over channels-last (SqueezeNet 1.1's
// 128x55x55 MaxPool: 0.36 against 0.10 ms at 1 thread); this step runs each
// output row with vector max over whole pixels' blocks (0.04 ms there).
void LowerMaxPoolOnHost(Compiler& c, const Node& n, int src, const ChannelLayout& in, const Window& w) {
  const std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]), ys = c.ShapeOf(n.outputs[0]);
  const int64_t images = ys[0], channels = ys[1], H = xs[2], W = xs[3], OH = ys[2], OW = ys[3];
  const int64_t kh = w.kernel[0], kw = w.kernel[1], sh = w.strides[0], sw = w.strides[1];
  const int64_t dh = w.dilations[0] + 1, dw = w.dilations[1] + 1, ph = w.pad_l[0], pw = w.pad_l[1];
  const Desc out_desc = in.block == 0 ? DenseLike(c.DescOf(src), ToDims(ys)) : ChannelBlockedDesc(ToDims(ys), in.block);
  const ChannelLayout out = *ChannelLayoutOf(out_desc);
  const int dst = c.Define(n.outputs[0], out_desc);
  // Planes: one per image and channel block (or per image, channels-last).
  const int64_t blocks = in.block == 0 ? 1 : (channels + in.block - 1) / in.block;
  const int64_t lanes = in.PixelStride();
  c.EmitHost(
      [=](const std::unordered_map<int, dnnl::memory>& a) {
        const float* x = static_cast<const float*>(a.at(DNNL_ARG_SRC).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const int64_t rows = images * blocks * OH;
        TESSERA_HOST_PARALLEL_FOR(rows > 1)
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t image = r / (blocks * OH), block = (r / OH) % blocks, oh = r % OH;
          const float* xp = in.At(x, image, 0, block * in.block);
          float* yr = out.At(y, image, oh * OW, block * out.block);
          const auto [i0, i1] = ValidTaps(oh * sh - ph, kh, dh, H);
          const float* xr = xp + ((oh * sh - ph) + i0 * dh) * W * lanes;
          for (int64_t ow = 0; ow < OW;) {
            const int64_t start = ow * sw - pw;
            const auto [j0, j1] = ValidTaps(start, kw, dw, W);
            if (i0 == i1 || j0 == j1) {  // a window wholly in the padding
              std::fill(yr + ow * lanes, yr + (ow + 1) * lanes, std::numeric_limits<float>::lowest());
              ++ow;
              continue;
            }
            // Outputs from here whose windows are whole take one call.
            int64_t run = 1;
            if (j0 == 0 && j1 == kw)
              while (ow + run < OW && (ow + run) * sw - pw + (kw - 1) * dw < W) ++run;
            cpu::MaxWindowsF32(xr + (start + j0 * dw) * lanes, dh * W * lanes, dw * lanes, sw * lanes, i1 - i0,
                               j1 - j0, lanes, run, yr + ow * lanes);
            ow += run;
          }
        }
      },
      {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
}

void LowerPool(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]), ys = c.ShapeOf(n.outputs[0]);
  Window w;
  std::string why = PoolWindow(info, xs, ys, &w);
  if (!why.empty()) c.Fail(n, why);
  dnnl::algorithm a = IsMax(n) ? dnnl::algorithm::pooling_max
                      : info.attr_int("count_include_pad", 0) ? dnnl::algorithm::pooling_avg_include_padding
                                                              : dnnl::algorithm::pooling_avg_exclude_padding;
  int src = c.Use(n.inputs[0]);
  if (IsMax(n) && !IsGlobal(n) && xs.size() == 4) {
    const auto layout = ChannelLayoutOf(c.DescOf(src));
    if (layout && layout->block != 0) return LowerMaxPoolOnHost(c, n, src, *layout, w);
  }
  PostOpChain chain = AbsorbPostOps(c, n.outputs[0], false);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, a, c.DescOf(src), AnyDesc(ToDims(ys)), w.strides,
                                   w.kernel, w.dilations, w.pad_l, w.pad_r);
  dnnl::pooling_v2_forward::primitive_desc pd(d, attr, c.engine());
  int dst = c.Define(chain.output, pd.dst_desc());
  c.Emit(pd, dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
}

}  // namespace

std::vector<DnnlRow> PoolRows() {
  std::vector<DnnlRow> rows;
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"})
    rows.push_back(Row("ai.onnx", op, 1, kMaxOnnxOpset, {}, CheckPool, LowerPool));
  return rows;
}

}  // namespace tessera::dnnl_ep
