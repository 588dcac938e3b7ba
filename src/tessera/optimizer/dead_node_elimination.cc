// DeadNodeElimination (basic, any provider): nodes none of whose outputs is
// read (by a node, a subgraph or as a graph output) are removed, and so are
// initializers nothing reads. ONNX operators have no side effects, so an
// unread result is never needed.
#include "tessera/optimizer/basic_passes.h"
#include "tessera/optimizer/graph_editor.h"

namespace tessera {

namespace {

class DeadNodeElimination final : public GraphPass {
 public:
  std::string name() const override { return "DeadNodeElimination"; }
  OptimizationLevel level() const override { return OptimizationLevel::kBasic; }

  int Apply(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx) const override {
    GraphEditor editor(graph, outer_scope);
    int removed = 0;
    // Consumers before producers (the graph is sorted), so a dead chain goes
    // in one sweep.
    for (int i = static_cast<int>(editor.size()) - 1; i >= 0; --i) {
      const Node& n = editor.node(i);
      bool used = false;
      for (const auto& o : n.outputs) used |= !o.empty() && editor.UseCount(o) > 0;
      if (used || !ctx.AppliesTo(n)) continue;
      editor.RemoveNode(i);
      ++removed;
    }
    for (const auto& [name, t] : graph.initializers)
      if (editor.UseCount(name) == 0 && !editor.IsGraphInput(name)) ++removed;  // Commit drops them
    if (removed) editor.Commit();
    return removed;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeDeadNodeElimination() { return std::make_unique<DeadNodeElimination>(); }

}  // namespace tessera
