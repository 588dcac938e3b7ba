// Data-movement kernels that rearrange elements: Transpose, Concat, Split,
// Slice, Tile, DepthToSpace, SpaceToDepth, Trilu, Compress, ReverseSequence
// (padding: tensor_padding.cc; the strided copy: strided_copy.cc). They
// move elements as opaque words of the element's size (strings as
// std::string objects); sub-byte types go through an unpacked uint8 copy.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

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
  explicit Transpose(const KernelInfo& info) : perm_(info.optional_attr_ints("perm")) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    std::vector<int64_t> perm(static_cast<size_t>(r));
    if (perm_) {
      if (static_cast<int64_t>(perm_->size()) != r)
        ctx.Fail("perm has ", perm_->size(), " entries but the input ", x.Describe(), " has rank ", r);
      std::vector<bool> seen(static_cast<size_t>(r), false);
      for (int64_t i = 0; i < r; ++i) {
        int64_t p = (*perm_)[static_cast<size_t>(i)];
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
  std::optional<std::vector<int64_t>> perm_;  // absent: reverse the axes
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
    std::vector<int64_t> given;
    bool from_input = (opset_ >= 13 || opset_ == 1) && ctx.has_input(1);
    if (from_input) {
      given = ReadInts(ctx.input(1));
    } else if (has_split_attr_) {
      given = split_attr_;
    }
    std::vector<int64_t> split =
        ResolveSplit(ctx, x, axis, n_out, (from_input || !given.empty()) ? &given : nullptr, num_outputs_);
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
  SliceWindow w = ResolveSlice(ctx, x.shape(), starts, ends, axes_in, steps_in);
  const Shape& out_shape = w.out_shape;
  const std::vector<int64_t>& begin = w.begin;
  const std::vector<int64_t>& step = w.step;
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
  explicit Slice1(const KernelInfo& info)
      : starts_(info.attr_ints("starts")), ends_(info.attr_ints("ends")), axes_(info.optional_attr_ints("axes")) {}
  void Compute(KernelContext& ctx) const override {
    DoSlice(ctx, ctx.input(0), starts_, ends_, axes_ ? &*axes_ : nullptr, nullptr);
  }

 private:
  std::vector<int64_t> starts_, ends_;
  std::optional<std::vector<int64_t>> axes_;
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

// ---- DepthToSpace / SpaceToDepth ------------------------------------------------
class DepthToSpace final : public OpKernel {
 public:
  explicit DepthToSpace(const KernelInfo& info) {
    block_ = info.attr_int("blocksize");
    if (block_ <= 0) info.Fail("blocksize must be positive, got ", block_);
    std::string mode = info.attr_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") info.Fail("mode must be DCR or CRD, got '", mode, "'");
    crd_ = mode == "CRD";
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.Fail("DepthToSpace needs a 4-D input, got ", x.Describe());
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = block_;
    if (c % (b * b) != 0) ctx.Fail("channels ", c, " are not divisible by blocksize^2 = ", b * b);
    const int64_t c2 = c / (b * b);
    Shape view = crd_ ? Shape{n, c2, b, b, h, w} : Shape{n, b, b, c2, h, w};
    std::vector<int64_t> perm = crd_ ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     return layout::TransposeTensor(t.Reshaped(view), perm, ctx).Reshaped({n, c2, h * b, w * b});
                   }));
  }

 private:
  int64_t block_ = 1;
  bool crd_ = false;
};

class SpaceToDepth final : public OpKernel {
 public:
  explicit SpaceToDepth(const KernelInfo& info) {
    block_ = info.attr_int("blocksize");
    if (block_ <= 0) info.Fail("blocksize must be positive, got ", block_);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.Fail("SpaceToDepth needs a 4-D input, got ", x.Describe());
    const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = block_;
    if (h % b != 0 || w % b != 0) ctx.Fail("spatial dims ", h, "x", w, " are not divisible by blocksize ", b);
    Shape view{n, c, h / b, b, w / b, b};
    std::vector<int64_t> perm{0, 3, 5, 1, 2, 4};
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     return layout::TransposeTensor(t.Reshaped(view), perm, ctx).Reshaped({n, c * b * b, h / b, w / b});
                   }));
  }

 private:
  int64_t block_ = 1;
};

// ---- Trilu ---------------------------------------------------------------------
class Trilu final : public OpKernel {
 public:
  explicit Trilu(const KernelInfo& info) : upper_(info.attr_int("upper", 1) != 0) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("Trilu needs an input of rank >= 2, got ", x.Describe());
    int64_t k = 0;
    if (ctx.has_input(1)) {
      const Tensor& kt = ctx.input(1);
      if (kt.numel() != 1) ctx.Fail("k must be a scalar, got ", kt.Describe());
      k = kt.GetAsInt64(0);
    }
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     Tensor out(t.dtype(), t.shape());
                     DispatchWord(t.dtype(), ctx, [&]<typename W>() {
                       const W* s = t.data<W>();
                       W* o = out.data<W>();
                       ParallelFor(ctx.thread_pool(), mats * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)),
                                   [&](int64_t b, int64_t e) {
                                     for (int64_t mr = b; mr < e; ++mr) {
                                       const int64_t i = mr % rows;
                                       // Kept columns: upper j >= i + k; lower j <= i + k.
                                       int64_t j0, j1;
                                       if (upper_) {
                                         j0 = std::clamp<int64_t>(i + k, 0, cols);
                                         j1 = cols;
                                       } else {
                                         j0 = 0;
                                         j1 = std::clamp<int64_t>(i + k + 1, 0, cols);
                                       }
                                       const W* sr = s + mr * cols;
                                       W* orow = o + mr * cols;
                                       for (int64_t j = 0; j < j0; ++j) orow[j] = W{};
                                       layout::CopyN(sr + j0, j1 - j0, orow + j0);
                                       for (int64_t j = std::max(j1, j0); j < cols; ++j) orow[j] = W{};
                                     }
                                   });
                     });
                     return out;
                   }));
  }

 private:
  bool upper_;
};

