// The oneDNN execution provider: claims the float CNN and dense ops oneDNN
// has primitives for, and compiles each run of claimed nodes into one
// partition whose intermediates stay in oneDNN's own (blocked) layouts.
// It computes in host memory, so no copies separate it from the CPU EP;
// layout changes happen inside its partitions, as reorder steps.
#pragma once

#include <dnnl.hpp>

#include <memory>
#include <string>

#include "tessera/partition/execution_provider.h"
#include "tessera/providers/common/extended_kernel_table.h"
#include "tessera/providers/dnnl/dnnl_families.h"

namespace tessera {

class DnnlExecutionProvider : public ExecutionProvider {
 public:
  // Null, with *why set, when oneDNN cannot start.
  static std::shared_ptr<const DnnlExecutionProvider> Create(std::string* why);

  std::string name() const override { return "dnnl"; }
  std::string device() const override;
  const KernelTable& kernels() const override { return table_.table(); }
  void CapIsa(IsaLevel level) const override;
  std::vector<std::pair<std::string, std::string>> IsaInUse() const override;

  using ExecutionProvider::Capability;
  Claim Capability(const NodeQuery& query) const override;
  bool CompilesPartitions() const override { return true; }
  std::unique_ptr<OpKernel> CompilePartition(const PartitionDef& partition) const override;

 private:
  DnnlExecutionProvider();

  dnnl::engine engine_;
  ExtendedKernelTable<dnnl_ep::DnnlRow> table_;
};

}  // namespace tessera
