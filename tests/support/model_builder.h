// Builds small models in memory for runtime tests.
#pragma once

#include <string>
#include <vector>

#include "tessera/ir/graph.h"

namespace tessera::test {

inline ValueInfo TensorInfo(const std::string& name, DataType t, std::vector<int64_t> dims) {
  std::vector<Dim> d;
  for (int64_t x : dims) d.push_back(x < 0 ? Dim::Symbol("n") : Dim::Known(x));
  return ValueInfo{name, TypeInfo::Tensor(t, d), ""};
}

inline Node MakeNode(const std::string& name, const std::string& op, std::vector<std::string> in,
                     std::vector<std::string> out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

inline Model MakeModel(std::vector<Node> nodes, std::vector<ValueInfo> inputs, std::vector<ValueInfo> outputs,
                       int64_t opset = 17) {
  Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({kOnnxDomain, opset});
  m.graph = std::make_shared<Graph>();
  m.graph->name = "test_graph";
  m.graph->nodes = std::move(nodes);
  m.graph->inputs = std::move(inputs);
  m.graph->outputs = std::move(outputs);
  return m;
}

}  // namespace tessera::test
