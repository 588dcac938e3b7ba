// Data-movement kernels that rearrange elements: Transpose, Concat, Split,
// Slice, Tile, Pad, DepthToSpace, SpaceToDepth, Trilu, Compress,
// ReverseSequence, CenterCropPad. They move elements as opaque words of the
// element's size (strings as std::string objects); sub-byte types go through
// an unpacked uint8 copy.
#include <algorithm>
#include <limits>
#include <numeric>

#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

namespace layout {

void CoalesceStrided(Shape& shape, std::vector<int64_t>& st) {
  Shape s2;
  std::vector<int64_t> t2;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!s2.empty() && t2.back() == st[i] * shape[i]) {
      s2.back() *= shape[i];
      t2.back() = st[i];
      continue;
    }
    s2.push_back(shape[i]);
    t2.push_back(st[i]);
  }
  shape = std::move(s2);
  st = std::move(t2);
}

namespace {

template <typename W>
void StridedCopyT(const W* src, W* dst, Shape shape, std::vector<int64_t> st, ThreadPool* pool) {
  for (int64_t d : shape)
    if (d == 0) return;
  CoalesceStrided(shape, st);
  const size_t r = shape.size();
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = shape[r - 1];
  const int64_t is = st[r - 1];
  int64_t total = 1;
  for (int64_t d : shape) total *= d;

  // The dim (other than the innermost) that is contiguous in the source.
  int k = -1;
  if (is != 1)
    for (size_t d = 0; d + 1 < r; ++d)
      if (st[d] == 1) k = static_cast<int>(d);

  if (k >= 0 && inner >= 8 && shape[static_cast<size_t>(k)] >= 8 && !std::is_same_v<W, std::string>) {
    // Tiled 2-D transpose between dim k (unit source stride) and the last dim.
    constexpr int64_t kT = 32;
    const int64_t dk = shape[static_cast<size_t>(k)];
    std::vector<int64_t> dst_strides = StridesOf(shape);
    const int64_t dsk = dst_strides[static_cast<size_t>(k)];
    // Other dims.
    std::vector<size_t> others;
    for (size_t d = 0; d + 1 < r; ++d)
      if (static_cast<int>(d) != k) others.push_back(d);
    int64_t n_outer = 1;
    for (size_t d : others) n_outer *= shape[d];
    const int64_t tiles_k = (dk + kT - 1) / kT;
    const int64_t tiles_j = (inner + kT - 1) / kT;
    const int64_t units = n_outer * tiles_k;
    ParallelFor(pool, units, std::max<int64_t>(1, 4096 / (kT * inner) + 1), [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        int64_t o = u / tiles_k, tk = u % tiles_k;
        int64_t so = 0, dof = 0;
        for (size_t x = others.size(); x-- > 0;) {
          size_t d = others[x];
          int64_t idx = o % shape[d];
          o /= shape[d];
          so += idx * st[d];
          dof += idx * dst_strides[d];
        }
        int64_t i0 = tk * kT, i1 = std::min(dk, i0 + kT);
        for (int64_t tj = 0; tj < tiles_j; ++tj) {
          int64_t j0 = tj * kT, j1 = std::min(inner, j0 + kT);
          for (int64_t i = i0; i < i1; ++i) {
            const W* s = src + so + i;
            W* dd = dst + dof + i * dsk;
            for (int64_t j = j0; j < j1; ++j) dd[j] = s[j * is];
          }
        }
      }
    });
    return;
  }

