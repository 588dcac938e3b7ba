// QdqToQLinear: the QDQ form of a quantized Conv or MatMul, as exporters
// and quantization tools write it,
//
//   DequantizeLinear(x_q, xs, xz) ─┐
//   DequantizeLinear(w_q, ws, wz) ─┼─ Conv [+ Relu/Clip] ─ QuantizeLinear(ys, yz) ─ y_q
//   bias (float, or DequantizeLinear of int32) ─┘
//
// with constant weights, scales and zero points, becomes one QLinearConv
// (or QLinearMatMul: no bias, no Relu), which runs on the int8 kernels. The
// fused node computes in integers what the pattern computes in float, so
// its output can differ by one quantization step where the float result
// rounds near a half step; a float bias is quantized to int32 at scale
// xs * ws (an error of at most half of that, far below ys). A Relu or a
// constant Clip (Relu6) folds in only where the output's saturation
// already does what it does: yz the lowest value of y's type for a bound
// at zero, and the upper bound at or past the highest quantized value.
// Everything else is left as it is.
#include <cmath>
#include <limits>

#include "tessera/base/logging.h"
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool Int8Type(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

// One DequantizeLinear's operands: its quantized input and constant
// parameters, or nullopt when they are not of the form QLinear ops take.
struct Dequantized {
  int node = -1;
  std::string q, scale, zero;  // zero may be ""
  const Tensor* scale_value = nullptr;
  const Tensor* zero_value = nullptr;
  int64_t rank = -1;  // of q (and of the dequantized value), -1 when unknown
  DataType type = DataType::kUndefined;  // of q
};

std::optional<Dequantized> DequantizeOf(const FusionGraph& fg, const std::string& value, bool per_channel_ok,
                                        int64_t channel_axis) {
  const int di = fg.ProducerOp(value, "DequantizeLinear");
  if (di < 0) return std::nullopt;
  const Node& dn = fg.node(di);
  if (dn.inputs.size() < 2 || AttrInt(dn, "block_size", 0) != 0) return std::nullopt;
  Dequantized d;
  d.node = di;
  d.q = dn.inputs[0];
  d.scale = dn.inputs[1];
  d.zero = dn.inputs.size() > 2 ? dn.inputs[2] : "";
  d.scale_value = fg.Constant(d.scale);
  if (d.scale_value == nullptr || d.scale_value->dtype() != DataType::kFloat) return std::nullopt;
  if (!d.zero.empty()) {
    d.zero_value = fg.Constant(d.zero);
    if (d.zero_value == nullptr || d.zero_value->numel() != d.scale_value->numel()) return std::nullopt;
  }
  // q's type: the zero point's (ONNX makes them equal), else q's own when
  // known (a value computed in the graph, such as a QuantizeLinear's
  // output, has no static type here).
  d.type = d.zero_value ? d.zero_value->dtype() : fg.ElemType(d.q);
  if (!Int8Type(d.type)) return std::nullopt;
  const auto rank = fg.Rank(d.q);
  d.rank = rank.value_or(-1);
  if (d.scale_value->numel() != 1) {
    int64_t axis = AttrInt(dn, "axis", 1);
    if (!rank) return std::nullopt;
    if (axis < 0) axis += d.rank;
    if (!per_channel_ok || d.scale_value->rank() != 1 || axis != channel_axis) return std::nullopt;
  }
  return d;
}

class QdqToQLinear final : public GraphPass {
 public:
  std::string name() const override { return "QdqToQLinear"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    if (fg.OnnxOpset() < 10) return 0;
    int fused = 0;
    for (int qi = 0; qi < static_cast<int>(fg.size()); ++qi) {
      if (!fg.Is(qi, "QuantizeLinear") || !fg.OnTarget(qi)) continue;
      fused += FuseAt(fg, qi, ctx);
    }
    if (fused) fg.Commit();
    return fused;
  }

 private:
  int FuseAt(FusionGraph& fg, int qi, const PassContext& ctx) const {
    const Node qn = fg.node(qi);
    if (qn.inputs.size() < 2 || AttrInt(qn, "saturate", 1) != 1 || AttrInt(qn, "block_size", 0) != 0) return 0;
    const Tensor* ys = fg.Constant(qn.inputs[1]);
    const std::string yz_name = qn.inputs.size() > 2 ? qn.inputs[2] : "";
    const Tensor* yz = yz_name.empty() ? nullptr : fg.Constant(yz_name);
    if (!ys || ys->numel() != 1 || ys->dtype() != DataType::kFloat || (!yz_name.empty() && (!yz || yz->numel() != 1)))
      return 0;
    const DataType yt = yz ? yz->dtype() : DataType::kUInt8;
    if (!Int8Type(yt) || AttrInt(qn, "output_dtype", 0) != 0) return 0;
    // Producer: the product, or a Relu or Clip after it that the output's
    // saturation already does.
    std::string product = qn.inputs[0];
    int activation = fg.ProducerOp(product, "Relu");
    if (activation < 0) activation = fg.ProducerOp(product, "Clip");
    if (activation >= 0) {
      if (!fg.SingleUse(product)) return 0;
      if (!SaturationClips(fg, fg.node(activation), ys->data<float>()[0],
                           yz ? static_cast<int64_t>(yz->GetAsDouble(0)) : 0, yt)) {
        if (ctx.logger)
          TS_LOG(*ctx.logger, kVerbose, "QdqToQLinear: " << fg.node(activation).Label()
                                                          << " stays float: the output's saturation does not do "
                                                             "what it does (non-constant bounds, or bounds inside the "
                                                             "quantized range)");
        return 0;
      }
      product = fg.node(activation).inputs[0];
    }
    if (!fg.SingleUse(product)) return 0;
    const int conv = fg.ProducerOp(product, "Conv");
    const int matmul = conv < 0 && activation < 0 ? fg.ProducerOp(product, "MatMul") : -1;
    const int pi = conv >= 0 ? conv : matmul;
    if (pi < 0 || !fg.OnTarget(pi)) return 0;
    const Node pn = fg.node(pi);
    // A product between Q/DQ nodes: say why it stays float, or that it fused.
    auto left = [&](const char* why) {
      if (ctx.logger) TS_LOG(*ctx.logger, kVerbose, "QdqToQLinear: " << pn.Label() << " stays float: " << why);
      return 0;
    };
    // Activations per tensor; weights per output channel (Conv: axis 0 of
    // W; MatMul: axis 1 of a [K, N] B) or per tensor, and constant.
    auto x = DequantizeOf(fg, pn.inputs[0], false, 0);
    auto w = DequantizeOf(fg, pn.inputs[1], true, conv >= 0 ? 0 : 1);
    if (!x) return left("its input is no per-tensor int8/uint8 DequantizeLinear with constant parameters");
    if (!w || !fg.Constant(w->q))
      return left("its weight is no constant int8/uint8 DequantizeLinear, per tensor or per output channel");
    if (matmul >= 0 && w->rank != 2) return left("the weight is not a matrix");
    for (const Dequantized* d : {&*x, &*w})
      if (fg.ElemType(d->q) != DataType::kUndefined && fg.ElemType(d->q) != d->type)
        return left("a zero point's type differs from its tensor's");

    // The bias first: it is the last check, and nothing is added before it.
    std::string bias;
    if (conv >= 0 && pn.inputs.size() > 2 && !pn.inputs[2].empty()) {
      bias = Int32Bias(fg, pn.inputs[2], *x->scale_value, *w->scale_value);
      if (bias.empty()) return left("its bias is neither a float constant nor an int32 DequantizeLinear at xs * ws");
    }
    Node q = MakeFusedNode(pn, conv >= 0 ? "QLinearConv" : "QLinearMatMul", qn.outputs[0]);
    q.inputs = {x->q, x->scale, x->zero.empty() ? ZeroOf(fg, x->type) : x->zero,
                w->q, w->scale, w->zero.empty() ? ZeroOf(fg, w->type) : w->zero,
                qn.inputs[1], yz_name.empty() ? ZeroOf(fg, DataType::kUInt8) : yz_name};
    if (!bias.empty()) q.inputs.push_back(bias);
    if (conv >= 0) {
      for (const Attribute& a : pn.attributes) q.attributes.push_back(a);
    }
    // Rewire: the fused node writes y_q; the float nodes go, the
    // DequantizeLinears too when nothing else reads them.
    std::vector<int> dequantizers;
    for (const std::string& in : pn.inputs)
      if (int d = in.empty() ? -1 : fg.ProducerOp(in, "DequantizeLinear"); d >= 0) dequantizers.push_back(d);
    fg.Remove(qi);
    if (activation >= 0) fg.Remove(activation);
    fg.Remove(pi);
    for (int d : dequantizers)
      if (fg.live(d) && fg.editor().UseCount(fg.node(d).outputs[0]) == 0) fg.Remove(d);
    if (ctx.logger) TS_LOG(*ctx.logger, kVerbose, "QdqToQLinear: " << pn.Label() << " -> " << q.op_type);
    fg.Add(std::move(q));
    return 1;
  }

  // Whether QuantizeLinear(ys, yz) of the activation's output equals that
  // of its input for every value: a value below the activation's lower
  // bound must quantize to the type's lowest (round(lo / ys) + yz <= qmin:
  // for Relu, yz is the lowest), and one above its upper bound to the
  // highest. Bounds must be constants.
  static bool SaturationClips(const FusionGraph& fg, const Node& act, float ys, int64_t yz, DataType yt) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (act.op_type == "Relu") {
      lo = 0.f;
    } else if (fg.OnnxOpset() >= 0 && fg.OnnxOpset() < 11) {
      const Attribute* a = act.FindAttribute("min");
      const Attribute* b = act.FindAttribute("max");
      if (a) lo = a->f;
      if (b) hi = b->f;
    } else {
      for (size_t k = 1; k <= 2 && k < act.inputs.size(); ++k) {
        if (act.inputs[k].empty()) continue;
        auto v = fg.ScalarConstant(act.inputs[k]);
        if (!v) return false;
        (k == 1 ? lo : hi) = static_cast<float>(*v);
      }
    }
    const double qmin = yt == DataType::kInt8 ? -128.0 : 0.0, qmax = yt == DataType::kInt8 ? 127.0 : 255.0;
    if (!(ys > 0.f)) return false;
    if (lo != -std::numeric_limits<float>::infinity() && std::nearbyint(lo / ys) + static_cast<double>(yz) > qmin)
      return false;
    if (hi != std::numeric_limits<float>::infinity() && std::nearbyint(hi / ys) + static_cast<double>(yz) < qmax)
      return false;
    return true;
  }

  static Node MakeFusedNode(const Node& product, const char* op, const std::string& out) {
    Node n;
    n.name = product.name.empty() ? out : product.name + "_qlinear";
    n.op_type = op;
    n.outputs = {out};
    return n;
  }

  // A zero point of `type` (QLinear ops take their zero points in order).
  static std::string ZeroOf(FusionGraph& fg, DataType type) {
    Tensor z(type, {});
    if (type == DataType::kInt8) z.data<int8_t>()[0] = 0;
    else z.data<uint8_t>()[0] = 0;
    return fg.AddInitializer("qdq_zero", std::move(z));
  }

  // The Conv bias as QLinearConv's int32 at scale xs * ws[m]: an int32
  // DequantizeLinear at exactly that scale as it is, a float constant
  // rounded to it; "" otherwise.
  static std::string Int32Bias(FusionGraph& fg, const std::string& bias, const Tensor& xs, const Tensor& ws) {
    const int64_t channels = ws.numel();
    auto scale = [&](int64_t m) {
      return static_cast<double>(xs.data<float>()[0]) * ws.data<float>()[channels == 1 ? 0 : m];
    };
    if (int di = fg.ProducerOp(bias, "DequantizeLinear"); di >= 0) {
      const Node& dn = fg.node(di);
      const Tensor* b = fg.Constant(dn.inputs[0]);
      const Tensor* bs = dn.inputs.size() > 1 ? fg.Constant(dn.inputs[1]) : nullptr;
      const Tensor* bz = dn.inputs.size() > 2 && !dn.inputs[2].empty() ? fg.Constant(dn.inputs[2]) : nullptr;
      if (!b || b->dtype() != DataType::kInt32 || !bs || bs->dtype() != DataType::kFloat || b->rank() != 1) return "";
      if (bz && bz->GetAsDouble(0) != 0) return "";
      for (int64_t m = 0; m < b->numel(); ++m) {
        const double want = scale(channels == 1 ? 0 : m), have = bs->data<float>()[bs->numel() == 1 ? 0 : m];
        if (std::fabs(want - have) > 1e-6 * std::fabs(want)) return "";
      }
      return dn.inputs[0];
    }
    const Tensor* b = fg.Constant(bias);
    if (!b || b->dtype() != DataType::kFloat || b->rank() != 1 || (channels != 1 && b->numel() != channels)) return "";
    Tensor q(DataType::kInt32, {b->numel()});
    for (int64_t m = 0; m < b->numel(); ++m) {
      const double v = std::nearbyint(b->data<float>()[m] / scale(m));
      if (!(std::fabs(v) < 2147483647.0)) return "";
      q.data<int32_t>()[m] = static_cast<int32_t>(v);
    }
    return fg.AddInitializer(bias + "_int32", std::move(q));
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqToQLinear() { return std::make_unique<QdqToQLinear>(); }

}  // namespace tessera
