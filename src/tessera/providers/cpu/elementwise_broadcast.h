// Broadcast loops shared by the elementwise families (binary math, logic,
// activations): a collapsed-dimension plan walked in contiguous runs, split
// across the thread pool by output element ranges, plus the legacy
// (opset 1/6) "broadcast/axis" alignment and a row-building helper.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "tessera/ops/kernel_table.h"
#include "tessera/providers/common/kernel_util.h"

namespace tessera::cpu::elementwise {

// Minimum elements per parallel chunk.
inline constexpr int64_t kParallelChunk = 16384;

// A walk over a broadcast output. Adjacent output dims are merged whenever
// every input is broadcast (or not) in both of them, so the common cases
// become one loop: same shape -> one dim; scalar operand -> one dim with
// step 0; bias over channels -> two or three dims.
template <size_t K>
struct BroadcastPlan {
  int64_t out_size = 1;
  std::vector<int64_t> dims;                      // collapsed dims, outermost first
  std::vector<std::array<int64_t, K>> strides;    // per collapsed dim, per input
  int64_t inner = 1;                              // size of the innermost collapsed dim
  std::array<int64_t, K> inner_step{};            // 0 or 1 per input
};

template <size_t K>
BroadcastPlan<K> MakePlan(const Shape& out_shape, const std::array<const Shape*, K>& in_shapes) {
  BroadcastPlan<K> plan;
  for (int64_t d : out_shape) plan.out_size *= d;
  size_t rank = out_shape.size();
  // Per out dim, per input: the input's extent (1 = broadcast).
  std::vector<int64_t> dims;
  std::vector<std::array<bool, K>> bcast;
  for (size_t d = 0; d < rank; ++d) {
    if (out_shape[d] == 1) continue;
    std::array<bool, K> b{};
    for (size_t k = 0; k < K; ++k) {
      const Shape& s = *in_shapes[k];
      size_t off = rank - s.size();
      b[k] = d < off || s[d - off] == 1;
    }
    if (!dims.empty() && bcast.back() == b) {
      dims.back() *= out_shape[d];
    } else {
      dims.push_back(out_shape[d]);
      bcast.push_back(b);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    bcast.push_back(std::array<bool, K>{});
  }
  size_t n = dims.size();
  plan.strides.assign(n, std::array<int64_t, K>{});
  for (size_t k = 0; k < K; ++k) {
    int64_t stride = 1;
    for (size_t d = n; d-- > 0;) {
      if (bcast[d][k]) {
        plan.strides[d][k] = 0;
      } else {
        plan.strides[d][k] = stride;
        stride *= dims[d];
      }
    }
  }
  plan.inner = dims.back();
  for (size_t k = 0; k < K; ++k) plan.inner_step[k] = plan.strides.back()[k];
  plan.dims = std::move(dims);
  return plan;
}

// Calls fn(out_offset, in_offsets (std::array<int64_t,K>), n, inner_step) for
// contiguous runs covering the output; runs never cross the innermost dim.
template <size_t K, typename Fn>
void RunPlan(const BroadcastPlan<K>& plan, ThreadPool* pool, Fn&& fn, int64_t min_chunk = kParallelChunk) {
  if (plan.out_size == 0) return;
  const size_t outer_rank = plan.dims.size() - 1;
  const int64_t inner = plan.inner;
  auto body = [&](int64_t begin, int64_t end) {
    int64_t o = begin / inner;
    int64_t i0 = begin % inner;
    std::vector<int64_t> idx(outer_rank, 0);
    std::array<int64_t, K> offs{};
    int64_t rem = o;
    for (size_t d = outer_rank; d-- > 0;) {
      idx[d] = rem % plan.dims[d];
      rem /= plan.dims[d];
      for (size_t k = 0; k < K; ++k) offs[k] += idx[d] * plan.strides[d][k];
    }
    std::array<int64_t, K> cur{};
    while (begin < end) {
      int64_t n = std::min(inner - i0, end - begin);
      for (size_t k = 0; k < K; ++k) cur[k] = offs[k] + i0 * plan.inner_step[k];
      fn(begin, cur, n, plan.inner_step);
      begin += n;
      i0 = 0;
      if (begin >= end) break;
      for (size_t d = outer_rank; d-- > 0;) {
        for (size_t k = 0; k < K; ++k) offs[k] += plan.strides[d][k];
        if (++idx[d] < plan.dims[d]) break;
        for (size_t k = 0; k < K; ++k) offs[k] -= plan.strides[d][k] * plan.dims[d];
        idx[d] = 0;
      }
    }
  };
  ParallelFor(pool, plan.out_size, min_chunk, body);
}

// out[i] = op(a[ia], b[ib]) over the broadcast of a and b into out (whose
// shape must be the broadcast shape). op takes the storage types.
template <typename TA, typename TB, typename TO, typename Op>
void BinaryLoop(const Tensor& a, const Tensor& b, Tensor& out, ThreadPool* pool, Op op) {
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  auto plan = MakePlan<2>(out.shape(), {&a.shape(), &b.shape()});
  RunPlan<2>(plan, pool, [&](int64_t o, const std::array<int64_t, 2>& off, int64_t n,
                             const std::array<int64_t, 2>& step) {
    const TA* x = pa + off[0];
    const TB* y = pb + off[1];
    TO* z = po + o;
    if (step[0] && step[1]) {
      for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], y[i]);
    } else if (step[0]) {
      const TB yv = *y;
      for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], yv);
    } else if (step[1]) {
      const TA xv = *x;
      for (int64_t i = 0; i < n; ++i) z[i] = op(xv, y[i]);
    } else {
      const TO v = op(*x, *y);
      for (int64_t i = 0; i < n; ++i) z[i] = v;
    }
  });
}