  const int64_t outer = total / inner;
  ParallelFor(pool, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(r, 0);
    int64_t off = 0;
    int64_t rem = b;
    for (size_t d = r - 1; d-- > 0;) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
      off += idx[d] * st[d];
    }
    for (int64_t o = b; o < e; ++o) {
      W* dd = dst + o * inner;
      const W* s = src + off;
      if (is == 1) {
        CopyN(s, inner, dd);
      } else if (is == 0) {
        for (int64_t j = 0; j < inner; ++j) dd[j] = s[0];
      } else {
        for (int64_t j = 0; j < inner; ++j) dd[j] = s[j * is];
      }
      for (size_t d = r - 1; d-- > 0;) {
        off += st[d];
        if (++idx[d] < shape[d]) break;
        off -= st[d] * shape[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace

void StridedCopy(const void* src, void* dst, const Shape& shape, const std::vector<int64_t>& src_strides, DataType dt,
                 const KernelContext& ctx) {
  DispatchWord(dt, ctx, [&]<typename W>() {
    StridedCopyT<W>(static_cast<const W*>(src), static_cast<W*>(dst), shape, src_strides, ctx.thread_pool());
  });
}

Tensor TransposeTensor(const Tensor& t, const std::vector<int64_t>& perm, const KernelContext& ctx) {
  const Shape& in = t.shape();
  std::vector<int64_t> in_strides = StridesOf(in);
  Shape out_shape(perm.size());
  std::vector<int64_t> st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out_shape[i] = in[static_cast<size_t>(perm[i])];
    st[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  Tensor out(t.dtype(), out_shape);
  StridedCopy(t.raw_data(), out.raw_data(), out_shape, st, t.dtype(), ctx);
  return out;
}

}  // namespace layout

namespace {

using layout::DispatchWord;
using layout::StridedCopy;
using layout::WithUnpacked;
using layout::WithUnpackedMulti;

// Copies `rows` blocks: block o of `len` elements from src + o*src_pitch +
// src_off to dst + o*dst_pitch + dst_off (element units).
void CopyBlocks(const Tensor& src, Tensor& dst, int64_t rows, int64_t len, int64_t src_pitch, int64_t src_off,
                int64_t dst_pitch, int64_t dst_off, const KernelContext& ctx) {
  if (rows <= 0 || len <= 0) return;
  DispatchWord(src.dtype(), ctx, [&]<typename W>() {
    const W* s = src.data<W>();
    W* d = dst.data<W>();
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 32768 / len), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) layout::CopyN(s + o * src_pitch + src_off, len, d + o * dst_pitch + dst_off);
    });
  });
}

// ---- Transpose ---------------------------------------------------------------
class Transpose final : public OpKernel {
 public:
  explicit Transpose(const KernelInfo& info) {
    has_perm_ = info.has_attr("perm");
    if (has_perm_) perm_ = info.attr_ints("perm");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> perm(static_cast<size_t>(r));
    if (has_perm_) {
      if (static_cast<int64_t>(perm_.size()) != r)
        ctx.Fail("perm has ", perm_.size(), " entries but the input ", x.Describe(), " has rank ", r);
      std::vector<bool> seen(static_cast<size_t>(r), false);
      for (int64_t i = 0; i < r; ++i) {
        int64_t p = perm_[static_cast<size_t>(i)];
        if (p < 0) p += r;
        if (p < 0 || p >= r || seen[static_cast<size_t>(p)])
          ctx.Fail("perm is not a permutation of 0..", r - 1);
        seen[static_cast<size_t>(p)] = true;
        perm[static_cast<size_t>(i)] = p;
      }
    } else {
      for (int64_t i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = r - 1 - i;
    }
    // Identity permutation (or one that only moves size-1 dims): a view.
    bool trivial = true;
    int64_t last = -1;
    for (int64_t p : perm) {
      if (x.dim(p) == 1) continue;
      if (p < last) trivial = false;
      last = p;
    }
    Shape out_shape(static_cast<size_t>(r));
    for (int64_t i = 0; i < r; ++i) out_shape[static_cast<size_t>(i)] = x.dim(perm[static_cast<size_t>(i)]);
    if (trivial) {
      ctx.set_output(0, x.Reshaped(out_shape));
      return;
    }
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) { return layout::TransposeTensor(t, perm, ctx); }));
  }

 private:
  bool has_perm_ = false;
  std::vector<int64_t> perm_;
};

