// Conv and ai.tessera:FusedConv as oneDNN convolutions: weights reordered
// once into the layout the chosen kernel wants, source and destination in
// whatever layout it picks (blocked on AVX2/AVX-512), and the activations,
// SiLU and residual Add that follow folded in as post-ops.
#include <algorithm>

#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"
#include "tessera/providers/dnnl/dnnl_geometry.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

namespace {

using prop = dnnl::prop_kind;

// Weight dims in oneDNN's grouped form: [g, oc/g, ic/g, k...] when grouped.
Dims WeightDims(const std::vector<int64_t>& w, int64_t group) {
  Dims d = ToDims(w);
  if (group == 1) return d;
  d[0] /= group;
  d.insert(d.begin(), group);
  return d;
}

std::string CheckConv(const NodeQuery& q) {
  const TypeInfo* x = q.input_type(0);
  const TypeInfo* w = q.input_type(1);
  const TypeInfo* y = q.output_type(0);
  auto xs = x->StaticShape(), ws = w->StaticShape(), ys = y->StaticShape();
  if (xs->size() < 3 || xs->size() > 5) return "oneDNN convolutions are 1-3 D";
  KernelInfo info(q.node, q.opset);
  int64_t group = info.attr_int("group", 1);
  if (group < 1 || (*ws)[0] % group != 0 || (*xs)[1] != (*ws)[1] * group) return "channels do not match group";
  if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
    auto bs = q.input_type(2)->StaticShape();
    if (bs->size() != 1 || (*bs)[0] != (*ws)[0]) return "bias is not [M]";
  }
  Window win;
  std::string why = WindowOf(info, *xs, *ys, std::vector<int64_t>(ws->begin() + 2, ws->end()), &win);
  if (!why.empty()) return why;
  if (q.node.op_type == "FusedConv" && !FusedActivationOf(q.node)) return "activation has no oneDNN post-op";
  return "";
}

// A 1x1 convolution of 1x1 images with constant weights is a matrix-vector
// product per image: squeeze-and-excitation's two layers (efficientnet_b0:
// 32 of them, with a SiLU step each, 0.40 ms per run at 1 thread as oneDNN
// primitives, mostly per-primitive overhead). One host step each instead,
// with its activations: Relu/LeakyRelu, Sigmoid, SiLU. Returns false
// (nothing emitted) when the node or its fused chain is anything else.
bool LowerPointGemv(Compiler& c, const Node& n, const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                    const std::vector<int64_t>& ys, int64_t group, const PostOpChain& chain) {
  // (Padding would make the output larger than 1x1.)
  if (xs.size() != 4 || xs[2] != 1 || xs[3] != 1 || ws[2] != 1 || ws[3] != 1 || ys[2] != 1 || ys[3] != 1 ||
      group != 1 || !chain.sum_input.empty())
    return false;
  const Tensor* w = c.ConstantOf(n.inputs[1]);
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  const Tensor* b = has_bias ? c.ConstantOf(n.inputs[2]) : nullptr;
  if (w == nullptr || w->dtype() != DataType::kFloat || !w->on_host() || (has_bias && b == nullptr) ||
      (b != nullptr && (b->dtype() != DataType::kFloat || !b->on_host())))
    return false;
  // The fused activations, in order (Relu with its negative slope).
  enum class Act { kRelu, kSigmoid, kSilu };
  std::vector<std::pair<Act, float>> acts;
  for (int i = 0; i < chain.ops.len(); ++i) {
    if (chain.ops.kind(i) != dnnl::primitive::kind::eltwise) return false;
    float scale = 0, alpha = 0, beta = 0;
    dnnl::algorithm alg;
    chain.ops.get_params_eltwise(i, scale, alg, alpha, beta);
    if (alg == dnnl::algorithm::eltwise_relu) acts.push_back({Act::kRelu, alpha});
    else if (alg == dnnl::algorithm::eltwise_logistic) acts.push_back({Act::kSigmoid, 0.f});
    else if (alg == dnnl::algorithm::eltwise_swish && alpha == 1.0f) acts.push_back({Act::kSilu, 0.f});
    else return false;
  }
  if (!chain.silu_output.empty()) acts.push_back({Act::kSilu, 0.f});
  const int64_t images = xs[0], in = xs[1], out = ws[0];
  const int x = c.AsPlain(c.Use(n.inputs[0]));
  const Desc desc = PlainDesc({images, out, 1, 1});
  int dst = c.Define(chain.output, desc);
  if (!chain.silu_output.empty()) dst = c.Alias(chain.silu_output, dst, desc);
  const Tensor weights = *w, bias = b != nullptr ? *b : Tensor();
  c.EmitHost(
      [weights, bias, acts, images, in, out](const std::unordered_map<int, dnnl::memory>& a) {
        const float* xv = static_cast<const float*>(a.at(DNNL_ARG_SRC).get_data_handle());
        float* y = static_cast<float*>(a.at(DNNL_ARG_DST).get_data_handle());
        const float* bv = bias.numel() > 0 ? bias.data<float>() : nullptr;
        for (int64_t image = 0; image < images; ++image) {
          float* yi = y + image * out;
          cpu::MatVecF32(weights.data<float>(), xv + image * in, out, in, bv, yi);
          for (const auto& [kind, alpha] : acts) {
            if (kind == Act::kRelu) {
              for (int64_t j = 0; j < out; ++j) yi[j] = yi[j] < 0.f ? alpha * yi[j] : yi[j];
            } else if (kind == Act::kSigmoid) {
              cpu::SigmoidF32(yi, yi, out);
            } else {
              cpu::SiluF32(yi, yi, out);
            }
          }
        }
      },
      {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, dst}}, n.Label(), 2 * images * out * in);
  return true;
}

