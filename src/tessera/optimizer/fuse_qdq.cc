// QdqPairRemoval: QuantizeLinear(DequantizeLinear(q, s, z), s', z') with the
// same constant scale, zero point (values and type), axis and block size is
// the identity on q for 8- and 16-bit integer types: (q - z) * s / s rounds
// back to q - z exactly. Readers of the QuantizeLinear output read q instead;
// the DequantizeLinear goes too when nothing else reads it.
#include "tessera/optimizer/fuse_util.h"
#include "tessera/optimizer/fusion_passes.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

bool SmallInt(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUInt8 || t == DataType::kInt16 || t == DataType::kUInt16;
}

class QdqPairRemoval final : public GraphPass {
 public:
  std::string name() const override { return "QdqPairRemoval"; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override {
    FusionGraph fg(graph, outer, ctx, providers());
    int removed = 0;
    for (int qi = 0; qi < static_cast<int>(fg.size()); ++qi) {
      if (!fg.Is(qi, "QuantizeLinear") || !fg.OnTarget(qi)) continue;
      const Node& qn = fg.node(qi);
      int di = fg.ProducerOp(qn.inputs[0], "DequantizeLinear");
      if (di < 0 || !fg.OnTarget(di)) continue;
      const Node& dn = fg.node(di);
      if (qn.inputs.size() < 2 || dn.inputs.size() < 2) continue;
      const Tensor* s1 = fg.Constant(dn.inputs[1]);
      const Tensor* s2 = fg.Constant(qn.inputs[1]);
      if (!s1 || !s2 || !SameValues(*s1, *s2)) continue;
      bool z1_given = dn.inputs.size() > 2 && !dn.inputs[2].empty();
      bool z2_given = qn.inputs.size() > 2 && !qn.inputs[2].empty();
      if (z1_given != z2_given) continue;
      if (z1_given) {
        const Tensor* z1 = fg.Constant(dn.inputs[2]);
        const Tensor* z2 = fg.Constant(qn.inputs[2]);
        if (!z1 || !z2 || !SameValues(*z1, *z2)) continue;
      }
      // q's type: the zero point's, else DequantizeLinear's input's.
      DataType qt = z1_given ? fg.ElemType(dn.inputs[2]) : fg.ElemType(dn.inputs[0]);
      if (!SmallInt(qt) || fg.ElemType(dn.inputs[0]) != qt) continue;
      // Without a zero point QuantizeLinear emits uint8 (or output_dtype).
      int64_t out_dtype = AttrInt(qn, "output_dtype", 0);
      if (out_dtype != 0 && out_dtype != static_cast<int64_t>(qt)) continue;
      if (!z2_given && out_dtype == 0 && qt != DataType::kUInt8) continue;
      if (AttrInt(dn, "axis", 1) != AttrInt(qn, "axis", 1) || AttrInt(dn, "block_size", 0) != AttrInt(qn, "block_size", 0))
        continue;
      if (AttrInt(qn, "saturate", 1) != 1) continue;
      std::string q = dn.inputs[0], out = qn.outputs[0], mid = qn.inputs[0];
      if (!fg.editor().Forward(out, q)) continue;
      fg.Remove(qi);
      if (fg.editor().UseCount(mid) == 0) fg.Remove(di);
      ++removed;
    }
    if (removed) fg.Commit();
    return removed;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeQdqPairRemoval() { return std::make_unique<QdqPairRemoval>(); }

}  // namespace tessera