// ---- Concat ------------------------------------------------------------------
class Concat final : public OpKernel {
 public:
  explicit Concat(const KernelInfo& info) {
    if (info.opset() < 4)
      axis_ = info.attr_int("axis", 1);
    else
      axis_ = info.attr_int("axis");
  }
  void Compute(KernelContext& ctx) const override {
    size_t n = ctx.num_inputs();
    if (n == 0) ctx.Fail("Concat needs at least one input");
    std::vector<Tensor> ins;
    for (size_t i = 0; i < n; ++i) ins.push_back(ctx.input(i));
    const Tensor& first = ins[0];
    const int64_t r = first.rank();
    if (r == 0) ctx.Fail("Concat does not accept scalar (rank 0) inputs");
    const int64_t axis = NormalizeAxis(axis_, r, ctx);
    Shape out_shape = first.shape();
    out_shape[static_cast<size_t>(axis)] = 0;
    for (const Tensor& t : ins) {
      if (t.dtype() != first.dtype())
        ctx.Fail("inputs have different element types: ", first.Describe(), " and ", t.Describe());
      if (t.rank() != r) ctx.Fail("inputs have different ranks: ", first.Describe(), " and ", t.Describe());
      for (int64_t d = 0; d < r; ++d)
        if (d != axis && t.dim(d) != first.dim(d))
          ctx.Fail("input shapes ", ShapeToString(first.shape()), " and ", ShapeToString(t.shape()),
                   " differ outside axis ", axis);
      out_shape[static_cast<size_t>(axis)] += t.dim(axis);
    }
    if (n == 1) {
      ctx.set_output(0, first);
      return;
    }
    if (IsSubByte(first.dtype())) {
      for (auto& t : ins) t = layout::UnpackSubByte(t);
    }
    DataType work = IsSubByte(first.dtype()) ? DataType::kUInt8 : first.dtype();
    Tensor out(work, out_shape);
    const int64_t outer = SizeToDim(out_shape, static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(out_shape, static_cast<size_t>(axis) + 1);
    const int64_t out_pitch = out_shape[static_cast<size_t>(axis)] * inner;
    int64_t off = 0;
    for (const Tensor& t : ins) {
      int64_t len = t.dim(axis) * inner;
      CopyBlocks(t, out, outer, len, len, 0, out_pitch, off, ctx);
      off += len;
    }
    if (IsSubByte(first.dtype())) out = layout::PackSubByte(out, first.dtype());
    ctx.set_output(0, out);
  }

 private:
  int64_t axis_ = 0;
};

// ---- Split -------------------------------------------------------------------
class Split final : public OpKernel {
 public:
  explicit Split(const KernelInfo& info) : opset_(info.opset()) {
    axis_ = info.attr_int("axis", 0);
    if (opset_ < 13 && info.has_attr("split")) {
      split_attr_ = info.attr_ints("split");
      has_split_attr_ = true;
    }
    if (opset_ >= 18 && info.has_attr("num_outputs")) {
      num_outputs_ = info.attr_int("num_outputs");
      if (num_outputs_ < 1) info.Fail("num_outputs must be positive, got ", num_outputs_);
      if (num_outputs_ != static_cast<int64_t>(info.num_outputs()))
        info.Fail("num_outputs is ", num_outputs_, " but the node has ", info.num_outputs(), " outputs");
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) ctx.Fail("Split needs an input of rank >= 1");
    const int64_t axis = NormalizeAxis(axis_, x.rank(), ctx);
    const int64_t dim = x.dim(axis);
    const int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> split;
    bool from_input = (opset_ >= 13 || opset_ == 1) && ctx.has_input(1);
    if (from_input) {
      split = ReadInts(ctx.input(1));
    } else if (has_split_attr_) {
      split = split_attr_;
    }
    if (!split.empty() || from_input) {
      if (static_cast<int64_t>(split.size()) != n_out)
        ctx.Fail("split has ", split.size(), " entries but the node has ", n_out, " outputs");
      int64_t sum = 0;
      for (int64_t s : split) {
        if (s < 0) ctx.Fail("split entries must be non-negative, got ", s);
        sum += s;
      }
      if (sum != dim) ctx.Fail("split sums to ", sum, " but axis ", axis, " of ", x.Describe(), " has size ", dim);
    } else if (num_outputs_ > 0) {
      int64_t chunk = (dim + num_outputs_ - 1) / num_outputs_;
      int64_t left = dim;
      for (int64_t i = 0; i < num_outputs_; ++i) {
        int64_t c = std::min(chunk, left);
        split.push_back(c);
        left -= c;
      }
    } else {
      if (n_out <= 0 || dim % n_out != 0)
        ctx.Fail("axis ", axis, " of ", x.Describe(), " (size ", dim, ") cannot be split evenly into ", n_out,
                 " outputs");
      split.assign(static_cast<size_t>(n_out), dim / n_out);
    }
    std::vector<Tensor> outs = WithUnpackedMulti(x, [&](const Tensor& t) {
      std::vector<Tensor> res;
      const int64_t outer = SizeToDim(t.shape(), static_cast<size_t>(axis));
      const int64_t inner = SizeFromDim(t.shape(), static_cast<size_t>(axis) + 1);
      int64_t off = 0;
      for (int64_t s : split) {
        Shape os = t.shape();
        os[static_cast<size_t>(axis)] = s;
        Tensor o(t.dtype(), os);
        CopyBlocks(t, o, outer, s * inner, dim * inner, off * inner, s * inner, 0, ctx);
        off += s;
        res.push_back(std::move(o));
      }
      return res;
    });
    for (size_t i = 0; i < outs.size(); ++i)
      if (ctx.output_requested(i)) ctx.set_output(i, outs[i]);
  }