// ---- Compress --------------------------------------------------------------------
class Compress final : public OpKernel {
 public:
  explicit Compress(const KernelInfo& info) {
    has_axis_ = info.has_attr("axis");
    axis_ = info.attr_int("axis", 0);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x0 = ctx.input(0);
    const Tensor& cond = ctx.input(1);
    if (cond.rank() > 1) ctx.Fail("condition must be 1-D, got ", cond.Describe());
    Tensor x = has_axis_ ? x0 : x0.Reshaped({x0.numel()});
    const int64_t axis = has_axis_ ? NormalizeAxis(axis_, x.rank(), ctx) : 0;
    if (x.rank() == 0) ctx.Fail("Compress needs an input of rank >= 1 when axis is given");
    const int64_t d = x.dim(axis);
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < cond.numel(); ++i) {
      bool c = cond.dtype() == DataType::kBool ? cond.data<bool>()[i] : cond.GetAsDouble(i) != 0;
      if (!c) continue;
      if (i >= d) ctx.Fail("condition has a true entry at ", i, " beyond axis size ", d);
      keep.push_back(i);
    }
    Shape out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = static_cast<int64_t>(keep.size());
    const int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    const int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     Tensor out(t.dtype(), out_shape);
                     const int64_t nk = static_cast<int64_t>(keep.size());
                     for (int64_t j = 0; j < nk; ++j)
                       CopyBlocks(t, out, outer, inner, d * inner, keep[static_cast<size_t>(j)] * inner, nk * inner,
                                  j * inner, ctx);
                     return out;
                   }));
  }

 private:
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// ---- ReverseSequence ---------------------------------------------------------------
class ReverseSequence final : public OpKernel {
 public:
  explicit ReverseSequence(const KernelInfo& info) {
    time_axis_ = info.attr_int("time_axis", 0);
    batch_axis_ = info.attr_int("batch_axis", 1);
    if (!((time_axis_ == 0 && batch_axis_ == 1) || (time_axis_ == 1 && batch_axis_ == 0)))
      info.Fail("time_axis and batch_axis must be 0 and 1 in some order, got ", time_axis_, " and ", batch_axis_);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("ReverseSequence needs an input of rank >= 2, got ", x.Describe());
    std::vector<int64_t> lens = ReadInts(ctx.input(1));
    const int64_t T = x.dim(time_axis_), B = x.dim(batch_axis_);
    if (static_cast<int64_t>(lens.size()) != B)
      ctx.Fail("sequence_lens has ", lens.size(), " entries but the batch size is ", B);
    for (int64_t l : lens)
      if (l < 0 || l > T) ctx.Fail("sequence length ", l, " is outside [0, ", T, "]");
    const int64_t inner = SizeFromDim(x.shape(), 2);
    const int64_t t_stride = time_axis_ == 0 ? B * inner : inner;
    const int64_t b_stride = batch_axis_ == 0 ? T * inner : inner;
    ctx.set_output(0, WithUnpacked(x, [&](const Tensor& t) {
                     Tensor out(t.dtype(), t.shape());
                     DispatchWord(t.dtype(), ctx, [&]<typename W>() {
                       const W* s = t.data<W>();
                       W* o = out.data<W>();
                       for (int64_t b = 0; b < B; ++b) {
                         const int64_t len = lens[static_cast<size_t>(b)];
                         for (int64_t ti = 0; ti < T; ++ti) {
                           const int64_t src_t = ti < len ? len - 1 - ti : ti;
                           layout::CopyN(s + b * b_stride + src_t * t_stride, inner, o + b * b_stride + ti * t_stride);
                         }
                       }
                     });
                     return out;
                   }));
  }

 private:
  int64_t time_axis_ = 0, batch_axis_ = 1;
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
      {"ai.onnx", "DepthToSpace", 1, 10, all, Make<DepthToSpace>()},
      {"ai.onnx", "DepthToSpace", 11, kMaxOnnxOpset, all, Make<DepthToSpace>()},
      {"ai.onnx", "SpaceToDepth", 1, kMaxOnnxOpset, all, Make<SpaceToDepth>()},
      {"ai.onnx", "Trilu", 14, kMaxOnnxOpset, all, Make<Trilu>()},
      {kMicrosoftDomain, "Trilu", 1, 1, all, Make<Trilu>()},  // ONNX Runtime's, before opset 14
      {"ai.onnx", "Compress", 9, 10, all, Make<Compress>()},
      {"ai.onnx", "Compress", 11, kMaxOnnxOpset, all, Make<Compress>()},
      {"ai.onnx", "ReverseSequence", 10, kMaxOnnxOpset, all, Make<ReverseSequence>()},
  };
}

}  // namespace tessera::cpu
