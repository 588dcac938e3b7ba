#include "tessera/optimizer/graph_editor.h"

#include <algorithm>

#include "tessera/base/status.h"

namespace tessera {

namespace {

template <typename F>
void ForEachSubgraph(Node& node, F&& f) {
  for (auto& a : node.attributes) {
    if (a.g) f(*a.g);
    for (auto& g : a.graphs)
      if (g) f(*g);
  }
}

bool Defines(const Graph& g, const std::string& name) {
  for (const auto& in : g.inputs)
    if (in.name == name) return true;
  if (g.initializers.count(name)) return true;
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs)
      if (o == name) return true;
  return false;
}

// Renames reads of the outer value `from` inside a subgraph and its nested
// subgraphs. A subgraph that defines the name itself (older models shadow
// outer names with body inputs) reads its own value: left alone.
void RenameInSubgraph(Graph& g, const std::string& from, const std::string& to) {
  if (Defines(g, from)) return;
  for (auto& n : g.nodes) {
    for (auto& in : n.inputs)
      if (in == from) in = to;
    ForEachSubgraph(n, [&](Graph& sub) { RenameInSubgraph(sub, from, to); });
  }
  for (auto& out : g.outputs)
    if (out.name == from) out.name = to;
}

}  // namespace

bool GraphEditor::HasSubgraphs(const Node& node) {
  for (const auto& a : node.attributes)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

GraphEditor::GraphEditor(Graph& graph, std::vector<std::string> outer_scope)
    : graph_(graph), outer_scope_(std::move(outer_scope)) {
  outer_set_.insert(outer_scope_.begin(), outer_scope_.end());
  removed_.assign(graph_.nodes.size(), false);
  for (const auto& in : graph_.inputs) {
    graph_inputs_.insert(in.name);
    names_.insert(in.name);
  }
  for (const auto& [name, t] : graph_.initializers) names_.insert(name);
  for (const auto& o : graph_.outputs) names_.insert(o.name);
  for (const auto& n : outer_scope_) names_.insert(n);
  // Subgraph names too: a fresh name must not shadow a value defined inside.
  CollectNames(graph_);
  for (size_t i = 0; i < graph_.nodes.size(); ++i) Index(static_cast<int>(i));
}

void GraphEditor::Index(int index) {
  Node& n = node(index);
  for (const auto& out : n.outputs)
    if (!out.empty()) {
      producer_[out] = index;
      names_.insert(out);
    }
  for (const auto& in : n.inputs)
    if (!in.empty()) readers_[in].push_back(index);
  if (HasSubgraphs(n)) {
    ForEachSubgraph(n, [&](Graph& sub) {
      for (const auto& v : sub.FreeVariables()) readers_[v].push_back(index);
    });
  }
}

void GraphEditor::Unindex(int index) {
  Node& n = node(index);
  for (const auto& out : n.outputs) {
    auto it = producer_.find(out);
    if (it != producer_.end() && it->second == index) producer_.erase(it);
  }
  // The node's reads are exactly its current inputs and its subgraphs' free
  // variables (renames keep both in step with readers_), so only those lists
  // need touching: removing nodes stays linear in the graph's size.
  auto drop = [&](const std::string& value) {
    auto it = readers_.find(value);
    if (it == readers_.end()) return;
    auto& list = it->second;
    list.erase(std::remove(list.begin(), list.end(), index), list.end());
  };
  for (const auto& in : n.inputs)
    if (!in.empty()) drop(in);
  if (HasSubgraphs(n))
    ForEachSubgraph(n, [&](Graph& sub) {
      for (const auto& v : sub.FreeVariables()) drop(v);
    });
}

void GraphEditor::CollectNames(const Graph& g) {
  for (const auto& in : g.inputs) names_.insert(in.name);
  for (const auto& [name, t] : g.initializers) names_.insert(name);
  for (const auto& n : g.nodes) {
    names_.insert(n.name);
    for (const auto& o : n.outputs) names_.insert(o);
    for (const auto& a : n.attributes) {
      if (a.g) CollectNames(*a.g);
      for (const auto& sub : a.graphs)
        if (sub) CollectNames(*sub);
    }
  }
}

int GraphEditor::Producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

std::vector<int> GraphEditor::Consumers(const std::string& value) const {
  std::vector<int> out;
  auto it = readers_.find(value);
  if (it == readers_.end()) return out;
  out = it->second;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t GraphEditor::UseCount(const std::string& value) const {
  auto it = readers_.find(value);
  size_t n = it == readers_.end() ? 0 : it->second.size();
  return n + (IsGraphOutput(value) ? 1 : 0);
}

bool GraphEditor::IsGraphOutput(const std::string& value) const {
  for (const auto& o : graph_.outputs)
    if (o.name == value) return true;
  return false;
}

bool GraphEditor::IsGraphInput(const std::string& value) const { return graph_inputs_.count(value) > 0; }
bool GraphEditor::IsOuterValue(const std::string& value) const { return outer_set_.count(value) > 0; }

const Tensor* GraphEditor::Constant(const std::string& value) const {
  if (IsGraphInput(value)) return nullptr;  // an initializer with a feed is only a default
  auto it = graph_.initializers.find(value);
  return it == graph_.initializers.end() ? nullptr : &it->second;
}

void GraphEditor::RenameInNode(Node& n, const std::string& from, const std::string& to) {
  for (auto& in : n.inputs)
    if (in == from) in = to;
  ForEachSubgraph(n, [&](Graph& sub) { RenameInSubgraph(sub, from, to); });
}

void GraphEditor::ReplaceUses(const std::string& from_ref, const std::string& to_ref) {
  // Copies: the arguments may name strings inside the nodes being renamed.
  const std::string from = from_ref, to = to_ref;
  if (from == to) return;
  auto it = readers_.find(from);
  if (it == readers_.end()) return;
  std::vector<int> list = std::move(it->second);
  readers_.erase(it);
  std::vector<int> unique = list;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  for (int i : unique) RenameInNode(node(i), from, to);
  auto& dest = readers_[to];
  dest.insert(dest.end(), list.begin(), list.end());
}

bool GraphEditor::Forward(const std::string& from_ref, const std::string& to_ref) {
  const std::string from = from_ref, to = to_ref;  // may alias node outputs renamed below
  if (from == to) return true;
  if (!IsGraphOutput(from)) {
    ReplaceUses(from, to);
    return true;
  }
  // `from` keeps its name as a graph output: `to` takes that name instead.
  int p = Producer(to);
  if (p < 0 || IsGraphOutput(to)) return false;
  // The old producer of `from` (which the caller removes) gives the name up.
  int old = Producer(from);
  if (old >= 0) {
    std::string dead = FreshName(from + "_unused");
    for (auto& out : node(old).outputs)
      if (out == from) out = dead;
    producer_[dead] = old;
  }
  ReplaceUses(to, from);
  for (auto& out : node(p).outputs)
    if (out == to) out = from;
  producer_.erase(to);
  producer_[from] = p;
  return true;
}

void GraphEditor::RemoveNode(int index) {
  if (removed(index)) return;
  Unindex(index);
  removed_[static_cast<size_t>(index)] = true;
}

int GraphEditor::AddNode(Node n) {
  if (n.name.empty()) n.name = FreshName(n.op_type);
  names_.insert(n.name);
  graph_.nodes.push_back(std::move(n));
  removed_.push_back(false);
  int index = static_cast<int>(graph_.nodes.size() - 1);
  Index(index);
  return index;
}

int GraphEditor::ReplaceNode(int index, Node replacement) {
  RemoveNode(index);
  return AddNode(std::move(replacement));
}

void GraphEditor::SetInput(int index, size_t slot, const std::string& value_ref) {
  const std::string value = value_ref;
  Node& n = node(index);
  if (slot >= n.inputs.size()) n.inputs.resize(slot + 1);
  if (n.inputs[slot] == value) return;
  // Re-index the whole node: the old value may still be read by another slot.
  Unindex(index);
  n.inputs[slot] = value;
  Index(index);
}

std::string GraphEditor::FreshName(const std::string& base) {
  std::string name = base;
  while (names_.count(name)) name = base + "_" + std::to_string(++fresh_counter_);
  names_.insert(name);
  return name;
}

std::string GraphEditor::AddInitializer(const std::string& base, Tensor tensor) {
  std::string name = FreshName(base);
  graph_.initializers[name] = std::move(tensor);
  return name;
}

void GraphEditor::Commit() {
  std::vector<Node> kept;
  kept.reserve(graph_.nodes.size());
  for (size_t i = 0; i < graph_.nodes.size(); ++i)
    if (!removed_[i]) kept.push_back(std::move(graph_.nodes[i]));
  graph_.nodes = std::move(kept);
  for (auto it = graph_.initializers.begin(); it != graph_.initializers.end();) {
    auto r = readers_.find(it->first);
    bool read = (r != readers_.end() && !r->second.empty()) || IsGraphOutput(it->first) || IsGraphInput(it->first);
    it = read ? std::next(it) : graph_.initializers.erase(it);
  }
  std::unordered_set<std::string> defined(graph_inputs_.begin(), graph_inputs_.end());
  for (const auto& [name, t] : graph_.initializers) defined.insert(name);
  for (const auto& n : graph_.nodes)
    for (const auto& o : n.outputs)
      if (!o.empty()) defined.insert(o);
  std::erase_if(graph_.value_info, [&](const ValueInfo& vi) { return !defined.count(vi.name); });
  graph_.SortTopologically(outer_scope_);
  // Re-index from scratch: indices changed.
  removed_.assign(graph_.nodes.size(), false);
  producer_.clear();
  readers_.clear();
  for (size_t i = 0; i < graph_.nodes.size(); ++i) Index(static_cast<int>(i));
}

}  // namespace tessera