 private:
  int64_t opset_;
  int64_t axis_ = 0;
  bool has_split_attr_ = false;
  std::vector<int64_t> split_attr_;
  int64_t num_outputs_ = 0;
};

// ---- Slice -------------------------------------------------------------------
// Shared by Slice-1 (attributes) and Slice-10+ (inputs).
void DoSlice(KernelContext& ctx, const Tensor& x, const std::vector<int64_t>& starts,
             const std::vector<int64_t>& ends, const std::vector<int64_t>* axes_in,
             const std::vector<int64_t>* steps_in) {
  const int64_t r = x.rank();
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
  Shape out_shape = x.shape();
  std::vector<int64_t> begin(static_cast<size_t>(r), 0), step(static_cast<size_t>(r), 1);
  std::vector<bool> seen(static_cast<size_t>(r), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = NormalizeAxis(axes[i], r, ctx);
    if (seen[static_cast<size_t>(a)]) ctx.Fail("axis ", a, " appears more than once in axes");
    seen[static_cast<size_t>(a)] = true;
    const int64_t d = x.dim(a);
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
      const int64_t mag = st == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -st;
      count = s > e ? (s - e - 1) / mag + 1 : 0;
    }
    out_shape[static_cast<size_t>(a)] = count;
    begin[static_cast<size_t>(a)] = count > 0 ? s : 0;
    step[static_cast<size_t>(a)] = count > 1 ? st : 1;
  }
  if (out_shape == x.shape()) {
    bool all_forward = true;
    for (int64_t s : step) all_forward = all_forward && s > 0;
    if (all_forward) {
      ctx.set_output(0, x);
      return;
    }
  }
  ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                   Tensor out(t.dtype(), out_shape);
                   if (out.numel() == 0) return out;
                   std::vector<int64_t> in_strides = StridesOf(t.shape());
                   int64_t off = 0;
                   std::vector<int64_t> st(static_cast<size_t>(r));
                   for (int64_t i = 0; i < r; ++i) {
                     off += begin[static_cast<size_t>(i)] * in_strides[static_cast<size_t>(i)];
                     st[static_cast<size_t>(i)] = step[static_cast<size_t>(i)] * in_strides[static_cast<size_t>(i)];
                   }
                   const char* base = static_cast<const char*>(t.raw_data()) + off * static_cast<int64_t>(ElementSize(t));
                   StridedCopy(base, out.raw_data(), out_shape, st, t.dtype(), ctx);
                   return out;
                 }));
}

