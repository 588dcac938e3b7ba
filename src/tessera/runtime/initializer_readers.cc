#include "tessera/runtime/initializer_readers.h"

namespace tessera {

InitializerReaders::InitializerReaders(const Graph& graph) {
  for (const auto& node : graph.nodes) {
    for (const auto& in : node.inputs)
      if (!in.empty() && graph.initializers.count(in)) ++pending_[in];
    for (const auto& a : node.attributes) {
      if (a.g)
        for (const auto& name : a.g->FreeVariables()) kept_.insert(name);
      for (const auto& g : a.graphs)
        for (const auto& name : g->FreeVariables()) kept_.insert(name);
    }
  }
  for (const auto& in : graph.inputs) kept_.insert(in.name);  // a feed may override it
  for (const auto& out : graph.outputs) kept_.insert(out.name);
}

std::vector<std::string> InitializerReaders::KernelCreated(const Node& node, const OpKernel* kernel) {
  std::vector<std::string> released;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    auto it = pending_.find(node.inputs[k]);
    if (it == pending_.end()) continue;
    if (kernel == nullptr || kernel->ReadsInput(k)) kept_.insert(it->first);
    // A node naming the same initializer twice counts once per input.
    if (--it->second == 0) {
      if (!kept_.count(it->first)) released.push_back(it->first);
      pending_.erase(it);
    }
  }
  return released;
}

}  // namespace tessera
