// What the extended-level fusion passes share: one indexed view of a graph
// with its statically known types and constants, and the checks every
// fusion makes before it rewrites nodes (single use, not a graph output,
// bound for a provider the pass targets, element types the fused kernel has).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/optimizer/graph_editor.h"
#include "tessera/optimizer/graph_pass.h"

namespace tessera {

class FusionGraph {
 public:
  FusionGraph(Graph& graph, const std::vector<std::string>& outer_scope, const PassContext& ctx,
              std::vector<std::string> providers);

  // Direct edits through the editor must come after a Type() query (or an
  // Add/Remove), so the types describe the unedited graph.
  GraphEditor& editor() { return editor_; }
  Node& node(int i) { return editor_.node(i); }
  const Node& node(int i) const { return editor_.node(i); }
  std::vector<int> Consumers(const std::string& value) const { return editor_.Consumers(value); }
  // The only node reading `value` when it is a live ai.onnx `op_type` node
  // and `value` is single-use; else -1.
  int SoleConsumer(const std::string& value, const char* op_type) const;
  size_t size() const { return editor_.size(); }
  bool live(int i) const { return i >= 0 && !editor_.removed(i); }

  // The live ai.onnx node producing `value` when its op is `op_type`, else -1.
  int ProducerOp(const std::string& value, const char* op_type) const;
  // The live node producing `value` with any op in the given domain/op, else -1.
  int ProducerOp(const std::string& value, const char* domain, const char* op_type) const;
  // Whether node i is a live ai.onnx `op_type` node.
  bool Is(int i, const char* op_type) const;
  // Whether node i is a live node of the given domain and op.
  bool Is(int i, const char* domain, const char* op_type) const;

  // The value of `value` when it is a constant: an initializer no feed can
  // override, or the output of a Constant node.
  const Tensor* Constant(const std::string& value) const;
  // A one-element constant read as double (float, double, float16 or integer).
  std::optional<double> ScalarConstant(const std::string& value) const;
  // Whether `value` is a constant scalar equal to `expected` within rel_tol.
  bool IsScalar(const std::string& value, double expected, double rel_tol = 1e-6) const;

  // Statically known type of a value (from graph inputs and constants), or null.
  const TypeInfo* Type(const std::string& value) const;
  DataType ElemType(const std::string& value) const;  // kUndefined when unknown
  std::optional<int64_t> Rank(const std::string& value) const;

  // `value` is read by exactly one node input and is not a graph output, so
  // its producer can be folded into that reader.
  bool SingleUse(const std::string& value) const;
  // Node i may be rewritten by this pass: its provider is one the pass targets.
  bool OnTarget(int i) const;
  int64_t OnnxOpset() const;

  // Removes node i, then any Constant node whose output nothing reads anymore.
  void Remove(int i);
  int Add(Node node) {
    EnsureTypes();
    return editor_.AddNode(std::move(node));
  }
  std::string AddInitializer(const std::string& base, Tensor t) {
    EnsureTypes();
    return editor_.AddInitializer(base, std::move(t));
  }
  void Commit() { editor_.Commit(); }

 private:
  GraphEditor editor_;
  const PassContext& ctx_;
  std::vector<std::string> providers_;
  // Types are inferred on first use (most passes find no candidate in most
  // graphs), and at the latest before the first edit, so they always
  // describe the graph as the pass found it. Fusions keep the names and
  // types of the values they leave in place.
  void EnsureTypes() const;
  std::vector<std::string> outer_scope_;
  mutable std::optional<std::unordered_map<std::string, TypeInfo>> types_;
};

// The shape the cpu fusions over a group of nodes share: extended level,
// cpu nodes only, FuseAt tried at every live trigger node bound for cpu (by
// default an ai.onnx `trigger` node: the group's Q, or its product), and
// one commit of whatever fused. Models below `min_opset` are left alone.
class CpuGroupFusion : public GraphPass {
 public:
  CpuGroupFusion(const char* name, const char* trigger, int64_t min_opset = 0)
      : name_(name), trigger_(trigger), min_opset_(min_opset) {}
  std::string name() const override { return name_; }
  OptimizationLevel level() const override { return OptimizationLevel::kExtended; }
  std::vector<std::string> providers() const override { return {"cpu"}; }
  int Apply(Graph& graph, const std::vector<std::string>& outer, const PassContext& ctx) const override;

 protected:
  // Whether node i may start a group; a pass with several trigger ops, or
  // one of another domain, says so here.
  virtual bool IsTrigger(const FusionGraph& fg, int i) const { return fg.Is(i, trigger_); }
  // Rewrites the group at node i; returns 1 when it did, else 0.
  virtual int FuseAt(FusionGraph& fg, int i, const PassContext& ctx) const = 0;

 private:
  const char* name_;
  const char* trigger_;
  int64_t min_opset_;
};

// Attribute helpers for fused nodes.
Attribute IntAttr(const std::string& name, int64_t v);
Attribute FloatAttr(const std::string& name, float v);
Attribute StringAttr(const std::string& name, const std::string& v);
Attribute FloatsAttr(const std::string& name, std::vector<float> v);
Attribute IntsAttr(const std::string& name, std::vector<int64_t> v);

// Element types the float fused kernels accept.
bool IsFloatOrDouble(DataType t);

// Whether two tensors hold the same type, shape and values (compared as
// numbers: quantization scales and zero points, say).
bool SameValues(const Tensor& a, const Tensor& b);

}  // namespace tessera
