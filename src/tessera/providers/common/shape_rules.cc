#include "tessera/providers/common/shape_rules.h"

#include <algorithm>

#include "tessera/providers/common/kernel_util.h"

namespace tessera::cpu {

std::vector<int64_t> ReadShapeInput(const Tensor& t, const char* what, const KernelContext& ctx) {
  if (t.dtype() != DataType::kInt64 && t.dtype() != DataType::kInt32)
    ctx.Fail(what, " must be an int64 tensor, got ", t.Describe());
  if (t.rank() > 1) ctx.Fail(what, " must be 1-D, got ", t.Describe());
  return ReadInts(t);
}

SliceWindow ResolveSlice(const KernelContext& ctx, const Shape& shape, const std::vector<int64_t>& starts,
                         const std::vector<int64_t>& ends, const std::vector<int64_t>* axes_in,
                         const std::vector<int64_t>* steps_in) {
  const int64_t r = static_cast<int64_t>(shape.size());
  if (starts.size() != ends.size())
    ctx.Fail("starts has ", starts.size(), " entries but ends has ", ends.size());
  std::vector<int64_t> axes;
  if (axes_in) {
    axes = *axes_in;
    if (axes.size() != starts.size()) ctx.Fail("axes has ", axes.size(), " entries but starts has ", starts.size());
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> steps(starts.size(), 1);
  if (steps_in) {
    if (steps_in->size() != starts.size())
      ctx.Fail("steps has ", steps_in->size(), " entries but starts has ", starts.size());
    steps = *steps_in;
  }
  SliceWindow w{shape, std::vector<int64_t>(static_cast<size_t>(r), 0), std::vector<int64_t>(static_cast<size_t>(r), 1)};
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t a = static_cast<size_t>(NormalizeAxis(axes[i], r, ctx));
    if (seen[a]) ctx.Fail("axis ", a, " appears more than once in axes");
    seen[a] = true;
    const int64_t d = shape[a];
    const int64_t st = steps[i];
    if (st == 0) ctx.Fail("slice step cannot be 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += d;  // no overflow: d >= 0
    if (e < 0) e += d;
    int64_t count = 0;
    if (d == 0) {
      s = 0;
    } else if (st > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      count = e > s ? (e - s - 1) / st + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      count = s > e ? 1 - (s - e - 1) / st : 0;  // no -st: INT64_MIN has no negation
    }
    w.out_shape[a] = count;
    w.begin[a] = count > 0 ? s : 0;
    w.step[a] = count > 1 ? st : 1;
  }
  return w;
}

std::vector<int64_t> ResolveSplit(const KernelContext& ctx, const Tensor& x, int64_t axis, int64_t n_out,
                                  const std::vector<int64_t>* split_in, int64_t num_outputs) {
  const int64_t dim = x.dim(axis);
  std::vector<int64_t> split;
  if (split_in) {
    split = *split_in;
    if (static_cast<int64_t>(split.size()) != n_out)
      ctx.Fail("split has ", split.size(), " entries but the node has ", n_out, " outputs");
    int64_t sum = 0;
    for (int64_t s : split) {
      if (s < 0) ctx.Fail("split entries must be non-negative, got ", s);
      sum += s;
    }
    if (sum != dim) ctx.Fail("split sums to ", sum, " but axis ", axis, " of ", x.Describe(), " has size ", dim);
  } else if (num_outputs > 0) {
    if (num_outputs != n_out) ctx.Fail("num_outputs is ", num_outputs, " but the node has ", n_out, " outputs");
    int64_t chunk = (dim + n_out - 1) / n_out, left = dim;
    for (int64_t i = 0; i < n_out; ++i) {
      split.push_back(std::min(chunk, left));
      left -= split.back();
    }
  } else {
    if (n_out <= 0 || dim % n_out != 0)
      ctx.Fail("axis ", axis, " of ", x.Describe(), " (size ", dim, ") cannot be split evenly into ", n_out,
               " outputs");
    split.assign(static_cast<size_t>(n_out), dim / n_out);
  }
  return split;
}

GemmDims ResolveGemm(const KernelContext& ctx, const Shape& a, const Shape& b, bool trans_a, bool trans_b,
                     const std::string& a_text, const std::string& b_text) {
  if (a.size() != 2 || b.size() != 2) ctx.Fail("Gemm expects 2-D A and B, got ", a_text, " and ", b_text);
  GemmDims d;
  d.m = trans_a ? a[1] : a[0];
  d.k = trans_a ? a[0] : a[1];
  const int64_t kb = trans_b ? b[1] : b[0];
  d.n = trans_b ? b[0] : b[1];
  if (d.k != kb)
    ctx.Fail("Gemm inner dimensions differ: ", a_text, " x ", b_text, " (transA=", trans_a, ", transB=", trans_b, ")");
  return d;
}

GemmBiasStrides ResolveGemmBias(const KernelContext& ctx, const Shape& c, int64_t m, int64_t n) {
  int64_t cm = 1, cn = 1;
  if (c.size() == 2) cm = c[0], cn = c[1];
  if (c.size() == 1) cn = c[0];
  if (c.size() > 2 || (cm != 1 && cm != m) || (cn != 1 && cn != n))
    ctx.Fail("C of shape ", ShapeToString(c), " cannot be broadcast to [", m, ",", n, "]");
  return {cm == 1 ? 0 : cn, cn == 1 ? 0 : 1};
}

PadAmounts ResolvePads(const KernelContext& ctx, int64_t rank, const std::vector<int64_t>& pads,
                       const std::vector<int64_t>* axes_in) {
  const int64_t r = rank;
  std::vector<int64_t> axes;
  if (axes_in) {
    for (int64_t a : *axes_in) axes.push_back(NormalizeAxis(a, r, ctx));
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    ctx.Fail("pads has ", pads.size(), " entries; expected ", 2 * axes.size(), " for ", axes.size(), " axes");
  PadAmounts p{std::vector<int64_t>(static_cast<size_t>(r), 0), std::vector<int64_t>(static_cast<size_t>(r), 0)};
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(axes[i]);
    if (seen[a]) ctx.Fail("axis ", a, " appears more than once in axes");
    seen[a] = true;
    p.begin[a] = pads[i];
    p.end[a] = pads[i + axes.size()];
  }
  return p;
}

}  // namespace tessera::cpu
