// DynamicQuantizeMatMulFusion: the product ONNX Runtime's quantize_dynamic
// writes for a MatMul with a constant weight (and `tessera quantize --mode
// dynamic` too),
//
//   DynamicQuantizeLinear(x) -> (x_q, x_scale, x_zero)
//   MatMulInteger(x_q, W_q, x_zero, w_zero) -> Cast(to float) -> Mul(., Mul(x_scale, w_scale)) [-> Add(bias)]
//
// becomes com.microsoft DynamicQuantizeMatMul(x, W_q, w_scale, w_zero
// [, bias]), which quantizes x, multiplies on the int8 GEMM and scales and
// biases each sum in one pass, in the chain's own float steps (the same
// results). W_q, w_scale, w_zero and bias must be constants, w_scale and
// w_zero per tensor or per column, the bias one value per column. The
// DynamicQuantizeLinear stays while another product still reads it (the
// query, key and value products share one).
#include "tessera/base/logging.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"
#include "tessera/optimizer/qdq_util.h"

namespace tessera {

namespace {

constexpr const char* kPass = "DynamicQuantizeMatMulFusion";

class DynamicQuantizeMatMulFusion final : public CpuGroupFusion {
 public:
  DynamicQuantizeMatMulFusion() : CpuGroupFusion(kPass, "MatMulInteger") {}

 private:
  int FuseAt(FusionGraph& fg, int mi, const PassContext& ctx) const override {
    const Node mn = fg.node(mi);
    if (mn.inputs.size() < 3) return 0;
    const int di = fg.ProducerOp(mn.inputs[0], "DynamicQuantizeLinear");
    if (di < 0) return 0;  // not the dynamic pattern: nothing to say
    const Node dn = fg.node(di);
    auto left = [&](const char* why) { return LogQdqDeclined(ctx, kPass, mn, why); };
    if (dn.outputs.size() < 3 || mn.inputs[2] != dn.outputs[2])
      return left("its a_zero_point is not the DynamicQuantizeLinear's");
    const Tensor* w = fg.Constant(mn.inputs[1]);
    if (!w || w->rank() != 2 || (w->dtype() != DataType::kInt8 && w->dtype() != DataType::kUInt8))
      return left("its B is no constant int8/uint8 matrix");
    const int64_t n = w->dim(1);
    const std::string w_zero = mn.inputs.size() > 3 ? mn.inputs[3] : "";
    if (!w_zero.empty()) {
      const Tensor* z = fg.Constant(w_zero);
      if (!z || z->dtype() != w->dtype() || (z->numel() != 1 && z->numel() != n))
        return left("its b_zero_point is not a constant of B's type, per tensor or per column");
    }
    if (!fg.OnTarget(di)) return left("its DynamicQuantizeLinear is bound for another provider than cpu");
    const int ci = fg.SoleConsumer(mn.outputs[0], "Cast");
    if (ci < 0 || AttrInt(fg.node(ci), "to", 0) != static_cast<int64_t>(DataType::kFloat))
      return left("its sums are not read by one Cast to float alone");
    const int ki = fg.SoleConsumer(fg.node(ci).outputs[0], "Mul");
    if (ki < 0) return left("the Cast is not read by one Mul alone");
    const Node kn = fg.node(ki);
    // The Mul's other operand: Mul(x_scale, w_scale), either order.
    const std::string& scales = kn.inputs[0] == fg.node(ci).outputs[0] ? kn.inputs[1] : kn.inputs[0];
    const int si = fg.ProducerOp(scales, "Mul");
    if (si < 0) return left("the sums are not scaled by Mul(x_scale, w_scale)");
    const Node sn = fg.node(si);
    const std::string& w_scale = sn.inputs[0] == dn.outputs[1] ? sn.inputs[1] : sn.inputs[0];
    const Tensor* ws = fg.Constant(w_scale);
    if ((sn.inputs[0] != dn.outputs[1] && sn.inputs[1] != dn.outputs[1]) || !ws || ws->dtype() != DataType::kFloat ||
        (ws->numel() != 1 && ws->numel() != n))
      return left("the sums are not scaled by Mul(x_scale, w_scale) with a constant float w_scale");
    // A bias Add after, when it is one constant float per column.
    std::string bias, output = kn.outputs[0];
    int ai = fg.SoleConsumer(kn.outputs[0], "Add");
    if (ai >= 0) {
      const Node an = fg.node(ai);
      const std::string& other = an.inputs[0] == kn.outputs[0] ? an.inputs[1] : an.inputs[0];
      const Tensor* b = fg.Constant(other);
      if (b && b->dtype() == DataType::kFloat && b->numel() == n && b->shape().back() == n) {
        bias = other;
        output = an.outputs[0];
      } else {
        ai = -1;
      }
    }
    Node q;
    q.name = mn.name.empty() ? output : mn.name + "_dynamic";
    q.domain = kMicrosoftDomain;
    q.op_type = "DynamicQuantizeMatMul";
    q.inputs = {dn.inputs[0], mn.inputs[1], w_scale, w_zero};
    if (!bias.empty()) q.inputs.push_back(bias);
    q.outputs = {output};
    for (int r : {ai, ki, ci, mi})
      if (r >= 0) fg.Remove(r);
    if (fg.editor().UseCount(sn.outputs[0]) == 0) fg.Remove(si);
    if (fg.live(di)) {
      bool read = false;
      for (const std::string& o : fg.node(di).outputs) read |= fg.editor().UseCount(o) > 0;
      if (!read) fg.Remove(di);
    }
    LogQdqFused(ctx, kPass, mn, "DynamicQuantizeMatMul");
    fg.Add(std::move(q));
    return 1;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeDynamicQuantizeMatMulFusion() { return std::make_unique<DynamicQuantizeMatMulFusion>(); }

}  // namespace tessera
