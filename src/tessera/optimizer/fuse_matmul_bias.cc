// MatMulBiasFusion: a constant bias Add after MatMul or Gemm.
//   Gemm(A, B) (no C) -> Add(c)          => Gemm(A, B, c / beta)      (any provider)
//   MatMul(A, B), A and B 2-D -> Add(c)  => Gemm(A, B, c)             (any provider)
//   MatMul(A, B), other ranks -> Add(c)  => ai.tessera:FusedMatMul(A, B, c)  (cpu, dnnl)
// c must be a vector over the last output axis: N values, every other axis 1,
// and no more axes than the product (so the Add does not broadcast it up).
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

// Whether c is N values along the last axis only, for an output of rank r.
bool RowVector(const Tensor& c, int64_t n, std::optional<int64_t> r) {
  if (c.rank() < 1 || c.dim(c.rank() - 1) != n || c.numel() != n) return false;
  return r && c.rank() <= *r;
}

class MatMulBiasFusion final : public GraphPass {
 public:
  std::string name() const override { return "MatMulBiasFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int ai = 0; ai < static_cast<int>(fg.size()); ++ai) {
      if (!fg.Is(ai, "Add") || !fg.OnTarget(ai) || fg.node(ai).inputs.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        const Node& add = fg.node(ai);
        std::string y = add.inputs[static_cast<size_t>(side)];
        std::string cname = add.inputs[static_cast<size_t>(1 - side)];
        const Tensor* c = fg.Constant(cname);
        if (!c || !fg.SingleUse(y)) continue;
        int mi = fg.ProducerOp(y, "MatMul");
        int gi = fg.ProducerOp(y, "Gemm");
        int pi = mi >= 0 ? mi : gi;
        if (pi < 0 || !fg.OnTarget(pi)) continue;
        Node prod = fg.node(pi);
        if (prod.inputs.size() < 2) continue;
        DataType dt = fg.ElemType(prod.inputs[1]);
        if (dt == DataType::kUndefined) dt = fg.ElemType(prod.inputs[0]);
        if (c->dtype() != dt || !IsFloatOrDouble(dt)) continue;
        auto ra = fg.Rank(prod.inputs[0]), rb = fg.Rank(prod.inputs[1]);
        const TypeInfo* bt = fg.Type(prod.inputs[1]);
        const Tensor* bconst = fg.Constant(prod.inputs[1]);
        int64_t n = -1;
        if (bconst && bconst->rank() >= 2) {
          n = bconst->dim(bconst->rank() - 1);
          if (gi >= 0 && AttrInt(prod, "transB", 0) != 0) n = bconst->dim(0);
        } else if (bt && bt->shape && bt->shape->size() >= 2) {
          const Dim& d = gi >= 0 && AttrInt(prod, "transB", 0) != 0 ? bt->shape->front() : bt->shape->back();
          n = d.known() ? d.value : -1;
        }
        if (n < 0) continue;
        Node out;
        out.name = prod.name;
        out.outputs = {add.outputs[0]};
        if (gi >= 0) {
          // Gemm: C is optional from opset 11; broadcast semantics from 7.
          if ((prod.inputs.size() > 2 && !prod.inputs[2].empty()) || fg.OnnxOpset() < 11) continue;
          if (!RowVector(*c, n, std::optional<int64_t>(2))) continue;
          const Attribute* beta_attr = prod.FindAttribute("beta");
          double beta = beta_attr ? beta_attr->f : 1.0;
          if (beta == 0.0) continue;
          Tensor cv(dt, {n});
          for (int64_t j = 0; j < n; ++j) {
            double v = c->GetAsDouble(j) / beta;
            if (dt == DataType::kFloat) cv.data<float>()[j] = static_cast<float>(v);
            else cv.data<double>()[j] = v;
          }
          out = prod;
          out.outputs = {add.outputs[0]};
          out.inputs.resize(3);
          out.inputs[2] = fg.AddInitializer(prod.name + "_bias", std::move(cv));
        } else {
          if (!ra || !rb || *ra < 1 || *rb < 2) continue;
          // A vector A loses its row axis in the product.
          int64_t out_rank = *ra == 1 ? *rb - 1 : std::max(*ra, *rb);
          if (!RowVector(*c, n, std::optional<int64_t>(out_rank))) continue;
          std::string bias = cname;
          if (c->rank() != 1) bias = fg.AddInitializer(cname + "_vec", c->Reshaped({n}));
          if (*ra == 2 && *rb == 2 && fg.OnnxOpset() >= 11) {
            out.op_type = "Gemm";
            out.domain = kOnnxDomain;
          } else {
            // The providers with a FusedMatMul kernel.
            const std::string provider = ctx.ProviderOf(prod);
            if (!fg.OnTarget(ai) || (provider != "cpu" && provider != "dnnl")) continue;
            out.op_type = "FusedMatMul";
            out.domain = kTesseraDomain;
          }
          out.inputs = {prod.inputs[0], prod.inputs[1], bias};
        }
        fg.Add(std::move(out));
        fg.Remove(ai);
        fg.Remove(pi);
        ++fused;
        break;
      }
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeMatMulBiasFusion() { return std::make_unique<MatMulBiasFusion>(); }

}  // namespace tessera
