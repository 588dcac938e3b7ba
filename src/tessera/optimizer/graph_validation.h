// Structural check of a graph after a pass: every read value is defined,
// every value has one definition, and the nodes are in topological order.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/graph.h"

namespace tessera {

// Checks `graph` and its subgraphs (recursively, each with the values of its
// enclosing graphs in scope). Throws kInternal naming `pass`, the graph, the
// node and the value at fault.
void ValidateGraph(const Graph& graph, const std::vector<std::string>& outer_scope, const std::string& pass);

// Every name a subgraph of `graph` may read from outside itself: the outer
// scope of `graph` plus everything `graph` defines.
std::vector<std::string> ScopeForSubgraphs(const Graph& graph, const std::vector<std::string>& outer_scope);

}  // namespace tessera
