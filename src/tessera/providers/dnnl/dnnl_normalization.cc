// BatchNormalization (inference), LRN, LayerNormalization, Softmax and
// LogSoftmax as oneDNN primitives.
#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"
#include "tessera/providers/dnnl/dnnl_post_ops.h"

namespace tessera::dnnl_ep {

namespace {

using prop = dnnl::prop_kind;
using flags = dnnl::normalization_flags;

bool Requested(const Node& n, size_t i) { return i < n.outputs.size() && !n.outputs[i].empty(); }

// A per-channel parameter as a plain [C] value.
int Channel(Compiler& c, const std::string& name, int64_t channels) {
  Desc d = PlainDesc({channels});
  if (const Tensor* t = c.ConstantOf(name)) return c.Constant(*t, d, d);
  return c.Alias("", c.AsPlain(c.Use(name)), d);
}

std::string CheckBatchNorm(const NodeQuery& q) {
  KernelInfo info(q.node, q.opset);
  if (q.opset < 9) return "BatchNormalization before opset 9 (spatial attribute)";
  if (info.attr_int("training_mode", 0) != 0 || Requested(q.node, 1)) return "training mode";
  if (q.input_type(0)->StaticShape()->size() < 2) return "rank below 2";
  int64_t ch = (*q.input_type(0)->StaticShape())[1];
  for (size_t i = 1; i < 5; ++i) {
    auto s = q.input_type(i)->StaticShape();
    if (s->size() != 1 || (*s)[0] != ch) return "parameters are not [C]";
  }
  return "";
}

void LowerBatchNorm(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]);
  int src = c.Use(n.inputs[0]);
  if (xs.size() == 2) src = c.AsPlain(src);
  PostOpChain chain = AbsorbPostOps(c, n.outputs[0], false);
  dnnl::primitive_attr attr = c.Attr();
  attr.set_post_ops(chain.ops);
  dnnl::batch_normalization_forward::desc d(prop::forward_inference, c.DescOf(src), info.attr_float("epsilon", 1e-5f),
                                            flags::use_global_stats | flags::use_scale | flags::use_shift);
  dnnl::batch_normalization_forward::primitive_desc pd(d, attr, c.engine());
  int64_t ch = xs[1];
  std::vector<std::pair<int, int>> args{{DNNL_ARG_SRC, src},
                                        {DNNL_ARG_SCALE, Channel(c, n.inputs[1], ch)},
                                        {DNNL_ARG_SHIFT, Channel(c, n.inputs[2], ch)},
                                        {DNNL_ARG_MEAN, Channel(c, n.inputs[3], ch)},
                                        {DNNL_ARG_VARIANCE, Channel(c, n.inputs[4], ch)}};
  args.push_back({DNNL_ARG_DST, c.Define(chain.output, pd.dst_desc())});
  c.Emit(pd, dnnl::batch_normalization_forward(pd), std::move(args), n.Label());
}

std::string CheckLrn(const NodeQuery& q) {
  int64_t size = KernelInfo(q.node, q.opset).attr_int("size");
  // ONNX centres even windows one step differently from oneDNN.
  if (size < 1 || size % 2 == 0) return "even LRN size";
  if (q.input_type(0)->StaticShape()->size() != 4) return "LRN input is not 4-D";
  return "";
}