void LowerConv(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]), ws = c.ShapeOf(n.inputs[1]), ys = c.ShapeOf(n.outputs[0]);
  int64_t group = info.attr_int("group", 1);
  Window win;
  std::string why = WindowOf(info, xs, ys, std::vector<int64_t>(ws.begin() + 2, ws.end()), &win);
  if (!why.empty()) c.Fail(n, why);
  bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();

  PostOpChain chain;
  if (n.op_type == "FusedConv") {
    std::vector<EltwiseOp> act = FusedActivationOf(n).value();
    for (const auto& e : act) chain.ops.append_eltwise(1.0f, e.algorithm, e.alpha, e.beta);
  }
  // SiLU runs as a step of its own after the convolution (simd_elementwise.h):
  // oneDNN 2.6's swish post-op costs about 1 ns per value in depthwise
  // kernels and 0.4 in 1x1 kernels on AVX-512, the separate pass about 0.35
  // with its memory traffic (efficientnet_b0, 1 thread: 13.7 -> 11.9 ms).
  chain = AbsorbPostOps(c, n.outputs[0], chain.empty(), chain, /*silu_as_post_op=*/false);
  if (LowerPointGemv(c, n, xs, ws, ys, group, chain)) return;
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);

  Dims wdims = WeightDims(ws, group);
  Desc bias_desc = has_bias ? PlainDesc({ws[0]}) : Desc();
  auto make_pd = [&](const Desc& src_desc, const Desc& dst_desc) {
    dnnl::convolution_forward::desc d(prop::forward_inference, dnnl::algorithm::convolution_direct, src_desc,
                                      AnyDesc(wdims), bias_desc, dst_desc, win.strides, win.dilations, win.pad_l,
                                      win.pad_r);
    return dnnl::convolution_forward::primitive_desc(d, attr, c.engine());
  };
  int x = c.Use(n.inputs[0]);
  // A first layer (few input channels, plain NCHW from the caller) reads its
  // input as is when a JIT kernel takes that layout and writes channels-last
  // like the layers after it: reordering 3 channels to channels-last cost
  // more than the convolution (3.9 ms on shufflenet's 1x3x224x224 input).
  dnnl::convolution_forward::primitive_desc pd;
  const Desc x_desc = c.DescOf(x);
  if (xs[1] <= 4 && x_desc == PlainDesc(ToDims(xs))) {
    try {
      using tag = dnnl::memory::format_tag;
      tag channels_last = xs.size() == 3 ? tag::acb : xs.size() == 4 ? tag::acdb : tag::acdeb;
      pd = make_pd(x_desc, Desc(ToDims(ys), dnnl::memory::data_type::f32, channels_last));
      std::string impl = pd.impl_info_str();
      if (impl.find("jit") == std::string::npos && impl.find("brg") == std::string::npos)
        pd = dnnl::convolution_forward::primitive_desc();
    } catch (const dnnl::error&) {
      pd = dnnl::convolution_forward::primitive_desc();
    }
  }
  // Winograd for a 3x3 stride-1 convolution, where oneDNN has a kernel
  // (AVX-512: F(2x2,3x3) or F(4x4,3x3), its pick): 2.25-4x fewer
  // multiplies. Per convolution 1.2-2.4x faster on resnet50 (1 thread);
  // errors against the PyTorch references stay the direct method's order.
  // Channels in whole 16-blocks: the kernels pad to them, and a few
  // channels would pay for sixteen.
  const bool winograd_shape = group == 1 && xs.size() == 4 && ws[2] == 3 && ws[3] == 3 && ws[0] % 16 == 0 &&
                              ws[1] % 16 == 0 &&
                              std::all_of(win.strides.begin(), win.strides.end(), [](auto s) { return s == 1; }) &&
                              std::all_of(win.dilations.begin(), win.dilations.end(), [](auto d) { return d == 0; });
  if (!pd && winograd_shape && c.WinogradAllowed()) {
    try {
      dnnl::convolution_forward::desc d(prop::forward_inference, dnnl::algorithm::convolution_winograd,
                                        AnyDesc(ToDims(xs)), AnyDesc(wdims), bias_desc, AnyDesc(ToDims(ys)),
                                        win.strides, win.dilations, win.pad_l, win.pad_r);
      pd = dnnl::convolution_forward::primitive_desc(d, attr, c.engine());
    } catch (const dnnl::error&) {
      pd = dnnl::convolution_forward::primitive_desc();  // no kernel here: direct
    }
  }
  if (!pd) pd = make_pd(AnyDesc(ToDims(xs)), AnyDesc(ToDims(ys)));

  int src = c.As(x, pd.src_desc());
  int weights;
  if (const Tensor* w = c.ConstantOf(n.inputs[1])) {
    weights = c.Constant(*w, PlainDesc(wdims), pd.weights_desc());
  } else {
    int plain = c.AsPlain(c.Use(n.inputs[1]));
    weights = c.As(c.Alias("", plain, PlainDesc(wdims)), pd.weights_desc());
  }
  int dst = chain.sum_input.empty() ? c.Define(chain.output, pd.dst_desc())
                                    : SumDestination(c, chain.output, chain.sum_input, pd.dst_desc());
  std::vector<std::pair<int, int>> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (has_bias) args.push_back({DNNL_ARG_BIAS, c.Use(n.inputs[2])});
  c.Emit(pd, dnnl::convolution_forward(pd), std::move(args), n.Label());
  EmitTrailingSilu(c, chain, dst, n.Label());
}

}  // namespace

std::vector<DnnlRow> ConvRows() {
  return {
      Row("ai.onnx", "Conv", 1, kMaxOnnxOpset, {}, CheckConv, LowerConv),
      Row(kTesseraDomain, "FusedConv", 1, 1, {}, CheckConv, LowerConv),
  };
}

}  // namespace tessera::dnnl_ep
