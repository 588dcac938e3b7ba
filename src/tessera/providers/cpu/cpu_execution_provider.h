// The CPU execution provider: host memory, the CPU kernel table, and the
// fallback for every node no other provider claims.
#pragma once

#include <memory>

#include "tessera/partition/execution_provider.h"

namespace tessera {

const KernelTable& CpuKernelTable();

class CpuExecutionProvider : public ExecutionProvider {
 public:
  std::string name() const override { return "cpu"; }
  bool IsHostFallback() const override { return true; }
  const KernelTable& kernels() const override { return CpuKernelTable(); }
  void CapIsa(IsaLevel level) const override;
  std::vector<std::pair<std::string, std::string>> IsaInUse() const override;
};

std::shared_ptr<const ExecutionProvider> MakeCpuExecutionProvider();

}  // namespace tessera
