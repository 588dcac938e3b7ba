// The contract every execution provider (EP) fulfils. EPs live above the
// runtime (providers/<ep>/); this interface sits below it so the partitioner
// and the runtime can talk to any EP without knowing which.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/base/cpu_isa.h"
#include "tessera/ops/kernel.h"
#include "tessera/ops/kernel_table.h"
#include "tessera/ops/shape_inference.h"

namespace tessera {

// A node's claim by an EP: the kernel row, or the reason it was declined.
struct Claim {
  const KernelRow* row = nullptr;
  std::string reason;  // set when row == nullptr
  bool claimed() const { return row != nullptr; }
};

// What a capability query knows about a node: its opset, and the static
// types, shapes and constants derived at session creation (may be absent).
struct NodeQuery {
  const Node& node;
  int64_t opset;
  const GraphTypes* types = nullptr;

  // Known type of input/output i, or null (unknown, omitted or out of range).
  const TypeInfo* input_type(size_t i) const { return TypeOf(node.inputs, i); }
  const TypeInfo* output_type(size_t i) const { return TypeOf(node.outputs, i); }
  // Input i's value when it is known at session creation (an initializer or
  // folded constant), else null.
  const Tensor* constant_input(size_t i) const {
    if (types == nullptr || i >= node.inputs.size() || node.inputs[i].empty()) return nullptr;
    auto it = types->constants.find(node.inputs[i]);
    return it == types->constants.end() ? nullptr : &it->second;
  }

 private:
  const TypeInfo* TypeOf(const std::vector<std::string>& names, size_t i) const {
    if (types == nullptr || i >= names.size() || names[i].empty()) return nullptr;
    auto it = types->types.find(names[i]);
    return it == types->types.end() ? nullptr : &it->second;
  }
};

// A run of consecutive nodes claimed by one EP that compiles partitions: the
// EP turns it into a single kernel whose inputs and outputs are `inputs` and
// `outputs` (in that order); values produced and consumed inside stay its own.
struct PartitionDef {
  const Model* model = nullptr;
  // Static types, shapes and constants inferred at session creation.
  const GraphTypes* types = nullptr;
  // The session's intra-op thread count.
  int num_threads = 1;
  // SessionOptions::winograd_convolutions.
  bool winograd = true;
  std::vector<const Node*> nodes;  // in execution order
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

class ExecutionProvider {
 public:
  virtual ~ExecutionProvider() = default;
  // Short name used in options, logs and reports: "cpu", "opencl", "dnnl".
  virtual std::string name() const = 0;
  // True for the provider that has a host kernel for every op Tessera runs:
  // it takes the nodes no other provider claims (the fallback the session's
  // fallback limits are about), and constant folding computes with its kernels.
  virtual bool IsHostFallback() const { return false; }
  // The device, in words, for reports ("host CPU", "pthread-skylake (PoCL)").
  virtual std::string device() const { return "host CPU"; }
  // "host" for EPs that compute on host memory; copies are needed between
  // different memory spaces only.
  virtual std::string memory_space() const { return "host"; }
  // Transfers between host memory and this provider's memory. Only called
  // for providers whose memory_space() is not "host"; the runtime inserts
  // them as explicit copy steps at every boundary between memory spaces.
  virtual Tensor CopyFromHost(const Tensor& host) const { return host; }
  virtual Tensor CopyToHost(const Tensor& device) const { return device; }
  // Blocks until work queued on the device has finished (for profiling:
  // asynchronous devices would otherwise be timed at enqueue).
  virtual void Synchronize() const {}
  virtual const KernelTable& kernels() const = 0;

  // Caps the instruction sets this EP's kernels and the libraries it drives
  // may use (base/cpu_isa.h). The cap is process-wide; this throws when the
  // machine cannot run `level` or the process already runs under another
  // cap. EPs that compute off the host CPU ignore it.
  virtual void CapIsa(IsaLevel level) const { (void)level; }
  // What this EP's kernels run with now, for logs and profiles, as
  // (library, instruction set) pairs: {"highway", "AVX2"}. Empty for devices.
  virtual std::vector<std::pair<std::string, std::string>> IsaInUse() const { return {}; }

  // Whether this EP takes the node; the default claims what its kernel table
  // has at the model's opset for the node's domain.
  virtual Claim Capability(const NodeQuery& query) const {
    Claim c;
    c.row = kernels().Find(query.node.domain, query.node.op_type, query.opset, &c.reason);
    return c;
  }
  Claim Capability(const Node& node, int64_t opset) const { return Capability(NodeQuery{node, opset, nullptr}); }

  // Operands the kernel of `row` (a row this EP claimed the node with) reads
  // on the host (shapes, axes, indices): the runtime keeps or copies them
  // there instead of moving them to the device.
  virtual bool InputOnHost(const KernelRow& row, size_t input_index) const { return false; }
  // Outputs that kernel produces in host memory (Shape, say).
  virtual bool OutputOnHost(const KernelRow& row, size_t output_index) const { return false; }

  // EPs that compile whole partitions return true and implement
  // CompilePartition; their claimed nodes never get per-node kernels.
  virtual bool CompilesPartitions() const { return false; }
  virtual std::unique_ptr<OpKernel> CompilePartition(const PartitionDef& partition) const { return nullptr; }
};

using ProviderList = std::vector<std::shared_ptr<const ExecutionProvider>>;

}  // namespace tessera
