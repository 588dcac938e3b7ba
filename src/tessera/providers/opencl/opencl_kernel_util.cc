#include "tessera/providers/opencl/opencl_kernel_util.h"

#include <algorithm>

#include "tessera/base/status.h"

namespace tessera::opencl {

std::shared_ptr<Runtime> RequireRuntime() {
  std::string why;
  auto rt = Runtime::Get(&why);
  if (!rt) TS_THROW(kRuntimeError, "OpenCL is unavailable: ", why);
  return rt;
}

void CheckIndexable(const KernelContext& ctx, const Tensor& t) {
  if (t.numel() >= std::numeric_limits<int32_t>::max())
    ctx.Fail("the OpenCL kernels index tensors with 32 bits; ", t.Describe(), " is too large");
  if (t.rank() > kMaxRank) ctx.Fail("the OpenCL kernels handle rank <= ", kMaxRank, "; got ", t.Describe());
}

BroadcastInfo MakeBroadcast(const KernelContext& ctx, const Shape& a, const Shape& b, Shape* out) {
  size_t rank = std::max(a.size(), b.size());
  if (rank > static_cast<size_t>(kMaxRank)) ctx.Fail("the OpenCL kernels handle rank <= ", kMaxRank);
  out->assign(rank, 1);
  BroadcastInfo info;
  info.rank = static_cast<int32_t>(rank);
  int64_t stride_a = 1, stride_b = 1, n = 1;
  for (size_t k = 0; k < rank; ++k) {
    size_t d = rank - 1 - k;
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      ctx.Fail("shapes ", ShapeToString(a), " and ", ShapeToString(b), " cannot be broadcast together");
    int64_t dim = da == 1 ? db : da;
    (*out)[d] = dim;
    info.dims[d] = static_cast<int32_t>(dim);
    info.sa[d] = da == 1 ? 0 : static_cast<int32_t>(stride_a);
    info.sb[d] = db == 1 ? 0 : static_cast<int32_t>(stride_b);
    stride_a *= da;
    stride_b *= db;
    n *= dim;
  }
  if (n >= std::numeric_limits<int32_t>::max() || stride_a >= std::numeric_limits<int32_t>::max() ||
      stride_b >= std::numeric_limits<int32_t>::max())
    ctx.Fail("the OpenCL kernels index tensors with 32 bits; the broadcast result is too large");
  info.n = static_cast<int32_t>(n);
  return info;
}

std::string RequireKnownRank(const NodeQuery& q, size_t input, int64_t max_rank) {
  const TypeInfo* t = q.input_type(input);
  if (t == nullptr || !t->shape) return "rank of input " + std::to_string(input) + " unknown at session creation";
  if (static_cast<int64_t>(t->shape->size()) > max_rank)
    return "rank " + std::to_string(t->shape->size()) + " > " + std::to_string(max_rank);
  return "";
}

std::string FloatInputs(const NodeQuery& q, const std::vector<size_t>& skip) {
  for (size_t i = 0; i < q.node.inputs.size(); ++i) {
    if (q.node.inputs[i].empty() || std::find(skip.begin(), skip.end(), i) != skip.end()) continue;
    const TypeInfo* t = q.input_type(i);
    if (t == nullptr || !t->is_tensor() || t->elem_type != DataType::kFloat)
      return "input " + std::to_string(i) + " is not a float tensor";
  }
  return "";
}

}  // namespace tessera::opencl
