// Builds small models in memory for runtime tests.
#pragma once

#include <memory>
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

// Attributes for hand-built nodes.
inline Attribute IntAttr(const std::string& name, int64_t v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kInt;
  a.i = v;
  return a;
}

inline Attribute IntsAttr(const std::string& name, std::vector<int64_t> v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kInts;
  a.ints = std::move(v);
  return a;
}

inline Attribute FloatAttr(const std::string& name, float v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kFloat;
  a.f = v;
  return a;
}

inline Attribute StringAttr(const std::string& name, std::string v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kString;
  a.s = std::move(v);
  return a;
}

inline Attribute TensorAttr(const std::string& name, Tensor t) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kTensor;
  a.t = std::move(t);
  return a;
}

inline Attribute GraphAttr(const std::string& name, std::shared_ptr<Graph> g) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kGraph;
  a.g = std::move(g);
  return a;
}

inline Attribute StrAttr(const std::string& name, const std::string& v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kString;
  a.s = v;
  return a;
}

inline Attribute FloatsAttr(const std::string& name, std::vector<float> v) {
  Attribute a;
  a.name = name;
  a.type = AttributeType::kFloats;
  a.floats = std::move(v);
  return a;
}

}  // namespace tessera::test
