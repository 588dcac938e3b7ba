// QLinearSiluFusion: SiLU (x * Sigmoid(x)) of a quantized model, once the
// QDQ passes made it
//
//   QLinearMul(x, xs, xz, QLinearSigmoid(x, xs, xz, ss, sz), ss, sz, ys, yz)
//
// becomes ai.tessera:QLinearSilu(x, xs, xz, ss, sz, ys, yz): one 256-entry
// table per node, whose entry for each byte is what the two kernels give
// it, so the result is bit for bit the pair's. The Mul must read x and the
// Sigmoid's output at the parameters the Sigmoid was given and produced
// (the same values, or equal constants), and the Sigmoid's output must be
// read by the Mul alone.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"

namespace tessera {

namespace {

constexpr const char* kPass = "QLinearSiluFusion";

// The two inputs name the same scale or zero point: the same value, both
// absent (a zero point of 0), or constants of one value.
bool SameParameter(const FusionGraph& fg, const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto value = [&](const std::string& v) -> std::optional<double> {
    if (v.empty()) return 0.0;
    return fg.ScalarConstant(v);
  };
  const auto va = value(a), vb = value(b);
  return va && vb && *va == *vb;
}

class QLinearSiluFusion final : public CpuGroupFusion {
 public:
  QLinearSiluFusion() : CpuGroupFusion(kPass, nullptr) {}

 protected:
  bool IsTrigger(const FusionGraph& fg, int i) const override { return fg.Is(i, kMicrosoftDomain, "QLinearMul"); }

  int FuseAt(FusionGraph& fg, int i, const PassContext& ctx) const override {
    const Node mul = fg.node(i);
    if (mul.inputs.size() < 7) return 0;
    const auto input = [&](size_t k) { return k < mul.inputs.size() ? mul.inputs[k] : std::string(); };
    for (size_t side : {0u, 3u}) {  // the Sigmoid's output as B, or as A
      const size_t other = 3 - side;
      const int sig = fg.ProducerOp(input(other), kMicrosoftDomain, "QLinearSigmoid");
      if (sig < 0 || !fg.OnTarget(sig)) continue;
      const Node s = fg.node(sig);
      const auto sig_input = [&](size_t k) { return k < s.inputs.size() ? s.inputs[k] : std::string(); };
      if (sig_input(0) != input(side)) continue;  // a Sigmoid of another value
      if (!SameParameter(fg, sig_input(1), input(side + 1)) || !SameParameter(fg, sig_input(2), input(side + 2)) ||
          !SameParameter(fg, sig_input(3), input(other + 1)) || !SameParameter(fg, sig_input(4), input(other + 2))) {
        if (ctx.logger)
          TS_LOG(*ctx.logger, kVerbose, kPass << ": " << mul.Label()
                                              << " stays a QLinearMul: it reads x or the Sigmoid at other parameters");
        continue;
      }
      if (!fg.SingleUse(s.outputs[0])) {
        if (ctx.logger)
          TS_LOG(*ctx.logger, kVerbose, kPass << ": " << mul.Label() << " stays a QLinearMul: the Sigmoid's output is read elsewhere too");
        continue;
      }
      Node silu;
      silu.name = mul.name.empty() ? mul.outputs[0] : mul.name + "_silu";
      silu.op_type = "QLinearSilu";
      silu.domain = kTesseraDomain;
      silu.inputs = {input(side), sig_input(1), sig_input(2), sig_input(3), sig_input(4), input(6), input(7)};
      silu.outputs = mul.outputs;
      if (ctx.logger) TS_LOG(*ctx.logger, kVerbose, kPass << ": " << mul.Label() << " and " << s.Label() << " -> " << kTesseraDomain << ":QLinearSilu");
      fg.Remove(i);
      fg.Remove(sig);
      fg.Add(std::move(silu));
      return 1;
    }
    return 0;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQLinearSiluFusion() { return std::make_unique<QLinearSiluFusion>(); }

}  // namespace tessera