void LowerLrn(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  int src = c.Use(n.inputs[0]);
  dnnl::lrn_forward::desc d(prop::forward_inference, dnnl::algorithm::lrn_across_channels, c.DescOf(src),
                            info.attr_int("size"), info.attr_float("alpha", 1e-4f), info.attr_float("beta", 0.75f),
                            info.attr_float("bias", 1.0f));
  dnnl::lrn_forward::primitive_desc pd(d, c.Attr(), c.engine());
  int dst = c.Define(n.outputs[0], pd.dst_desc());
  c.Emit(pd, dnnl::lrn_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
}

int64_t AxisOf(const KernelInfo& info, int64_t rank, int64_t dflt) {
  int64_t axis = info.attr_int("axis", dflt);
  return axis < 0 ? axis + rank : axis;
}

std::string CheckSoftmax(const NodeQuery& q) {
  int64_t rank = static_cast<int64_t>(q.input_type(0)->StaticShape()->size());
  int64_t axis = AxisOf(KernelInfo(q.node, q.opset), rank, q.opset >= 13 ? -1 : 1);
  if (axis < 0 || axis >= rank) return "axis out of range";
  // Before opset 13 the input is flattened to 2-D at `axis`: the same as a
  // softmax along one axis only when that axis is the last.
  if (q.opset < 13 && axis != rank - 1) return "opset < 13 softmax over several axes";
  return "";
}

void LowerSoftmax(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  int src = c.AsPlain(c.Use(n.inputs[0]));
  int64_t rank = static_cast<int64_t>(c.ShapeOf(n.inputs[0]).size());
  int axis = static_cast<int>(AxisOf(info, rank, info.opset() >= 13 ? -1 : 1));
  int dst = c.Define(n.outputs[0], c.DescOf(src));
  if (n.op_type == "Softmax") {
    dnnl::softmax_forward::desc d(prop::forward_inference, c.DescOf(src), axis);
    dnnl::softmax_forward::primitive_desc pd(d, c.Attr(), c.engine());
    c.Emit(pd, dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
  } else {
    dnnl::logsoftmax_forward::desc d(prop::forward_inference, c.DescOf(src), axis);
    dnnl::logsoftmax_forward::primitive_desc pd(d, c.Attr(), c.engine());
    c.Emit(pd, dnnl::logsoftmax_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
  }
}

std::string CheckLayerNorm(const NodeQuery& q) {
  auto xs = *q.input_type(0)->StaticShape();
  int64_t rank = static_cast<int64_t>(xs.size());
  if (AxisOf(KernelInfo(q.node, q.opset), rank, -1) != rank - 1) return "normalizes over more than the last axis";
  if (Requested(q.node, 1) || Requested(q.node, 2)) return "mean/inv_std_dev outputs";
  if (rank < 2 || rank > 5) return "rank outside 2-5";
  for (size_t i = 1; i < 3 && i < q.node.inputs.size(); ++i) {
    if (q.node.inputs[i].empty()) continue;
    auto s = *q.input_type(i)->StaticShape();
    if (s.empty() || s.back() != xs.back() || [&] {
          for (size_t k = 0; k + 1 < s.size(); ++k)
            if (s[k] != 1) return true;
          return false;
        }())
      return "scale/bias are not over the last axis only";
  }
  return "";
}

void LowerLayerNorm(Compiler& c, const Node& n) {
  KernelInfo info(n, c.OpsetOf(n));
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]);
  int src = c.AsPlain(c.Use(n.inputs[0]));
  bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  dnnl::normalization_flags f = flags::use_scale | (has_bias ? flags::use_shift : flags::none);
  dnnl::layer_normalization_forward::desc d(prop::forward_inference, c.DescOf(src), info.attr_float("epsilon", 1e-5f), f);
  dnnl::layer_normalization_forward::primitive_desc pd(d, c.Attr(), c.engine());
  std::vector<std::pair<int, int>> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_SCALE, Channel(c, n.inputs[1], xs.back())}};
  if (has_bias) args.push_back({DNNL_ARG_SHIFT, Channel(c, n.inputs[2], xs.back())});
  args.push_back({DNNL_ARG_DST, c.Define(n.outputs[0], pd.dst_desc())});
  c.Emit(pd, dnnl::layer_normalization_forward(pd), std::move(args), n.Label());
}

}  // namespace

std::vector<DnnlRow> NormalizationRows() {
  return {
      Row("ai.onnx", "BatchNormalization", 9, kMaxOnnxOpset, {}, CheckBatchNorm, LowerBatchNorm),
      Row("ai.onnx", "LRN", 1, kMaxOnnxOpset, {}, CheckLrn, LowerLrn),
      Row("ai.onnx", "Softmax", 1, kMaxOnnxOpset, {}, CheckSoftmax, LowerSoftmax),
      Row("ai.onnx", "LogSoftmax", 1, kMaxOnnxOpset, {}, CheckSoftmax, LowerSoftmax),
      Row("ai.onnx", "LayerNormalization", 17, kMaxOnnxOpset, {}, CheckLayerNorm, LowerLayerNorm),
  };
}

}  // namespace tessera::dnnl_ep
