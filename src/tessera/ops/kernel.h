// What a kernel sees: creation-time node info (attributes, opset) and a
// run-time context (inputs, outputs, threads, subgraph execution).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/base/logging.h"
#include "tessera/base/status.h"
#include "tessera/base/thread_pool.h"
#include "tessera/ir/graph.h"
#include "tessera/ir/value.h"

namespace tessera {

// Read access to a node's attributes with errors that name the node.
class KernelInfo {
 public:
  KernelInfo(const Node& node, int64_t opset, const Graph* owner_graph = nullptr)
      : node_(node), opset_(opset), owner_graph_(owner_graph) {}

  const Node& node() const { return node_; }
  // Opset the model imports for this node's domain.
  int64_t opset() const { return opset_; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  bool has_output(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  // The initializer feeding input i, when that input is a constant of the graph.
  const Tensor* constant_input(size_t i) const;
  // The graph the node belongs to (ops such as Gradient read other nodes).
  const Graph* owner_graph() const { return owner_graph_; }

  bool has_attr(const std::string& name) const { return node_.FindAttribute(name) != nullptr; }
  int64_t attr_int(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t default_value) const;
  float attr_float(const std::string& name) const;
  float attr_float(const std::string& name, float default_value) const;
  std::string attr_string(const std::string& name) const;
  std::string attr_string(const std::string& name, const std::string& default_value) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::vector<int64_t> attr_ints(const std::string& name, const std::vector<int64_t>& default_value) const;
  // The ints, or nullopt when the attribute is absent (where absent means
  // something other than any list, e.g. Transpose's perm).
  std::optional<std::vector<int64_t>> optional_attr_ints(const std::string& name) const {
    if (!has_attr(name)) return std::nullopt;
    return attr_ints(name);
  }
  std::vector<float> attr_floats(const std::string& name) const;
  std::vector<float> attr_floats(const std::string& name, const std::vector<float>& default_value) const;
  std::vector<std::string> attr_strings(const std::string& name) const;
  std::vector<std::string> attr_strings(const std::string& name, const std::vector<std::string>& default_value) const;
  const Tensor& attr_tensor(const std::string& name) const;
  std::shared_ptr<Graph> attr_graph(const std::string& name) const;
  const Attribute& attr(const std::string& name) const;  // throws when absent

  // Throws kInvalidModel prefixed with the node's label.
  template <typename... Args>
  [[noreturn]] void Fail(Args&&... args) const {
    Throw(StatusCode::kInvalidModel, "node ", node_.Label(), ": ", std::forward<Args>(args)...);
  }

 private:
  const Attribute& Require(const std::string& name, AttributeType type) const;
  const Node& node_;
  int64_t opset_;
  const Graph* owner_graph_;
};

// Runs a subgraph (If/Loop/Scan bodies) with the current frame as outer scope.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Value> Run(const Graph& graph, const std::vector<Value>& inputs) = 0;
};

// One sub-step a kernel timed itself (a primitive or layout reorder inside
// a compiled partition).
struct StepRecord {
  std::string_view name;
  bool reorder = false;             // a layout change rather than a computation
  std::string_view implementation;  // the library kernel that ran ("brgconv:avx512_core"), when known
  int64_t start_us = 0;
  int64_t duration_us = 0;
  int64_t bytes = 0;   // data written
  int64_t flops = -1;  // floating-point operations done (multiply-adds count two), -1 when not counted
};

// Receives a kernel's sub-steps while the session is profiling.
class StepTracer {
 public:
  virtual ~StepTracer() = default;
  virtual int64_t NowMicros() const = 0;
  virtual void Step(const StepRecord& step) = 0;
};

class KernelContext {
 public:
  KernelContext(const Node& node, std::vector<const Value*> inputs, std::vector<Value>* outputs, ThreadPool* pool,
                SubgraphRunner* subgraphs)
      : node_(node), inputs_(std::move(inputs)), outputs_(outputs), pool_(pool), subgraphs_(subgraphs) {}

  const Node& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  // True when input i was given (not omitted) and holds a value.
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr && !inputs_[i]->empty(); }
  // Input i as a tensor; throws a clear error when absent or not a tensor.
  const Tensor& input(size_t i) const;
  // Input i, or null when it was omitted (optional inputs).
  const Tensor* optional_input(size_t i) const { return has_input(i) ? &input(i) : nullptr; }
  const Value& input_value(size_t i) const;

  size_t num_outputs() const { return outputs_->size(); }
  bool output_requested(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
  // Allocates output i (uninitialized memory).
  Tensor& allocate_output(size_t i, DataType dtype, Shape shape);
  void set_output(size_t i, Value value);
  // Output i as allocated or set before, for a kernel that finishes what
  // another kernel computed into it; throws when it holds no tensor.
  Tensor& output(size_t i);

  ThreadPool* thread_pool() const { return pool_; }
  // Null unless the session is profiling.
  StepTracer* tracer() const { return tracer_; }
  void set_tracer(StepTracer* tracer) { tracer_ = tracer; }
  std::vector<Value> RunSubgraph(const Graph& graph, const std::vector<Value>& inputs) const;

  template <typename... Args>
  [[noreturn]] void Fail(Args&&... args) const {
    Throw(StatusCode::kRuntimeError, "node ", node_.Label(), ": ", std::forward<Args>(args)...);
  }

 private:
  const Node& node_;
  std::vector<const Value*> inputs_;
  std::vector<Value>* outputs_;
  ThreadPool* pool_;
  SubgraphRunner* subgraphs_;
  StepTracer* tracer_ = nullptr;
};

// A kernel is created once per node at session creation; Compute may be
// called from several threads at once and must not mutate the kernel.
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual void Compute(KernelContext& ctx) const = 0;
  // False for an input the kernel never reads at run time (a constant it
  // copied into its own layout at creation): the runtime may then free it.
  virtual bool ReadsInput(size_t input_index) const { return true; }
};

}  // namespace tessera
