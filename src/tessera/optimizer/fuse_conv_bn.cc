// ConvBnFold: Conv -> BatchNormalization (inference) becomes one Conv whose
// weights and bias absorb the normalization. Per output channel m:
//   s = scale[m] / sqrt(var[m] + eps);  W'[m] = W[m] * s;  B'[m] = (B[m] - mean[m]) * s + bias[m]
// Also for ConvTranspose, whose output channel m lives in W[c, m % (M/g)].
// Fires only with constant float/double weights and BN parameters, a Conv
// output read by the BN alone, and a BN in inference mode with one output.
#include <cmath>

#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetAsDouble(i);
  return v;
}

Tensor FromDoubles(DataType dtype, const Shape& shape, const std::vector<double>& v) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DataType::kFloat) t.data<float>()[i] = static_cast<float>(v[static_cast<size_t>(i)]);
    else t.data<double>()[i] = v[static_cast<size_t>(i)];
  }
  return t;
}

class ConvBnFold final : public GraphPass {
 public:
  std::string name() const override { return "ConvBnFold"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int bi = 0; bi < static_cast<int>(fg.size()); ++bi) {
      if (!fg.Is(bi, "BatchNormalization") || !fg.OnTarget(bi)) continue;
      const Node& bn = fg.node(bi);
      if (bn.inputs.size() != 5 || AttrInt(bn, "training_mode", 0) != 0 || AttrInt(bn, "spatial", 1) != 1) continue;
      bool extra_outputs = false;
      for (size_t o = 1; o < bn.outputs.size(); ++o) extra_outputs = extra_outputs || !bn.outputs[o].empty();
      if (extra_outputs) continue;
      int ci = fg.ProducerOp(bn.inputs[0], "Conv");
      bool transpose = false;
      if (ci < 0) {
        ci = fg.ProducerOp(bn.inputs[0], "ConvTranspose");
        transpose = ci >= 0;
      }
      if (ci < 0 || !fg.OnTarget(ci) || !fg.SingleUse(bn.inputs[0])) continue;
      const Node& conv = fg.node(ci);
      if (conv.inputs.size() < 2) continue;
      const Tensor* w = fg.Constant(conv.inputs[1]);
      const Tensor* b = conv.inputs.size() > 2 && !conv.inputs[2].empty() ? fg.Constant(conv.inputs[2]) : nullptr;
      if (!w || !IsFloatOrDouble(w->dtype()) || w->rank() < 3) continue;
      if (conv.inputs.size() > 2 && !conv.inputs[2].empty() && (!b || b->dtype() != w->dtype())) continue;
      const Tensor* p[4];
      bool ok = true;
      for (size_t k = 0; k < 4; ++k) {
        p[k] = fg.Constant(bn.inputs[k + 1]);
        ok = ok && p[k] && p[k]->dtype() == w->dtype();
      }
      if (!ok) continue;
      int64_t group = AttrInt(conv, "group", 1);
      int64_t m = transpose ? w->dim(1) * group : w->dim(0);
      if (group < 1 || (transpose && w->dim(0) % group != 0)) continue;
      for (size_t k = 0; k < 4; ++k) ok = ok && p[k]->numel() == m;
      if (!ok || (b && b->numel() != m)) continue;

      const Attribute* eps_attr = bn.FindAttribute("epsilon");
      double eps = eps_attr ? eps_attr->f : 1e-5;
      std::vector<double> scale = ToDoubles(*p[0]), bias = ToDoubles(*p[1]), mean = ToDoubles(*p[2]),
                          var = ToDoubles(*p[3]);
      std::vector<double> s(static_cast<size_t>(m)), nb(static_cast<size_t>(m));
      std::vector<double> ob = b ? ToDoubles(*b) : std::vector<double>(static_cast<size_t>(m), 0.0);
      for (size_t j = 0; j < static_cast<size_t>(m); ++j) {
        s[j] = scale[j] / std::sqrt(var[j] + eps);
        nb[j] = (ob[j] - mean[j]) * s[j] + bias[j];
      }
      std::vector<double> wv = ToDoubles(*w);
      int64_t ksize = 1;
      for (int64_t d = 2; d < w->rank(); ++d) ksize *= w->dim(d);
      int64_t d0 = w->dim(0), d1 = w->dim(1);
      for (int64_t i = 0; i < d0; ++i)
        for (int64_t j = 0; j < d1; ++j) {
          int64_t oc = transpose ? (i / (d0 / group)) * d1 + j : i;
          double f = s[static_cast<size_t>(oc)];
          double* wp = wv.data() + (i * d1 + j) * ksize;
          for (int64_t k = 0; k < ksize; ++k) wp[k] *= f;
        }

      Node folded = conv;
      folded.name = conv.name;
      folded.inputs.resize(3);
      folded.inputs[1] = fg.AddInitializer(conv.inputs[1] + "_bnfold", FromDoubles(w->dtype(), w->shape(), wv));
      folded.inputs[2] = fg.AddInitializer(conv.name + "_bnfold_bias", FromDoubles(w->dtype(), {m}, nb));
      folded.outputs = {bn.outputs[0]};
      fg.Add(std::move(folded));
      fg.Remove(bi);
      fg.Remove(ci);
      ++fused;
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConvBnFold() { return std::make_unique<ConvBnFold>(); }

}  // namespace tessera