class Slice1 final : public OpKernel {
 public:
  explicit Slice1(const KernelInfo& info) {
    starts_ = info.attr_ints("starts");
    ends_ = info.attr_ints("ends");
    has_axes_ = info.has_attr("axes");
    if (has_axes_) axes_ = info.attr_ints("axes");
  }
  void Compute(KernelContext& ctx) const override {
    DoSlice(ctx, ctx.input(0), starts_, ends_, has_axes_ ? &axes_ : nullptr, nullptr);
  }

 private:
  std::vector<int64_t> starts_, ends_, axes_;
  bool has_axes_ = false;
};

class Slice10 final : public OpKernel {
 public:
  explicit Slice10(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    std::vector<int64_t> starts = ReadInts(ctx.input(1));
    std::vector<int64_t> ends = ReadInts(ctx.input(2));
    std::vector<int64_t> axes, steps;
    bool has_axes = ctx.has_input(3), has_steps = ctx.has_input(4);
    if (has_axes) axes = ReadInts(ctx.input(3));
    if (has_steps) steps = ReadInts(ctx.input(4));
    DoSlice(ctx, ctx.input(0), starts, ends, has_axes ? &axes : nullptr, has_steps ? &steps : nullptr);
  }
};

// ---- Tile --------------------------------------------------------------------
class Tile final : public OpKernel {
 public:
  explicit Tile(const KernelInfo& info) : opset_(info.opset()) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> reps;
    if (opset_ < 6) {
      // Tile-1: tiles (scalar count) and axis inputs.
      int64_t tiles = ReadInts(ctx.input(1)).at(0);
      int64_t axis = NormalizeAxis(ReadInts(ctx.input(2)).at(0), r, ctx);
      reps.assign(static_cast<size_t>(r), 1);
      reps[static_cast<size_t>(axis)] = tiles;
    } else {
      reps = ReadInts(ctx.input(1));
    }
    if (static_cast<int64_t>(reps.size()) != r)
      ctx.Fail("repeats has ", reps.size(), " entries but the input ", x.Describe(), " has rank ", r);
    Shape out_shape(static_cast<size_t>(r));
    Shape view;
    std::vector<int64_t> st;
    std::vector<int64_t> in_strides = StridesOf(x.shape());
    for (int64_t i = 0; i < r; ++i) {
      int64_t rep = reps[static_cast<size_t>(i)];
      if (rep < 0) ctx.Fail("repeats must be non-negative, got ", rep);
      out_shape[static_cast<size_t>(i)] = x.dim(i) * rep;
      view.push_back(rep);
      st.push_back(0);
      view.push_back(x.dim(i));
      st.push_back(in_strides[static_cast<size_t>(i)]);
    }
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     Tensor out(t.dtype(), out_shape);
                     if (out.numel() > 0) StridedCopy(t.raw_data(), out.raw_data(), view, st, t.dtype(), ctx);
                     return out;
                   }));
  }

 private:
  int64_t opset_;
};

}  // namespace

std::vector<KernelRow> LayoutKernels() {
  auto all = types::All();
  return {
      {"ai.onnx", "Transpose", 1, kMaxOnnxOpset, all, Make<Transpose>()},
      {"ai.onnx", "Concat", 1, 3, all, Make<Concat>()},
      {"ai.onnx", "Concat", 4, kMaxOnnxOpset, all, Make<Concat>()},
      {"ai.onnx", "Split", 1, 1, all, Make<Split>()},
      {"ai.onnx", "Split", 2, 12, all, Make<Split>()},
      {"ai.onnx", "Split", 13, 17, all, Make<Split>()},
      {"ai.onnx", "Split", 18, kMaxOnnxOpset, all, Make<Split>()},
      {"ai.onnx", "Slice", 1, 9, all, Make<Slice1>()},
      {"ai.onnx", "Slice", 10, kMaxOnnxOpset, all, Make<Slice10>()},
      {"ai.onnx", "Tile", 1, 5, all, Make<Tile>()},
      {"ai.onnx", "Tile", 6, kMaxOnnxOpset, all, Make<Tile>()},
  };
}

}  // namespace tessera::cpu
