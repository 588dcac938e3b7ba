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
// With types, runs of consecutive nodes then go through
// ReassignArithmeticFreeRuns.
std::vector<NodeAssignment> AssignNodes(const Model& model, const Graph& graph, const ProviderList& providers,
                                        const GraphTypes* types = nullptr);

// A run of consecutive nodes (the graph's order, as partitions form) that a
// partition-compiling provider on host memory claimed, but that does no
// arithmetic (Squeeze, Concat, Reshape...: EstimateFlops 0), goes to the
// first lower-priority host provider claiming all of it (the CPU EP). As a
// partition of its own it would add a kernel call, a hand-off between
// thread pools and layout conversions, and save nothing: lstm_2x512's
// Squeeze and Concats between its CPU LSTMs cost 10% at 2 threads on oneDNN.
// Each moved node's `declined` says why.
void ReassignArithmeticFreeRuns(const Model& model, const Graph& graph, const ProviderList& providers,
                                const GraphTypes& types, std::vector<NodeAssignment>& assignment);

}  // namespace tessera
