// TransposeMatMulFusion: a Transpose that swaps the last two axes, read only
// by a MatMul or Gemm operand, becomes the operand's transpose flag:
//   Gemm(Transpose(A, [1,0]), B)             => Gemm(A, B, transA = !transA)  (any provider)
//   MatMul / FusedMatMul (Transpose(A, ..)) => ai.tessera:FusedMatMul(A, .., transA = 1)  (cpu)
// The GEMM reads the untransposed data directly: no transposed copy is made.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool SwapsLastTwo(const std::vector<int64_t>& perm) {
  size_t r = perm.size();
  if (r < 2) return false;
  for (size_t i = 0; i + 2 < r; ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

void SetIntAttr(Node& n, const std::string& name, int64_t v) {
  for (auto& a : n.attributes)
    if (a.name == name) {
      a.type = AttributeType::kInt;
      a.i = v;
      return;
    }
  n.attributes.push_back(IntAttr(name, v));
}

class TransposeMatMulFusion final : public GraphPass {
 public:
  std::string name() const override { return "TransposeMatMulFusion"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int fused = 0;
    for (int mi = 0; mi < static_cast<int>(fg.size()); ++mi) {
      if (!fg.live(mi) || !fg.OnTarget(mi)) continue;
      const Node& mm = fg.node(mi);
      bool gemm = fg.Is(mi, "Gemm");
      bool matmul = fg.Is(mi, "MatMul");
      bool fused_mm = mm.domain == kTesseraDomain && mm.op_type == "FusedMatMul";
      if (!(gemm || matmul || fused_mm) || mm.inputs.size() < 2) continue;
      if ((matmul || fused_mm) && ctx.ProviderOf(mm) != "cpu") continue;
      for (size_t slot = 0; slot < 2; ++slot) {
        const Node& cur = fg.node(mi);
        int ti = fg.ProducerOp(cur.inputs[slot], "Transpose");
        if (ti < 0 || !fg.SingleUse(cur.inputs[slot]) || !fg.OnTarget(ti)) continue;
        auto perm = AttrInts(fg.node(ti), "perm");
        if (!perm) {
          // Default perm reverses the axes: a last-two swap only for rank 2.
          auto r = fg.Rank(fg.node(ti).inputs[0]);
          if (!r || *r != 2) continue;
          perm = std::vector<int64_t>{1, 0};
        }
        if (!SwapsLastTwo(*perm)) continue;
        if (gemm && perm->size() != 2) continue;
        DataType dt = fg.ElemType(cur.inputs[1 - slot]);
        if (dt == DataType::kUndefined) dt = fg.ElemType(fg.node(ti).inputs[0]);
        if (!gemm && !IsFloatOrDouble(dt)) continue;
        if (gemm && fg.OnnxOpset() < 11) continue;
        Node n = cur;
        const char* flag = slot == 0 ? "transA" : "transB";
        n.inputs[slot] = fg.node(ti).inputs[0];
        if (matmul) {
          n.op_type = "FusedMatMul";
          n.domain = kTesseraDomain;
        }
        SetIntAttr(n, flag, AttrInt(cur, flag, 0) != 0 ? 0 : 1);
        fg.Add(std::move(n));
        fg.Remove(mi);
        fg.Remove(ti);
        ++fused;
        break;
      }
    }
    if (fused) fg.Commit();
    return fused;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeTransposeMatMulFusion() { return std::make_unique<TransposeMatMulFusion>(); }

}  // namespace tessera