// acc[i] = op(acc[i], b[ib]) where acc already has the full output shape.
template <typename TAcc, typename TB, typename Op>
void AccumulateLoop(TAcc* acc, const Shape& out_shape, const Tensor& b, ThreadPool* pool, Op op) {
  const TB* pb = b.data<TB>();
  auto plan = MakePlan<2>(out_shape, {&out_shape, &b.shape()});
  RunPlan<2>(plan, pool, [&](int64_t o, const std::array<int64_t, 2>& off, int64_t n,
                              const std::array<int64_t, 2>& step) {
    TAcc* z = acc + o;
    const TB* y = pb + off[1];
    if (step[1]) {
      for (int64_t i = 0; i < n; ++i) z[i] = op(z[i], y[i]);
    } else {
      const TB yv = *y;
      for (int64_t i = 0; i < n; ++i) z[i] = op(z[i], yv);
    }
  });
}

// out[i] = op(c[ic], a[ia], b[ib]) (Where).
template <typename TC, typename TA, typename TB, typename TO, typename Op>
void TernaryLoop(const Tensor& c, const Tensor& a, const Tensor& b, Tensor& out, ThreadPool* pool, Op op) {
  const TC* pc = c.data<TC>();
  const TA* pa = a.data<TA>();
  const TB* pb = b.data<TB>();
  TO* po = out.data<TO>();
  auto plan = MakePlan<3>(out.shape(), {&c.shape(), &a.shape(), &b.shape()});
  RunPlan<3>(plan, pool, [&](int64_t o, const std::array<int64_t, 3>& off, int64_t n,
                             const std::array<int64_t, 3>& step) {
    const TC* x = pc + off[0];
    const TA* y = pa + off[1];
    const TB* w = pb + off[2];
    TO* z = po + o;
    const int64_t s0 = step[0], s1 = step[1], s2 = step[2];
    if (s0 && s1 && s2) {
      for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], y[i], w[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) z[i] = op(x[i * s0], y[i * s1], w[i * s2]);
    }
  });
}

// out[i] = op(x[i]) with ParallelFor for large tensors.
template <typename TI, typename TO, typename Op>
void UnaryLoop(const Tensor& x, Tensor& out, ThreadPool* pool, Op op) {
  const TI* px = x.data<TI>();
  TO* po = out.data<TO>();
  ParallelFor(pool, x.numel(), kParallelChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) po[i] = op(px[i]);
  });
}

// Shape of B under the legacy (opset 1/6) broadcast rule: with broadcast=1, B
// is aligned with A starting at `axis` (suffix-aligned when axis is absent)
// and must unidirectionally broadcast to A. Fails with a clear message.
inline Shape LegacyBroadcastShape(const Shape& a, const Shape& b, bool broadcast, bool has_axis, int64_t axis,
                                  const KernelContext& ctx) {
  if (!broadcast) {
    if (a != b)
      ctx.Fail("shapes ", ShapeToString(a), " and ", ShapeToString(b),
               " differ and the node does not set broadcast=1 (required before opset 7)");
    return b;
  }
  int64_t numel = 1;
  for (int64_t d : b) numel *= d;
  if (numel == 1) return Shape{};
  int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  if (rb > ra) ctx.Fail("with broadcast=1, B ", ShapeToString(b), " must not have a higher rank than A ", ShapeToString(a));
  int64_t start = ra - rb;
  if (has_axis) {
    if (axis < -ra || axis >= ra) ctx.Fail("axis ", axis, " is out of range for rank ", ra);
    start = axis < 0 ? axis + ra : axis;
    if (start + rb > ra)
      ctx.Fail("B ", ShapeToString(b), " placed at axis ", axis, " does not fit inside A ", ShapeToString(a));
  }
  Shape out(static_cast<size_t>(ra), 1);
  for (int64_t i = 0; i < rb; ++i) {
    int64_t d = b[static_cast<size_t>(i)];
    int64_t ad = a[static_cast<size_t>(start + i)];
    if (d != ad && d != 1)
      ctx.Fail("B ", ShapeToString(b), " cannot be broadcast to A ", ShapeToString(a), " at axis ", start);
    out[static_cast<size_t>(start + i)] = d;
  }
  return out;
}

