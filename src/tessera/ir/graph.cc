#include "tessera/ir/graph.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_set>

#include "tessera/base/status.h"

namespace tessera {

std::string CanonicalDomain(const std::string& domain) {
  if (domain.empty() || domain == "ai.onnx") return kOnnxDomain;
  return domain;
}

const char* AttributeTypeName(AttributeType t) {
  switch (t) {
    case AttributeType::kFloat: return "float";
    case AttributeType::kInt: return "int";
    case AttributeType::kString: return "string";
    case AttributeType::kTensor: return "tensor";
    case AttributeType::kGraph: return "graph";
    case AttributeType::kFloats: return "floats";
    case AttributeType::kInts: return "ints";
    case AttributeType::kStrings: return "strings";
    case AttributeType::kTensors: return "tensors";
    case AttributeType::kGraphs: return "graphs";
    case AttributeType::kSparseTensor: return "sparse_tensor";
    case AttributeType::kSparseTensors: return "sparse_tensors";
    case AttributeType::kTypeProto: return "type_proto";
    case AttributeType::kTypeProtos: return "type_protos";
    case AttributeType::kUndefined: break;
  }
  return "undefined";
}

const Attribute* Node::FindAttribute(const std::string& attr_name) const {
  for (const auto& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::string Node::Label() const {
  std::string d = domain == kOnnxDomain ? "" : domain + ":";
  return "'" + name + "' (" + d + op_type + ")";
}

void Graph::SortTopologically(const std::vector<std::string>& outer_scope) {
  std::unordered_map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& o : nodes[i].outputs) {
      if (o.empty()) continue;
      if (!producer.emplace(o, i).second)
        TS_THROW(kInvalidModel, "graph '", name, "': value '", o, "' is produced by two nodes (",
                 nodes[producer[o]].Label(), " and ", nodes[i].Label(), ")");
    }
  }
  std::unordered_set<std::string> available(outer_scope.begin(), outer_scope.end());
  for (const auto& in : inputs) available.insert(in.name);
  for (const auto& [n, t] : initializers) available.insert(n);

  // Kahn's algorithm keeping the original order among ready nodes.
  std::vector<int> missing(nodes.size(), 0);
  std::vector<std::vector<size_t>> consumers(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::set<size_t> deps;
    auto need = [&](const std::string& v) {
      if (v.empty()) return;
      auto it = producer.find(v);
      if (it != producer.end()) {
        deps.insert(it->second);
      } else if (!available.count(v)) {
        TS_THROW(kInvalidModel, "graph '", name, "': node ", nodes[i].Label(), " reads '", v,
                 "', which no node produces and which is neither a graph input nor an initializer");
      }
    };
    for (const auto& in : nodes[i].inputs) need(in);
    // Subgraphs may read values of this graph: those are dependencies too.
    for (const auto& a : nodes[i].attributes) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& g : subs) {
        for (const auto& v : g->FreeVariables()) {
          auto it = producer.find(v);
          if (it != producer.end()) deps.insert(it->second);
        }
      }
    }
    deps.erase(i);  // a node reading its own output is caught as a cycle below
    for (const auto& in : nodes[i].inputs)
      if (!in.empty() && producer.count(in) && producer[in] == i)
        TS_THROW(kInvalidModel, "graph '", name, "': node ", nodes[i].Label(), " reads its own output '", in, "'");
    missing[i] = static_cast<int>(deps.size());
    for (size_t d : deps) consumers[d].push_back(i);
  }
  std::vector<size_t> order;
  order.reserve(nodes.size());
  std::vector<size_t> ready;
  for (size_t i = nodes.size(); i-- > 0;)
    if (missing[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    std::vector<size_t> newly;
    for (size_t c : consumers[i])
      if (--missing[c] == 0) newly.push_back(c);
    std::sort(newly.rbegin(), newly.rend());
    // Keep ready as a stack ordered by original index (smallest on top).
    for (size_t c : newly) ready.push_back(c);
    std::sort(ready.rbegin(), ready.rend());
  }
  if (order.size() != nodes.size()) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (missing[i] > 0)
        TS_THROW(kInvalidModel, "graph '", name, "' has a cycle through node ", nodes[i].Label());
  }
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  for (size_t i : order) sorted.push_back(std::move(nodes[i]));
  nodes = std::move(sorted);
}

std::vector<std::string> Graph::FreeVariables() const {
  std::unordered_set<std::string> defined;
  for (const auto& in : inputs) defined.insert(in.name);
  for (const auto& [n, t] : initializers) defined.insert(n);
  for (const auto& node : nodes)
    for (const auto& o : node.outputs) defined.insert(o);
  std::vector<std::string> free;
  std::unordered_set<std::string> seen;
  auto use = [&](const std::string& v) {
    if (!v.empty() && !defined.count(v) && seen.insert(v).second) free.push_back(v);
  };
  for (const auto& node : nodes) {
    for (const auto& in : node.inputs) use(in);
    for (const auto& a : node.attributes) {
      std::vector<std::shared_ptr<Graph>> subs = a.graphs;
      if (a.g) subs.push_back(a.g);
      for (const auto& g : subs)
        for (const auto& v : g->FreeVariables()) use(v);
    }
  }
  for (const auto& o : outputs) use(o.name);
  return free;
}

std::shared_ptr<Graph> Graph::DeepCopy() const {
  auto copy = std::make_shared<Graph>(*this);
  for (auto& node : copy->nodes) {
    for (auto& a : node.attributes) {
      if (a.g) a.g = a.g->DeepCopy();
      for (auto& g : a.graphs) g = g->DeepCopy();
    }
  }
  return copy;
}

const ValueInfo* Graph::FindValueInfo(const std::string& value_name) const {
  for (const auto* list : {&inputs, &outputs, &value_info})
    for (const auto& vi : *list)
      if (vi.name == value_name) return &vi;
  return nullptr;
}

std::string Graph::Summary() const {
  std::ostringstream os;
  os << "graph '" << name << "': " << nodes.size() << " nodes, " << initializers.size() << " initializers\n";
  for (const auto& in : inputs)
    if (!initializers.count(in.name)) os << "  input  " << in.name << ": " << in.type.ToString() << "\n";
  for (const auto& out : outputs) os << "  output " << out.name << ": " << out.type.ToString() << "\n";
  for (const auto& n : nodes) {
    os << "  " << n.Label() << " (";
    for (size_t i = 0; i < n.inputs.size(); ++i) os << (i ? ", " : "") << n.inputs[i];
    os << ") -> (";
    for (size_t i = 0; i < n.outputs.size(); ++i) os << (i ? ", " : "") << n.outputs[i];
    os << ")\n";
  }
  return os.str();
}

int64_t Model::OpsetFor(const std::string& d) const {
  std::string c = CanonicalDomain(d);
  for (const auto& o : opset_imports)
    if (o.domain == c) return o.version;
  return -1;
}

std::string Model::DisplayName() const { return path.empty() ? std::string("<model bytes>") : path; }

}  // namespace tessera
