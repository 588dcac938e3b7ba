#include "tessera/optimizer/qdq_util.h"

#include <cmath>


#include "tessera/base/logging.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool Int8Type(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

// The scale and zero point inputs of a Q/DQ node as constants, or false.
bool ReadParams(const FusionGraph& fg, const Node& n, QdqParams& p) {
  if (n.inputs.size() < 2 || AttrInt(n, "block_size", 0) != 0) return false;
  p.scale = n.inputs[1];
  p.zero = n.inputs.size() > 2 ? n.inputs[2] : "";
  const Tensor* s = fg.Constant(p.scale);
  if (!s || s->dtype() != DataType::kFloat || s->numel() != 1) return false;
  p.scale_value = s->data<float>()[0];
  if (!(p.scale_value > 0) || !std::isfinite(p.scale_value)) return false;  // the kernels fold 1 / scale
  if (!p.zero.empty()) {
    const Tensor* z = fg.Constant(p.zero);
    if (!z || z->numel() != 1 || !Int8Type(z->dtype())) return false;
    p.type = z->dtype();
    p.zero_value = p.type == DataType::kInt8 ? z->data<int8_t>()[0] : z->data<uint8_t>()[0];
  }
  return true;
}

}  // namespace

std::optional<QdqParams> PerTensorQuantize(const FusionGraph& fg, int qi) {
  const Node& n = fg.node(qi);
  QdqParams p;
  p.node = qi;
  if (AttrInt(n, "saturate", 1) != 1 || AttrInt(n, "output_dtype", 0) != 0 || !ReadParams(fg, n, p)) return std::nullopt;
  if (p.zero.empty()) p.type = DataType::kUInt8;  // QuantizeLinear's default output
  return p;
}

std::optional<Dequantize8> PerTensorDequantize(const FusionGraph& fg, const std::string& value) {
  const int di = fg.ProducerOp(value, "DequantizeLinear");
  if (di < 0) return std::nullopt;
  const Node& n = fg.node(di);
  Dequantize8 d;
  d.node = di;
  d.q = n.inputs.empty() ? "" : n.inputs[0];
  if (!ReadParams(fg, n, d)) return std::nullopt;
  const DataType own = fg.ElemType(d.q);
  if (d.zero.empty()) d.type = own;
  if (!Int8Type(d.type) || (own != DataType::kUndefined && own != d.type)) return std::nullopt;
  return d;
}

std::string ZeroPointInput(FusionGraph& fg, const QdqParams& p) {
  if (!p.zero.empty()) return p.zero;
  Tensor z(p.type, {});
  static_cast<uint8_t*>(z.raw_data())[0] = 0;
  return fg.AddInitializer("qdq_zero", std::move(z));
}

void RemoveQdqGroup(FusionGraph& fg, int qi, const std::vector<int>& float_nodes, const std::vector<int>& dequantizers) {
  fg.Remove(qi);
  for (int f : float_nodes) fg.Remove(f);
  for (int d : dequantizers)
    if (fg.live(d) && fg.editor().UseCount(fg.node(d).outputs[0]) == 0) fg.Remove(d);
}

int LogQdqDeclined(const PassContext& ctx, const char* pass, const Node& op, const std::string& why) {
  if (ctx.logger) TS_LOG(*ctx.logger, kVerbose, pass << ": " << op.Label() << " stays float: " << why);
  return 0;
}

void LogQdqFused(const PassContext& ctx, const char* pass, const Node& op, const std::string& fused_op) {
  if (ctx.logger) TS_LOG(*ctx.logger, kVerbose, pass << ": " << op.Label() << " -> " << kMicrosoftDomain << ":" << fused_op);
}

Node MakeQLinearNode(const Node& op, const char* fused_op, const std::string& output) {
  Node n;
  n.name = op.name.empty() ? output : op.name + "_qlinear";
  n.op_type = fused_op;
  n.domain = kMicrosoftDomain;
  n.outputs = {output};
  return n;
}

std::optional<UnaryQdqGroup> UnaryQdqGroupAt(const FusionGraph& fg, int qi, const std::vector<const char*>& ops,
                                             const PassContext& ctx, const char* pass) {
  const Node& qn = fg.node(qi);
  if (qn.inputs.empty()) return std::nullopt;
  UnaryQdqGroup g;
  for (const char* op : ops)
    if (g.op < 0) g.op = fg.ProducerOp(qn.inputs[0], op);
  if (g.op < 0) return std::nullopt;
  const Node& on = fg.node(g.op);
  const auto x = on.inputs.empty() ? std::nullopt : PerTensorDequantize(fg, on.inputs[0]);
  const auto declined = [&](const char* why) -> std::optional<UnaryQdqGroup> {
    LogQdqDeclined(ctx, pass, on, why);
    return std::nullopt;
  };
  if (!x) {
    if (!on.inputs.empty() && fg.ProducerOp(on.inputs[0], "DequantizeLinear") >= 0)
      return declined("its input is no per-tensor 8-bit DequantizeLinear with constant parameters");
    return std::nullopt;  // not a QDQ group: nothing to say
  }
  const auto y = PerTensorQuantize(fg, qi);
  if (!y) return declined("its QuantizeLinear is not per tensor with a constant positive scale");
  if (x->type != y->type) return declined("its input and output 8-bit types differ");
  if (!fg.OnTarget(x->node)) return declined("its DequantizeLinear is bound for another provider than cpu");
  g.x = *x;
  g.y = *y;
  return g;
}

}  // namespace tessera