// Legacy broadcast attributes of opset-1/6 binary ops.
struct LegacyBroadcast {
  bool enabled = false;  // node is a legacy form (attributes apply)
  bool broadcast = false;
  bool has_axis = false;
  int64_t axis = 0;

  static LegacyBroadcast FromInfo(const KernelInfo& info) {
    LegacyBroadcast l;
    l.enabled = true;
    l.broadcast = info.attr_int("broadcast", 0) != 0;
    l.has_axis = info.has_attr("axis");
    if (l.has_axis) l.axis = info.attr_int("axis");
    return l;
  }
};

// Resolves the shapes of a binary op's inputs (A keeps its shape; B may be
// re-viewed for legacy broadcasting) and the output shape.
inline Shape ResolveBinaryShapes(const Tensor& a, const Tensor& b, const LegacyBroadcast& legacy, Tensor* b_view,
                                 const KernelContext& ctx) {
  if (legacy.enabled) {
    Shape bs = LegacyBroadcastShape(a.shape(), b.shape(), legacy.broadcast, legacy.has_axis, legacy.axis, ctx);
    *b_view = b.Reshaped(bs);
    return a.shape();
  }
  *b_view = b;
  if (a.shape() == b.shape()) return a.shape();
  return BroadcastShapes({a.shape(), b.shape()}, ctx);
}

// A binary op kernel that honours the legacy broadcast attributes before
// opset 7.
class LegacyBroadcastKernel : public OpKernel {
 public:
  explicit LegacyBroadcastKernel(const KernelInfo& info) {
    if (info.opset() < 7) legacy_ = LegacyBroadcast::FromInfo(info);
  }

 protected:
  // Broadcasts input 1 against input 0 into `b_view` and allocates output 0
  // of `dtype` in the broadcast shape.
  Tensor& AllocateBroadcastOutput(KernelContext& ctx, DataType dtype, Tensor& b_view) const {
    Shape shape = ResolveBinaryShapes(ctx.input(0), ctx.input(1), legacy_, &b_view, ctx);
    return ctx.allocate_output(0, dtype, shape);
  }

 private:
  LegacyBroadcast legacy_;
};

// One row per listed version: [v_i, v_{i+1} - 1], the last one up to `until`.
struct VersionTypes {
  int64_t since;
  std::vector<DataType> types;
};
// The inputs a row's kernel may overwrite with its output
// (KernelRow::in_place_inputs), for the rows from opset `since` on.
struct InPlaceInputs {
  uint32_t inputs = 0;
  int64_t since = 1;
};
inline constexpr InPlaceInputs kUnaryInPlace{0b1, 1};
// Before opset 7 the legacy broadcast path makes a temporary.
inline constexpr InPlaceInputs kBinaryInPlace{0b11, 7};

inline void AddRows(std::vector<KernelRow>& rows, const char* op, std::initializer_list<VersionTypes> versions,
                    const KernelFactory& factory, int64_t until = kMaxOnnxOpset, InPlaceInputs in_place = {}) {
  std::vector<VersionTypes> v(versions);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t last = i + 1 < v.size() ? v[i + 1].since - 1 : until;
    rows.push_back(KernelRow{"ai.onnx", op, v[i].since, last, v[i].types, factory,
                             v[i].since >= in_place.since ? in_place.inputs : 0u});
  }
}
inline void AddRows(std::vector<KernelRow>& rows, const char* op, std::initializer_list<VersionTypes> versions,
                    const KernelFactory& factory, InPlaceInputs in_place) {
  AddRows(rows, op, versions, factory, kMaxOnnxOpset, in_place);
}

// Type-set shorthands in the spec's wording.
namespace ts {
inline std::vector<DataType> F3() { return {DataType::kFloat, DataType::kDouble, DataType::kFloat16}; }
inline std::vector<DataType> F4() { return types::Floats(); }
inline std::vector<DataType> Num11() { return types::Join(F3(), types::Ints()); }  // numeric without bfloat16
inline std::vector<DataType> Num12() { return types::Numeric(); }
inline std::vector<DataType> HighPrec() {  // uint32/64, int32/64, float16/float/double
  return {DataType::kUInt32, DataType::kUInt64, DataType::kInt32, DataType::kInt64,
          DataType::kFloat16, DataType::kFloat, DataType::kDouble};
}
inline std::vector<DataType> Bool() { return {DataType::kBool}; }
}  // namespace ts

}  // namespace tessera::cpu::elementwise
