#include "tessera/quantization/quant_graph.h"

#include <algorithm>

#include "tessera/base/status.h"

namespace tessera::quant {

namespace {
bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

std::string NodeDisplayName(const Node& node) {
  if (!node.name.empty()) return node.name;
  return node.outputs.empty() ? node.op_type : node.outputs[0];
}

std::string SelectionRefusal(const Node& node, const QuantizeOptions& o) {
  if (node.domain != kOnnxDomain) return "not an ai.onnx op";
  const auto& types = o.op_types_to_quantize.empty() ? SupportedOpTypes(o.mode) : o.op_types_to_quantize;
  if (!Contains(types, node.op_type)) {
    return Contains(SupportedOpTypes(o.mode), node.op_type) ? "op type not in op_types_to_quantize"
                                                             : "no quantization rule for this op type";
  }
  if (Contains(o.op_types_to_exclude, node.op_type)) return "op type excluded";
  const std::string name = NodeDisplayName(node);
  if (Contains(o.nodes_to_exclude, node.name) || Contains(o.nodes_to_exclude, name)) return "excluded by name";
  if (!o.nodes_to_quantize.empty() && !Contains(o.nodes_to_quantize, node.name) &&
      !Contains(o.nodes_to_quantize, name))
    return "not in nodes_to_quantize";
  return "";
}

NameAllocator::NameAllocator(const Graph& g) {
  for (const auto& v : g.inputs) used_.insert(v.name);
  for (const auto& v : g.outputs) used_.insert(v.name);
  for (const auto& [name, t] : g.initializers) used_.insert(name);
  for (const auto& n : g.nodes) {
    for (const auto& s : n.inputs) used_.insert(s);
    for (const auto& s : n.outputs) used_.insert(s);
  }
}

std::string NameAllocator::Fresh(const std::string& base) {
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

std::map<std::string, std::vector<size_t>> ConsumersOf(const Graph& g) {
  std::map<std::string, std::vector<size_t>> out;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) out[in].push_back(i);
  return out;
}

const Tensor* ConstantInitializer(const Graph& g, const std::string& name) {
  if (name.empty()) return nullptr;
  auto it = g.initializers.find(name);
  if (it == g.initializers.end()) return nullptr;
  for (const auto& in : g.inputs)
    if (in.name == name) return nullptr;
  return &it->second;
}

bool IsGraphOutput(const Graph& g, const std::string& name) {
  return std::any_of(g.outputs.begin(), g.outputs.end(), [&](const ValueInfo& v) { return v.name == name; });
}

int64_t AttrIntOr(const Node& node, const std::string& name, int64_t fallback) {
  const Attribute* a = node.FindAttribute(name);
  return a && a->type == AttributeType::kInt ? a->i : fallback;
}

float AttrFloatOr(const Node& node, const std::string& name, float fallback) {
  const Attribute* a = node.FindAttribute(name);
  return a && a->type == AttributeType::kFloat ? a->f : fallback;
}

void DropUnusedInitializers(Graph& g, const std::set<std::string>& candidates) {
  std::set<std::string> used;
  for (const auto& n : g.nodes) {
    for (const auto& s : n.inputs) used.insert(s);
    for (const auto& a : n.attributes) {
      if (a.g)
        for (const auto& f : a.g->FreeVariables()) used.insert(f);
      for (const auto& sub : a.graphs)
        for (const auto& f : sub->FreeVariables()) used.insert(f);
    }
  }
  for (const auto& o : g.outputs) used.insert(o.name);
  for (const auto& c : candidates)
    if (!used.count(c)) g.initializers.erase(c);
}

void RequireOpset(const Model& model, int64_t needed, const std::string& what) {
  const int64_t have = model.OpsetFor(kOnnxDomain);
  TS_CHECK(have >= needed, kOpsetMismatch, "model '", model.DisplayName(), "' imports ai.onnx opset ", have, "; ",
           what, " needs opset ", needed, " or later (re-export the model at opset ", needed, "+)");
}

}  // namespace tessera::quant
