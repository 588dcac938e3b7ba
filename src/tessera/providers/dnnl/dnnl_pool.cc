// MaxPool, AveragePool and their global forms as oneDNN pooling, reading
// the producer's layout as is (no reorder between a Conv and its pool).
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
