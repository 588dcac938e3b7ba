// The OpenCL execution provider: tensors in OpenCL device buffers, explicit
// host<->device copies, and kernels for the common CNN/transformer ops. It
// claims a node only when its kernel handles the node's op, opset, element
// types and attributes; everything else falls back to the next provider.
#pragma once

#include <memory>
#include <string>

#include "tessera/partition/execution_provider.h"
#include "tessera/providers/common/extended_kernel_table.h"
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_runtime.h"

namespace tessera {

class OpenClExecutionProvider : public ExecutionProvider {
 public:
  // Null, with *why set, when there is no usable OpenCL device.
  static std::shared_ptr<const OpenClExecutionProvider> Create(std::string* why);

  std::string name() const override { return "opencl"; }
  std::string device() const override { return runtime_->description(); }
  std::string memory_space() const override { return opencl::kMemorySpace; }
  Tensor CopyFromHost(const Tensor& host) const override;
  Tensor CopyToHost(const Tensor& device) const override;
  void Synchronize() const override { runtime_->Finish(); }
  const KernelTable& kernels() const override { return table_.table(); }

  using ExecutionProvider::Capability;
  Claim Capability(const NodeQuery& query) const override;
  bool InputOnHost(const KernelRow& row, size_t input_index) const override;
  bool OutputOnHost(const KernelRow& row, size_t output_index) const override;

 private:
  explicit OpenClExecutionProvider(std::shared_ptr<opencl::Runtime> runtime);

  std::shared_ptr<opencl::Runtime> runtime_;
  ExtendedKernelTable<opencl::OpenClRow> table_;
};

}  // namespace tessera
