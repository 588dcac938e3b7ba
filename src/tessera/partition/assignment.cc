#include "tessera/partition/assignment.h"

#include <algorithm>
#include <sstream>

#include "tessera/base/status.h"
#include "tessera/ops/flop_estimate.h"

namespace tessera {

std::vector<NodeAssignment> AssignNodes(const Model& model, const Graph& graph, const ProviderList& providers,
                                        const GraphTypes* types) {
  std::vector<NodeAssignment> result;
  result.reserve(graph.nodes.size());
  for (const Node& node : graph.nodes) {
    int64_t opset = model.OpsetFor(node.domain);
    if (opset < 0)
      TS_THROW(kInvalidModel, "model '", model.DisplayName(), "': node ", node.Label(), " uses domain '", node.domain,
               "', which the model does not import (add an opset_import for it)");
    NodeAssignment a;
    bool found = false;
    bool opset_problem = false;
    for (size_t p = 0; p < providers.size(); ++p) {
      Claim c = providers[p]->Capability(NodeQuery{node, opset, types});
      if (c.claimed()) {
        a.provider_index = p;
        a.row = c.row;
        found = true;
        break;
      }
      if (providers[p]->kernels().HasOp(node.domain, node.op_type)) opset_problem = true;
      a.declined.push_back(providers[p]->name() + ": " + c.reason);
    }
    if (!found) {
      std::ostringstream os;
      os << "model '" << model.DisplayName() << "': node " << node.Label() << " (" << node.domain << " opset " << opset
         << ") cannot run: ";
      for (size_t i = 0; i < a.declined.size(); ++i) os << (i ? "; " : "") << a.declined[i];
      throw Error(opset_problem ? StatusCode::kOpsetMismatch : StatusCode::kNotImplemented, os.str());
    }
    result.push_back(std::move(a));
  }
  if (types != nullptr) ReassignArithmeticFreeRuns(model, graph, providers, *types, result);
  return result;
}

void ReassignArithmeticFreeRuns(const Model& model, const Graph& graph, const ProviderList& providers,
                                const GraphTypes& types, std::vector<NodeAssignment>& assignment) {
  const size_t n = std::min(graph.nodes.size(), assignment.size());
  for (size_t begin = 0; begin < n;) {
    const size_t p = assignment[begin].provider_index;
    size_t end = begin + 1;
    while (end < n && assignment[end].provider_index == p) ++end;
    const ExecutionProvider& ep = *providers[p];
    bool movable = ep.CompilesPartitions() && ep.memory_space() == "host";
    for (size_t i = begin; movable && i < end; ++i) movable = EstimateFlops(graph.nodes[i], types) == 0;
    // The first lower-priority provider on host memory that claims the whole run.
    std::vector<const KernelRow*> rows;
    size_t target = p;
    for (size_t q = p + 1; movable && q < providers.size() && target == p; ++q) {
      if (providers[q]->memory_space() != "host") continue;
      rows.clear();
      for (size_t i = begin; i < end; ++i) {
        Claim c = providers[q]->Capability(NodeQuery{graph.nodes[i], model.OpsetFor(graph.nodes[i].domain), &types});
        if (!c.claimed()) break;
        rows.push_back(c.row);
      }
      if (rows.size() == end - begin) target = q;
    }
    if (target != p) {
      const std::string why = ep.name() + ": claimed, but as a partition of its own (" + std::to_string(end - begin) +
                              " node(s)) it would only move data; left to " + providers[target]->name();
      for (size_t i = begin; i < end; ++i) {
        NodeAssignment& a = assignment[i];
        a.provider_index = target;
        a.row = rows[i - begin];
        a.declined.push_back(why);
      }
    }
    begin = end;
  }
}

}  // namespace tessera
