// Helpers shared by the OpenCL kernel families.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "tessera/ops/kernel.h"
#include "tessera/partition/execution_provider.h"
#include "tessera/providers/opencl/opencl_runtime.h"

namespace tessera::opencl {

// The runtime every OpenCL kernel launches on; the EP exists only when it does.
std::shared_ptr<Runtime> RequireRuntime();

inline constexpr int kMaxRank = 8;

// Mirrors ts_bcast in the OpenCL program (same field order and types).
struct BroadcastInfo {
  int32_t rank = 0;
  int32_t n = 0;
  int32_t dims[kMaxRank] = {};
  int32_t sa[kMaxRank] = {};
  int32_t sb[kMaxRank] = {};
};

// Output shape and per-input strides for a two-input broadcast; fails the
// node (through ctx) when the shapes do not broadcast or exceed the limits.
BroadcastInfo MakeBroadcast(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out);

// Fails the node when a tensor is too big for the kernels' 32-bit indexing.
void CheckIndexable(const KernelContext& ctx, const Tensor& t);
inline int32_t I32(int64_t v) { return static_cast<int32_t>(v); }

// A kernel that runs on the OpenCL device.
class OpenClKernel : public OpKernel {
 public:
  OpenClKernel() : rt_(RequireRuntime()) {}

 protected:
  Tensor NewOutput(KernelContext& ctx, size_t i, DataType dtype, Shape shape) const {
    Tensor t = NewDeviceTensor(rt_, dtype, std::move(shape));
    ctx.set_output(i, t);
    return t;
  }
  Runtime& rt() const { return *rt_; }
  const std::shared_ptr<Runtime>& runtime() const { return rt_; }

 private:
  std::shared_ptr<Runtime> rt_;
};

// Claim checks shared by families.
std::string RequireKnownRank(const NodeQuery& q, size_t input, int64_t max_rank = kMaxRank);
// "" when every given input (except those in skip) is a float tensor, else why not.
std::string FloatInputs(const NodeQuery& q, const std::vector<size_t>& skip = {});

}  // namespace tessera::opencl
