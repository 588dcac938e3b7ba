// The contract every execution provider (EP) fulfils. EPs live above the
// runtime (providers/<ep>/); this interface sits below it so the partitioner
// and the runtime can talk to any EP without knowing which.
#pragma once

#include <memory>
#include <string>

#include "tessera/ops/kernel_table.h"

namespace tessera {

// A node's claim by an EP: the kernel row, or the reason it was declined.
struct Claim {
  const KernelRow* row = nullptr;
  std::string reason;  // set when row == nullptr
  bool claimed() const { return row != nullptr; }
};

class ExecutionProvider {
 public:
  virtual ~ExecutionProvider() = default;
  // Short name used in options, logs and reports: "cpu", "opencl", "dnnl".
  virtual std::string name() const = 0;
  // "host" for EPs that compute on host memory; copies are needed between
  // different memory spaces only.
  virtual std::string memory_space() const { return "host"; }
  // Transfers between host memory and this provider's memory. Only called
  // for providers whose memory_space() is not "host"; the runtime inserts
  // them as explicit copy steps at every boundary between memory spaces.
  virtual Tensor CopyFromHost(const Tensor& host) const { return host; }
  virtual Tensor CopyToHost(const Tensor& device) const { return device; }
  virtual const KernelTable& kernels() const = 0;
  // Whether this EP takes the node at the model's opset for its domain.
  virtual Claim Capability(const Node& node, int64_t opset) const {
    Claim c;
    c.row = kernels().Find(node.domain, node.op_type, opset, &c.reason);
    return c;
  }
};

using ProviderList = std::vector<std::shared_ptr<const ExecutionProvider>>;

}  // namespace tessera
