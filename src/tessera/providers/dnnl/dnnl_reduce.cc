// ReduceMean and ReduceSum as oneDNN reductions (or, over the spatial axes,
// pooling), read in the producer's layout (a global average at a network's
// tail costs no reorder).
#include <algorithm>

#include "tessera/providers/dnnl/dnnl_compiler.h"
#include "tessera/providers/dnnl/dnnl_families.h"

namespace tessera::dnnl_ep {

namespace {

// The normalized reduced axes, or nullopt (with *why) when not static.
std::optional<std::vector<bool>> ReducedAxes(const Node& n, int64_t opset, size_t rank,
                                             const std::function<const Tensor*(size_t)>& constant, std::string* why) {
  KernelInfo info(n, opset);
  // Axes moved from an attribute to an input: ReduceSum at 13, the rest at 18.
  bool axes_input = n.op_type == "ReduceSum" ? opset >= 13 : opset >= 18;
  std::vector<int64_t> axes;
  if (axes_input) {
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      const Tensor* t = constant(1);
      if (t == nullptr) {
        *why = "axes not constant";
        return std::nullopt;
      }
      axes = t->ToInt64Vector();
    }
  } else {
    axes = info.attr_ints("axes", {});
  }
  std::vector<bool> reduced(rank, axes.empty());
  if (axes.empty() && axes_input && info.attr_int("noop_with_empty_axes", 0) != 0) {
    *why = "no-op reduction";
    return std::nullopt;
  }
  for (int64_t a : axes) {
    int64_t r = static_cast<int64_t>(rank);
    if (a < -r || a >= r) {
      *why = "axis out of range";
      return std::nullopt;
    }
    reduced[static_cast<size_t>(a < 0 ? a + r : a)] = true;
  }
  return reduced;
}

std::string CheckReduce(const NodeQuery& q) {
  std::string why;
  size_t rank = q.input_type(0)->StaticShape()->size();
  if (rank > 5) return "rank above 5";
  return ReducedAxes(q.node, q.opset, rank, [&](size_t i) { return q.constant_input(i); }, &why) ? "" : why;
}

void LowerReduce(Compiler& c, const Node& n) {
  std::vector<int64_t> xs = c.ShapeOf(n.inputs[0]);
  std::string why;
  auto reduced = ReducedAxes(n, c.OpsetOf(n), xs.size(), [&](size_t i) { return c.ConstantOf(n.inputs[i]); }, &why);
  if (!reduced) c.Fail(n, why);
  Dims kept = ToDims(xs);
  for (size_t i = 0; i < kept.size(); ++i)
    if ((*reduced)[i]) kept[i] = 1;
  int src = c.Use(n.inputs[0]);
  std::vector<int64_t> ys = c.ShapeOf(n.outputs[0]);
  bool keepdims = ToDims(ys) == kept;
  const bool mean = n.op_type == "ReduceMean";
  // Over exactly the spatial axes (a global average written as ReduceMean,
  // shufflenet's tail): a pooling primitive. oneDNN 2.6 has only its
  // reference reduction for channels-last input (0.9 ms for 1024x7x7).
  bool spatial = xs.size() >= 3 && xs.size() <= 5 && !(*reduced)[0] && !(*reduced)[1];
  for (size_t i = 2; i < xs.size(); ++i) spatial = spatial && (*reduced)[i];
  if (spatial) {
    Dims window(xs.begin() + 2, xs.end()), ones(xs.size() - 2, 1), zeros(xs.size() - 2, 0);
    dnnl::memory::dim count = 1;
    for (auto w : window) count *= w;
    dnnl::primitive_attr attr = c.Attr();
    if (!mean) {  // the sum is the mean times the window
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, static_cast<float>(count), 0.0f);
      attr.set_post_ops(ops);
    }
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_avg_exclude_padding,
                                     c.DescOf(src), AnyDesc(kept), ones, window, zeros, zeros, zeros);
    dnnl::pooling_v2_forward::primitive_desc pd(d, attr, c.engine());
    int dst = c.Define(keepdims ? n.outputs[0] : "", pd.dst_desc());
    c.Emit(pd, dnnl::pooling_v2_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
    if (!keepdims) c.Alias(n.outputs[0], c.AsPlain(dst), PlainDesc(ToDims(ys)));
    return;
  }
  dnnl::algorithm a = mean ? dnnl::algorithm::reduction_mean : dnnl::algorithm::reduction_sum;
  dnnl::reduction::desc d(a, c.DescOf(src), AnyDesc(kept), 0.0f, 0.0f);
  dnnl::reduction::primitive_desc pd(d, c.Attr(), c.engine());
  int dst = c.Define(keepdims ? n.outputs[0] : "", pd.dst_desc());
  c.Emit(pd, dnnl::reduction(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, n.Label());
  if (!keepdims) c.Alias(n.outputs[0], c.AsPlain(dst), PlainDesc(ToDims(ys)));
}

}  // namespace

std::vector<DnnlRow> ReduceRows() {
  std::vector<DnnlRow> rows;
  for (const char* op : {"ReduceMean", "ReduceSum"})
    rows.push_back(Row("ai.onnx", op, 1, kMaxOnnxOpset, {1}, CheckReduce, LowerReduce));
  return rows;
}

}  // namespace tessera::dnnl_ep
