// Runs a compiled oneDNN plan. Compute may run on several threads at once:
// each run takes a workspace (arena, scratchpad, bound memory objects) from
// a pool, so steady-state runs allocate nothing and touch warm pages.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

class PartitionKernel final : public OpKernel {
 public:
  explicit PartitionKernel(Plan plan);
  ~PartitionKernel() override;
  void Compute(KernelContext& ctx) const override;
  bool ReadsInput(size_t i) const override { return i >= plan_.input_read.size() || plan_.input_read[i]; }

  const Plan& plan() const { return plan_; }

 private:
  struct Workspace;
  // Fills the constants whose reorder waits for the first run (once).
  void PrepareConstants() const;
  std::unique_ptr<Workspace> Acquire() const;
  void Release(std::unique_ptr<Workspace> ws) const;

  Plan plan_;
  std::vector<int> bound_values_;  // values bound to the caller's inputs/outputs each run
  mutable std::mutex mu_;
  mutable std::once_flag constants_ready_;
  mutable std::vector<PendingConstant> pending_;  // emptied by PrepareConstants
  mutable std::vector<std::unique_ptr<Workspace>> idle_;
};

}  // namespace tessera::dnnl_ep
