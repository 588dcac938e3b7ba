#include "tessera/partition/assignment.h"

#include <sstream>

#include "tessera/base/status.h"

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
  return result;
}

}  // namespace tessera
