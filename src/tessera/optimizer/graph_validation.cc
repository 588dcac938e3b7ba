#include "tessera/optimizer/graph_validation.h"

#include <unordered_set>

#include "tessera/base/status.h"

namespace tessera {

std::vector<std::string> ScopeForSubgraphs(const Graph& graph, const std::vector<std::string>& outer_scope) {
  std::vector<std::string> scope = outer_scope;
  for (const auto& in : graph.inputs) scope.push_back(in.name);
  for (const auto& [name, t] : graph.initializers) scope.push_back(name);
  for (const auto& n : graph.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) scope.push_back(o);
  return scope;
}

void ValidateGraph(const Graph& graph, const std::vector<std::string>& outer_scope, const std::string& pass) {
  auto fail = [&](const std::string& why) {
    TS_THROW(kInternal, "graph optimizer: after pass ", pass, ", graph '", graph.name, "' is invalid: ", why);
  };
  std::unordered_set<std::string> outer(outer_scope.begin(), outer_scope.end());
  std::unordered_set<std::string> defined;  // defined so far in node order
  std::unordered_set<std::string> produced;
  for (const auto& in : graph.inputs)
    if (!defined.insert(in.name).second) fail("input '" + in.name + "' is declared twice");
  for (const auto& [name, t] : graph.initializers) defined.insert(name);  // may double as an input's default
  std::unordered_set<std::string> any_node_output;
  for (const auto& n : graph.nodes)
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (defined.count(o)) fail("node " + n.Label() + " produces '" + o + "', which is also a graph input or initializer");
      any_node_output.insert(o);
    }
  for (const auto& n : graph.nodes) {
    for (const auto& in : n.inputs) {
      if (in.empty() || defined.count(in) || outer.count(in)) continue;
      fail("node " + n.Label() + " reads '" + in + "', which is " +
           (any_node_output.count(in) ? "produced later (not topologically sorted)" : "not defined"));
    }
    for (const auto& a : n.attributes) {
      std::vector<const Graph*> subs;
      if (a.g) subs.push_back(a.g.get());
      for (const auto& g : a.graphs)
        if (g) subs.push_back(g.get());
      for (const Graph* sub : subs) {
        for (const auto& v : sub->FreeVariables())
          if (!defined.count(v) && !outer.count(v))
            fail("subgraph '" + sub->name + "' of node " + n.Label() + " reads '" + v + "', which is not defined before it");
        std::vector<std::string> scope(outer_scope);
        scope.insert(scope.end(), defined.begin(), defined.end());
        ValidateGraph(*sub, scope, pass);
      }
    }
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      if (!produced.insert(o).second) fail("'" + o + "' has more than one producer (again by node " + n.Label() + ")");
      defined.insert(o);
    }
  }
  for (const auto& out : graph.outputs)
    if (!defined.count(out.name) && !outer.count(out.name)) fail("output '" + out.name + "' is not defined");
}

}  // namespace tessera
