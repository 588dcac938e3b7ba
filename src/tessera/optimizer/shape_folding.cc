// ShapeFolding (basic, any provider): Shape and Size of a value whose shape
// is statically known become initializers. The arithmetic usually built on
// them (Gather, Concat, Mul...) then folds in ConstantFolding.
#include <algorithm>

#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/pass_util.h"

namespace tessera {

namespace {

class ShapeFolding final : public GraphPass {
 public:
  std::string name() const override { return "ShapeFolding"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    bool any = false;
    for (const auto& n : graph.nodes) any |= IsOp(n, "Shape") || IsOp(n, "Size");
    if (!any) return 0;
    auto types = InferTrustedTypes(graph, ctx.in_subgraph, ctx);
    GraphEditor editor(graph, outer_scope);
    int folded = 0;
    for (int i = 0; i < static_cast<int>(editor.size()); ++i) {
      const Node& n = editor.node(i);
      bool is_shape = IsOp(n, "Shape"), is_size = IsOp(n, "Size");
      if (!(is_shape || is_size) || n.inputs.empty() || n.outputs.empty() || n.outputs[0].empty()) continue;
      if (!ctx.AppliesTo(n)) continue;
      auto shape = StaticShapeOf(types, n.inputs[0]);
      if (!shape) continue;
      Tensor value;
      if (is_shape) {
        int64_t rank = static_cast<int64_t>(shape->size());
        int64_t start = AttrInt(n, "start", 0), end = AttrInt(n, "end", rank);
        if (start < 0) start += rank;
        if (end < 0) end += rank;
        start = std::clamp<int64_t>(start, 0, rank);
        end = std::clamp<int64_t>(end, start, rank);
        std::vector<int64_t> dims(shape->begin() + start, shape->begin() + end);
        value = Tensor::FromVector<int64_t>(dims, {static_cast<int64_t>(dims.size())});
      } else {
        int64_t count = 1;
        bool overflow = false;
        for (int64_t d : *shape) overflow |= __builtin_mul_overflow(count, d, &count);
        if (overflow) continue;  // the kernel reports it at run time
        value = Tensor::Scalar<int64_t>(count);
      }
      std::string out = n.outputs[0];
      editor.RemoveNode(i);
      graph.initializers[out] = std::move(value);
      ++folded;
    }
    if (folded) editor.Commit();
    return folded;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeShapeFolding() { return std::make_unique<ShapeFolding>(); }

}  // namespace tessera
