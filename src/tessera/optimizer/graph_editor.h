// Indexed, mutable view of one graph for passes: who produces and who reads
// each value, constants, and edits that keep those indexes current. Node
// indices stay valid until Commit(), which drops removed nodes and restores
// topological order.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/ir/graph.h"

namespace tessera {

class GraphEditor {
 public:
  GraphEditor(Graph& graph, std::vector<std::string> outer_scope = {});

  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }
  size_t size() const { return graph_.nodes.size(); }
  Node& node(int index) { return graph_.nodes[static_cast<size_t>(index)]; }
  const Node& node(int index) const { return graph_.nodes[static_cast<size_t>(index)]; }
  bool removed(int index) const { return removed_[static_cast<size_t>(index)]; }

  // Node producing `value`, or -1 (graph input, initializer, outer value).
  int Producer(const std::string& value) const;
  // Live nodes reading `value`, once per node, in index order. A node whose
  // subgraph reads the value counts as a reader.
  std::vector<int> Consumers(const std::string& value) const;
  // Reads of `value` by live nodes (explicit inputs counted per slot, implicit
  // subgraph reads once) plus one when it is a graph output.
  size_t UseCount(const std::string& value) const;
  bool IsGraphOutput(const std::string& value) const;
  bool IsGraphInput(const std::string& value) const;
  bool IsOuterValue(const std::string& value) const;
  // The initializer behind `value` when it cannot be overridden by a feed.
  const Tensor* Constant(const std::string& value) const;
  // Whether a node has graph-valued attributes (If/Loop/Scan bodies).
  static bool HasSubgraphs(const Node& node);

  // Makes every reader of `from` (explicit inputs, subgraph reads, graph
  // outputs excluded) read `to` instead.
  void ReplaceUses(const std::string& from, const std::string& to);
  // Makes `from` redundant so its producer can go: readers switch to `to`.
  // When `from` is a graph output, `to`'s producer is renamed to produce
  // `from` instead. Returns false (and changes nothing) when that is
  // impossible (both are graph outputs, or `to` is not produced by a node
  // of this graph).
  bool Forward(const std::string& from, const std::string& to);
  void RemoveNode(int index);
  // Appends a node (indexes updated); returns its index.
  int AddNode(Node node);
  // Replaces a live node by another producing the same output names (readers
  // keep reading them); returns the new node's index.
  int ReplaceNode(int index, Node replacement);
  // Makes input `slot` of a live node read `value` (indexes updated).
  void SetInput(int index, size_t slot, const std::string& value);
  // A value/node name not used anywhere in the graph yet.
  std::string FreshName(const std::string& base);
  // Adds an initializer under a fresh name derived from base; returns the name.
  std::string AddInitializer(const std::string& base, Tensor tensor);
  // Drops removed nodes, initializers nothing reads and value_info of values
  // that no longer exist, then sorts.
  void Commit();

 private:
  void Index(int index);
  void Unindex(int index);
  void CollectNames(const Graph& g);
  void RenameInNode(Node& node, const std::string& from, const std::string& to);

  Graph& graph_;
  std::vector<std::string> outer_scope_;
  std::unordered_set<std::string> outer_set_;
  std::vector<bool> removed_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> readers_;  // one entry per read
  std::unordered_set<std::string> graph_inputs_;
  std::unordered_set<std::string> names_;
  int fresh_counter_ = 0;
};

}  // namespace tessera
