// ConvBiasFusion: Conv/ConvTranspose -> Add(constant per-channel tensor)
// becomes the same convolution with that tensor added to its bias input.
// The constant must broadcast along the channel axis only: [M, 1, ..., 1]
// (rank of the output minus one) or [1, M, 1, ..., 1] (the output's rank).
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"

namespace tessera {

namespace {

// Whether `c` is a per-channel vector of m values for an output of rank r.
bool PerChannel(const Tensor& c, int64_t m, int64_t r) {
  if (c.numel() != m) return false;
  int64_t lead = c.rank() == r ? 1 : c.rank() == r - 1 ? 0 : -1;
  if (lead < 0) return false;
  for (int64_t d = 0; d < c.rank(); ++d) {
    int64_t want = d == lead ? m : 1;
    if (c.dim(d) != want) return false;
  }
  if (lead == 1 && c.dim(0) != 1) return false;
  return true;
}

class ConvBiasFusion final : public GraphPass {
 public:
  std::string name() const override { return "ConvBiasFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int ai = 0; ai < static_cast<int>(fg.size()); ++ai) {
      if (!fg.Is(ai, "Add") || !fg.OnTarget(ai)) continue;
      const Node& add = fg.node(ai);
      if (add.inputs.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const std::string& y = add.inputs[static_cast<size_t>(side)];
        const std::string& cname = add.inputs[static_cast<size_t>(1 - side)];
        int ci = fg.ProducerOp(y, "Conv");
        bool transpose = false;
        if (ci < 0) {
          ci = fg.ProducerOp(y, "ConvTranspose");
          transpose = ci >= 0;
        }
        if (ci < 0 || !fg.OnTarget(ci) || !fg.SingleUse(y)) continue;
        const Node& conv = fg.node(ci);
        const Tensor* c = fg.Constant(cname);
        const Tensor* w = conv.inputs.size() > 1 ? fg.Constant(conv.inputs[1]) : nullptr;
        if (!c || !w || w->rank() < 3 || c->dtype() != w->dtype() || !IsFloatOrDouble(w->dtype())) continue;
        bool has_b = conv.inputs.size() > 2 && !conv.inputs[2].empty();
        const Tensor* b = has_b ? fg.Constant(conv.inputs[2]) : nullptr;
        if (has_b && (!b || b->dtype() != w->dtype())) continue;
        int64_t group = conv.FindAttribute("group") ? conv.FindAttribute("group")->i : 1;
        int64_t m = transpose ? w->dim(1) * group : w->dim(0);
        if (!PerChannel(*c, m, w->rank()) || (b && b->numel() != m)) continue;
        Tensor nb(w->dtype(), {m});
        for (int64_t j = 0; j < m; ++j) {
          double v = c->GetAsDouble(j) + (b ? b->GetAsDouble(j) : 0.0);
          if (w->dtype() == DataType::kFloat) nb.data<float>()[j] = static_cast<float>(v);
          else nb.data<double>()[j] = v;
        }
        Node folded = conv;
        folded.inputs.resize(3);
        folded.inputs[2] = fg.AddInitializer(conv.name + "_bias", std::move(nb));
        folded.outputs = {add.outputs[0]};
        fg.Add(std::move(folded));
        fg.Remove(ai);
        fg.Remove(ci);
        ++fused;
        break;
      }
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConvBiasFusion() { return std::make_unique<ConvBiasFusion>(); }

}  // namespace tessera
