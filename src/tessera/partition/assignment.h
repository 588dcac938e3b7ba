// Assigns every node of a graph to the first provider (in priority order)
// that claims it.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/partition/execution_provider.h"

namespace tessera {

struct NodeAssignment {
  size_t provider_index = 0;
  const KernelRow* row = nullptr;
  std::vector<std::string> declined;  // "<ep>: <reason>" for each higher-priority EP that declined
};

// Throws kNotImplemented / kOpsetMismatch naming the node, its op and opset,
// and why each provider declined it, when no provider claims a node.
// types: static types and constants of the graph's values, for capability
// queries that look at dtypes and shapes (may be null).
std::vector<NodeAssignment> AssignNodes(const Model& model, const Graph& graph, const ProviderList& providers,
                                        const GraphTypes* types = nullptr);

}  // namespace tessera
