// Data movement on the device, blind to element meaning: every kernel moves
// 1-, 2-, 4- or 8-byte words (uchar/ushort/uint/ulong), so one set serves
// every fixed-size type. Transpose, Slice, Expand, Concat, Split,
// DepthToSpace and SpaceToDepth are strided copies (ts_view); Tile, Pad and
// Gather have their own kernels. Shapes, axes and indices are host inputs.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kLayoutSource = R"CLC(
typedef struct {
  int rank;
  int n;
  int src_base;
  int dst_base;
  int dims[TS_MAX_RANK];
  int ss[TS_MAX_RANK]; /* source strides (0 = broadcast) */
  int sm[TS_MAX_RANK]; /* source coordinate = c % sm (Tile); sm >= dims elsewhere */
  int ds[TS_MAX_RANK]; /* destination strides */
} ts_view;

typedef struct {
  int rank;
  int n;
  int mode; /* 0 constant, 1 reflect, 2 edge, 3 wrap */
  int dims[TS_MAX_RANK];
  int lo[TS_MAX_RANK];
  int in_dims[TS_MAX_RANK];
  int in_strides[TS_MAX_RANK];
} ts_pad;

#define TS_LAYOUT(T, S) \
__kernel void ts_view_##S(__global const T* x, __global T* y, ts_view v) { \
  int i = get_global_id(0); \
  if (i >= v.n) return; \
  int so = v.src_base, dof = v.dst_base, r = i; \
  for (int d = v.rank - 1; d >= 0; --d) { \
    int c = r % v.dims[d]; \
    r /= v.dims[d]; \
    so += (c % v.sm[d]) * v.ss[d]; \
    dof += c * v.ds[d]; \
  } \
  y[dof] = x[so]; \
} \
__kernel void ts_pad_##S(__global const T* x, __global T* y, ts_pad p, T value) { \
  int i = get_global_id(0); \
  if (i >= p.n) return; \
  int so = 0, r = i, inside = 1; \
  for (int d = p.rank - 1; d >= 0; --d) { \
    int c = r % p.dims[d] - p.lo[d]; \
    r /= p.dims[d]; \
    int n = p.in_dims[d]; \
    if (c < 0 || c >= n) { \
      if (p.mode == 0) { inside = 0; break; } \
      if (p.mode == 1) { int period = 2 * (n - 1); c = period == 0 ? 0 : ((c % period) + period) % period; \
                         if (c >= n) c = period - c; } \
      else if (p.mode == 2) c = c < 0 ? 0 : n - 1; \
      else c = ((c % n) + n) % n; \
    } \
    so += c * p.in_strides[d]; \
  } \
  y[i] = inside ? x[so] : value; \
} \
__kernel void ts_gather_##S(__global const T* x, __global const int* idx, __global T* y, int n, int nidx, \
                            int axis_dim, int inner) { \
  int i = get_global_id(0); \
  if (i >= n) return; \
  int r = i % inner; \
  int j = (i / inner) % nidx; \
  int o = i / (inner * nidx); \
  y[i] = x[(o * axis_dim + idx[j]) * inner + r]; \
}

TS_LAYOUT(uchar, u8)
TS_LAYOUT(ushort, u16)
TS_LAYOUT(uint, u32)
TS_LAYOUT(ulong, u64)
)CLC";

namespace {

struct View {
  int32_t rank = 0, n = 0, src_base = 0, dst_base = 0;
  int32_t dims[kMaxRank] = {}, ss[kMaxRank] = {}, sm[kMaxRank] = {}, ds[kMaxRank] = {};
};

struct PadInfo {
  int32_t rank = 0, n = 0, mode = 0;
  int32_t dims[kMaxRank] = {}, lo[kMaxRank] = {}, in_dims[kMaxRank] = {}, in_strides[kMaxRank] = {};
};

constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();

// Kernel name for a word size: "ts_view" -> "ts_view_u32".
std::string KernelFor(const KernelContext& ctx, const char* base, DataType t) {
  if (IsSubByte(t) || t == DataType::kString) ctx.Fail("cannot move ", DataTypeName(t), " on OpenCL");
  switch (ElementBits(t)) {
    case 8: return std::string(base) + "_u8";
    case 16: return std::string(base) + "_u16";
    case 32: return std::string(base) + "_u32";
    case 64: return std::string(base) + "_u64";
    default: ctx.Fail("no OpenCL word kernel for ", DataTypeName(t));
  }
}

void Check32(const KernelContext& ctx, int64_t v, const char* what) {
  if (v < 0 || v >= kI32Max) ctx.Fail("the OpenCL kernels index with 32 bits; ", what, " ", v, " is too large");
}

// Copies the elements of a `dims`-shaped index space from x (at src_base +
// sum c*src_strides) to y (at dst_base + sum c*dst_strides).
void CopyView(const KernelContext& ctx, Runtime& rt, const Tensor& x, const Tensor& y, const Shape& dims,
              const std::vector<int64_t>& src_strides, int64_t src_base, const std::vector<int64_t>& dst_strides,
              int64_t dst_base, const Shape* mods = nullptr) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) ctx.Fail("the OpenCL kernels handle rank <= ", kMaxRank);
  CheckIndexable(ctx, x);
  CheckIndexable(ctx, y);
  View v;
  v.rank = I32(static_cast<int64_t>(dims.size()));
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    v.dims[d] = I32(dims[d]);
    v.ss[d] = I32(src_strides[d]);
    v.ds[d] = I32(dst_strides[d]);
    v.sm[d] = mods ? I32(std::max<int64_t>((*mods)[d], 1)) : std::max(v.dims[d], 1);
    n *= dims[d];
  }
  Check32(ctx, n, "element count");
  if (n == 0) return;
  v.n = I32(n);
  v.src_base = I32(src_base);
  v.dst_base = I32(dst_base);
  rt.Launch1D(KernelFor(ctx, "ts_view", x.dtype()).c_str(), {MemOf(x), MemOf(y), KernelArg::Value(v)},
              static_cast<size_t>(n));
}

// ---- Transpose -------------------------------------------------------------
class Transpose final : public OpenClKernel {
 public:
  explicit Transpose(const KernelInfo& info) {
    if (info.has_attr("perm")) perm_ = info.attr_ints("perm");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
    }
    if (static_cast<int64_t>(perm.size()) != r) ctx.Fail("perm has ", perm.size(), " entries for rank ", r);
    std::vector<bool> seen(static_cast<size_t>(r), false);
    Shape out;
    std::vector<int64_t> in_st = cpu::StridesOf(x.shape()), ss;
    for (int64_t p : perm) {
      int64_t a = cpu::NormalizeAxis(p, r, ctx);
      if (seen[static_cast<size_t>(a)]) ctx.Fail("perm is not a permutation: it repeats axis ", p);
      seen[static_cast<size_t>(a)] = true;
      out.push_back(x.dim(a));
      ss.push_back(in_st[static_cast<size_t>(a)]);
    }
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CopyView(ctx, rt(), x, y, out, ss, 0, cpu::StridesOf(out), 0);
  }

 private:
  std::vector<int64_t> perm_;
};

// ---- Concat ----------------------------------------------------------------
class Concat final : public OpenClKernel {
 public:
  explicit Concat(const KernelInfo& info) : axis_(info.attr_int("axis")) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& first = ctx.input(0);
    int64_t r = first.rank();
    if (r == 0) ctx.Fail("Concat needs inputs of rank >= 1");
    int64_t axis = cpu::NormalizeAxis(axis_, r, ctx);
    Shape out = first.shape();
    out[static_cast<size_t>(axis)] = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype() || t.rank() != r) ctx.Fail("input ", i, " ", t.Describe(), " does not match ", first.Describe());
      for (int64_t d = 0; d < r; ++d)
        if (d != axis && t.dim(d) != first.dim(d))
          ctx.Fail("input ", i, " ", t.Describe(), " and ", first.Describe(), " differ outside axis ", axis);
      out[static_cast<size_t>(axis)] += t.dim(axis);
    }
    Tensor y = NewOutput(ctx, 0, first.dtype(), out);
    std::vector<int64_t> out_st = cpu::StridesOf(out);
    int64_t offset = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      CopyView(ctx, rt(), t, y, t.shape(), cpu::StridesOf(t.shape()), 0, out_st, offset * out_st[static_cast<size_t>(axis)]);
      offset += t.dim(axis);
    }
  }

 private:
  int64_t axis_;
};

// ---- Split -----------------------------------------------------------------
class Split final : public OpenClKernel {
 public:
  explicit Split(const KernelInfo& info) : opset_(info.opset()), axis_(info.attr_int("axis", 0)) {
    if (opset_ < 13 && info.has_attr("split")) split_attr_ = info.attr_ints("split");
    if (opset_ >= 18 && info.has_attr("num_outputs")) num_outputs_ = info.attr_int("num_outputs");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) ctx.Fail("Split needs an input of rank >= 1");
    int64_t axis = cpu::NormalizeAxis(axis_, x.rank(), ctx);
    int64_t n_out = static_cast<int64_t>(ctx.num_outputs());
    std::vector<int64_t> given = split_attr_;
    bool from_input = (opset_ >= 13 || opset_ == 1) && ctx.has_input(1);
    if (from_input) given = ctx.input(1).ToInt64Vector();
    std::vector<int64_t> split =
        cpu::ResolveSplit(ctx, x, axis, n_out, (from_input || !given.empty()) ? &given : nullptr, num_outputs_);
    std::vector<int64_t> in_st = cpu::StridesOf(x.shape());
    int64_t offset = 0;
    for (size_t i = 0; i < split.size(); ++i) {
      Shape s = x.shape();
      s[static_cast<size_t>(axis)] = split[i];
      Tensor y = NewOutput(ctx, i, x.dtype(), s);
      CopyView(ctx, rt(), x, y, s, in_st, offset * in_st[static_cast<size_t>(axis)], cpu::StridesOf(s), 0);
      offset += split[i];
    }
  }

 private:
  int64_t opset_, axis_;
  std::vector<int64_t> split_attr_;
  int64_t num_outputs_ = 0;
};

// ---- Slice -----------------------------------------------------------------
class Slice final : public OpenClKernel {
 public:
  explicit Slice(const KernelInfo& info) : opset_(info.opset()) {
    if (opset_ < 10) {
      starts_ = info.attr_ints("starts");
      ends_ = info.attr_ints("ends");
      has_axes_ = info.has_attr("axes");
      if (has_axes_) axes_ = info.attr_ints("axes");
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    std::vector<int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    bool has_axes = has_axes_, has_steps = false;
    if (opset_ >= 10) {
      starts = ctx.input(1).ToInt64Vector();
      ends = ctx.input(2).ToInt64Vector();
      has_axes = ctx.has_input(3);
      has_steps = ctx.has_input(4);
      if (has_axes) axes = ctx.input(3).ToInt64Vector();
      if (has_steps) steps = ctx.input(4).ToInt64Vector();
    }
    cpu::SliceWindow w = cpu::ResolveSlice(ctx, x.shape(), starts, ends, has_axes ? &axes : nullptr,
                                           has_steps ? &steps : nullptr);
    std::vector<int64_t> in_st = cpu::StridesOf(x.shape()), ss(static_cast<size_t>(r));
    const Shape& out = w.out_shape;
    int64_t base = 0;
    for (size_t a = 0; a < static_cast<size_t>(r); ++a) {
      base += w.begin[a] * in_st[a];
      ss[a] = w.step[a] * in_st[a];
    }
    for (int64_t& v : ss) Check32(ctx, std::abs(v), "stride");
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CopyView(ctx, rt(), x, y, out, ss, base, cpu::StridesOf(out), 0);
  }

 private:
  int64_t opset_;
  std::vector<int64_t> starts_, ends_, axes_;
  bool has_axes_ = false;
};

// ---- Expand ----------------------------------------------------------------
class Expand final : public OpenClKernel {
 public:
  explicit Expand(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> target = ctx.input(1).ToInt64Vector();
    size_t r = std::max(target.size(), x.shape().size());
    Shape out(r, 1);
    std::vector<int64_t> in_st = cpu::StridesOf(x.shape()), ss(r, 0);
    for (size_t k = 0; k < r; ++k) {
      size_t d = r - 1 - k;
      int64_t dx = k < x.shape().size() ? x.shape()[x.shape().size() - 1 - k] : 1;
      int64_t dt = k < target.size() ? target[target.size() - 1 - k] : 1;
      if (dx != dt && dx != 1 && dt != 1)
        ctx.Fail("cannot expand ", x.Describe(), " to ", ShapeToString(target), ": the shapes cannot be broadcast");
      out[d] = dx == 1 ? dt : dx;
      if (out[d] < 0) ctx.Fail("invalid shape entry ", out[d]);
      ss[d] = dx == 1 ? 0 : in_st[x.shape().size() - 1 - k];
    }
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CopyView(ctx, rt(), x, y, out, ss, 0, cpu::StridesOf(out), 0);
  }
};

// ---- Tile ------------------------------------------------------------------
class Tile final : public OpenClKernel {
 public:
  explicit Tile(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> repeats = ctx.input(1).ToInt64Vector();
    if (static_cast<int64_t>(repeats.size()) != x.rank())
      ctx.Fail("repeats has ", repeats.size(), " entries for ", x.Describe());
    Shape out = x.shape();
    for (size_t d = 0; d < out.size(); ++d) {
      if (repeats[d] < 0) ctx.Fail("repeats must be non-negative, got ", repeats[d]);
      out[d] *= repeats[d];
    }
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CopyView(ctx, rt(), x, y, out, cpu::StridesOf(x.shape()), 0, cpu::StridesOf(out), 0, &x.shape());
  }
};

// ---- Pad -------------------------------------------------------------------
class Pad final : public OpenClKernel {
 public:
  explicit Pad(const KernelInfo& info) : opset_(info.opset()) {
    std::string mode = info.attr_string("mode", "constant");
    if (mode == "constant") mode_ = 0;
    else if (mode == "reflect") mode_ = 1;
    else if (mode == "edge") mode_ = 2;
    else if (mode == "wrap" && opset_ >= 19) mode_ = 3;
    else info.Fail("unsupported pad mode '", mode, "'");
    if (opset_ < 11) {
      pads_ = info.attr_ints("pads");
      value_ = info.attr_float("value", 0.0f);
    }
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    if (r > kMaxRank) ctx.Fail("the OpenCL kernels handle rank <= ", kMaxRank);
    std::vector<int64_t> pads = opset_ < 11 ? pads_ : ctx.input(1).ToInt64Vector();
    const bool has_axes = opset_ >= 18 && ctx.has_input(3);
    const std::vector<int64_t> axes = has_axes ? ctx.input(3).ToInt64Vector() : std::vector<int64_t>{};
    const cpu::PadAmounts amounts = cpu::ResolvePads(ctx, r, pads, has_axes ? &axes : nullptr);
    const std::vector<int64_t>& pb = amounts.begin;
    const std::vector<int64_t>& pe = amounts.end;
    // The fill value as raw bytes of x's type (zero unless given).
    uint64_t fill = 0;
    size_t esize = static_cast<size_t>(ElementBits(x.dtype()) / 8);
    if (mode_ == 0) {
      if (opset_ < 11) {
        if (x.dtype() != DataType::kFloat) ctx.Fail("Pad before opset 11 runs on OpenCL for float only");
        std::memcpy(&fill, &value_, sizeof(float));
      } else if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
        const Tensor& v = ctx.input(2);
        if (v.dtype() != x.dtype() || v.numel() != 1)
          ctx.Fail("constant_value ", v.Describe(), " must be a scalar of type ", DataTypeName(x.dtype()));
        std::memcpy(&fill, v.raw_data(), esize);
      }
    }
    PadInfo p;
    p.rank = I32(r);
    p.mode = mode_;
    Shape out(static_cast<size_t>(r));
    std::vector<int64_t> in_st = cpu::StridesOf(x.shape());
    for (size_t d = 0; d < out.size(); ++d) {
      int64_t n = x.shape()[d];
      out[d] = n + pb[d] + pe[d];
      if (out[d] < 0) ctx.Fail("pads ", ShapeToString(pads), " remove more than axis ", d, " of ", x.Describe());
      if (mode_ != 0 && n == 0 && out[d] > 0) ctx.Fail("cannot pad an empty axis in this mode");
      Check32(ctx, std::abs(pb[d]), "pad");
      p.dims[d] = I32(out[d]);
      p.lo[d] = I32(pb[d]);
      p.in_dims[d] = I32(n);
      p.in_strides[d] = I32(in_st[d]);
    }
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CheckIndexable(ctx, x);
    CheckIndexable(ctx, y);
    if (y.numel() == 0) return;
    p.n = I32(y.numel());
    KernelArg value = KernelArg::Value(fill);
    value.bytes.resize(esize);  // little-endian: the low bytes are the element
    rt().Launch1D(KernelFor(ctx, "ts_pad", x.dtype()).c_str(), {MemOf(x), MemOf(y), KernelArg::Value(p), value},
                  static_cast<size_t>(y.numel()));
  }

 private:
  int64_t opset_;
  int mode_ = 0;
  std::vector<int64_t> pads_;
  float value_ = 0.0f;
};

// ---- Gather ----------------------------------------------------------------
class Gather final : public OpenClKernel {
 public:
  explicit Gather(const KernelInfo& info) : axis_(info.attr_int("axis", 0)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (x.rank() == 0) ctx.Fail("Gather needs data of rank >= 1");
    int64_t axis = cpu::NormalizeAxis(axis_, x.rank(), ctx);
    int64_t dim = x.dim(axis);
    if (indices.dtype() != DataType::kInt32 && indices.dtype() != DataType::kInt64)
      ctx.Fail("indices must be int32 or int64, got ", indices.Describe());
    std::vector<int32_t> idx(static_cast<size_t>(indices.numel()));
    for (int64_t i = 0; i < indices.numel(); ++i) {
      int64_t v = indices.GetAsInt64(i);
      if (v < -dim || v >= dim) ctx.Fail("index ", v, " is out of range for axis ", axis, " of size ", dim);
      idx[static_cast<size_t>(i)] = I32(v < 0 ? v + dim : v);
    }
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    out.insert(out.end(), indices.shape().begin(), indices.shape().end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CheckIndexable(ctx, x);
    CheckIndexable(ctx, y);
    if (y.numel() == 0) return;
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    Tensor dev_idx = NewDeviceTensor(runtime(), DataType::kInt32, {indices.numel()});
    rt().Write(MemOf(dev_idx), 0, idx.size() * sizeof(int32_t), idx.data());
    rt().Launch1D(KernelFor(ctx, "ts_gather", x.dtype()).c_str(),
                  {MemOf(x), MemOf(dev_idx), MemOf(y), KernelArg::Value(I32(y.numel())),
                   KernelArg::Value(I32(indices.numel())), KernelArg::Value(I32(dim)), KernelArg::Value(I32(inner))},
                  static_cast<size_t>(y.numel()));
  }

 private:
  int64_t axis_;
};

// ---- DepthToSpace / SpaceToDepth -------------------------------------------
// Both are a 6-D transpose of a reshaped NCHW tensor.
class DepthSpace final : public OpenClKernel {
 public:
  DepthSpace(const KernelInfo& info, bool to_space)
      : to_space_(to_space), block_(info.attr_int("blocksize")), crd_(info.attr_string("mode", "DCR") == "CRD") {
    if (block_ <= 0) info.Fail("blocksize must be positive, got ", block_);
    std::string mode = info.attr_string("mode", "DCR");
    if (to_space && mode != "DCR" && mode != "CRD") info.Fail("mode must be DCR or CRD, got '", mode, "'");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.Fail("expects a 4-D input, got ", x.Describe());
    int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = block_;
    Shape in6, out;
    std::vector<int64_t> perm;
    if (to_space_) {
      if (c % (b * b) != 0) ctx.Fail("channels ", c, " are not divisible by blocksize^2 = ", b * b);
      int64_t oc = c / (b * b);
      in6 = crd_ ? Shape{n, oc, b, b, h, w} : Shape{n, b, b, oc, h, w};
      perm = crd_ ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
      out = {n, oc, h * b, w * b};
    } else {
      if (h % b != 0 || w % b != 0) ctx.Fail("spatial dims of ", x.Describe(), " are not divisible by ", b);
      in6 = {n, c, h / b, b, w / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      out = {n, c * b * b, h / b, w / b};
    }
    std::vector<int64_t> st6 = cpu::StridesOf(in6), ss;
    Shape dims;
    for (int64_t p : perm) {
      dims.push_back(in6[static_cast<size_t>(p)]);
      ss.push_back(st6[static_cast<size_t>(p)]);
    }
    Tensor y = NewOutput(ctx, 0, x.dtype(), out);
    CopyView(ctx, rt(), x, y, dims, ss, 0, cpu::StridesOf(dims), 0);
  }

 private:
  bool to_space_;
  int64_t block_;
  bool crd_;
};

std::vector<DataType> WordTypes() {
  return {DataType::kFloat, DataType::kUInt8, DataType::kInt8, DataType::kUInt16, DataType::kInt16,
          DataType::kInt32, DataType::kInt64, DataType::kBool, DataType::kFloat16, DataType::kDouble,
          DataType::kUInt32, DataType::kUInt64, DataType::kComplex64, DataType::kBFloat16,
          DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ,
          DataType::kFloat8E8M0};
}

// Declines inputs whose rank is known to exceed what the kernels index.
std::string RankFits(const NodeQuery& q) {
  const TypeInfo* t = q.input_type(0);
  if (t && t->shape && t->shape->size() > static_cast<size_t>(kMaxRank))
    return "rank " + std::to_string(t->shape->size()) + " > " + std::to_string(kMaxRank);
  return "";
}

OpenClRow Row(const char* op, int64_t first, int64_t last, KernelFactory f, std::vector<size_t> host_inputs = {},
              std::function<std::string(const NodeQuery&)> check = RankFits) {
  return OpenClRow{KernelRow{kOnnxDomain, op, first, last, WordTypes(), std::move(f)}, std::move(host_inputs), {},
                   std::move(check)};
}

}  // namespace

std::vector<OpenClRow> LayoutRows() {
  std::vector<OpenClRow> rows;
  rows.push_back(Row("Transpose", 1, kMaxOnnxOpset, Make<Transpose>()));
  // Opset 4 made Concat's axis required; earlier versions defaulted it.
  rows.push_back(Row("Concat", 4, kMaxOnnxOpset, Make<Concat>()));
  rows.push_back(Row("Split", 1, kMaxOnnxOpset, Make<Split>(), {1}));
  rows.push_back(Row("Slice", 1, kMaxOnnxOpset, Make<Slice>(), {1, 2, 3, 4}));
  rows.push_back(Row("Gather", 1, kMaxOnnxOpset, Make<Gather>(), {1}));
  rows.push_back(Row("Expand", 8, kMaxOnnxOpset, Make<Expand>(), {1}));
  rows.push_back(Row("Tile", 6, kMaxOnnxOpset, Make<Tile>(), {1}));
  // Opset 2 renamed `paddings` to `pads`; before 11 the value is a float attribute.
  rows.push_back(Row("Pad", 2, 10, Make<Pad>(), {}, [](const NodeQuery& q) {
    const TypeInfo* t = q.input_type(0);
    if (t && t->is_tensor() && t->elem_type != DataType::kFloat) return std::string("Pad < 11 runs on OpenCL for float only");
    return RankFits(q);
  }));
  rows.push_back(Row("Pad", 11, kMaxOnnxOpset, Make<Pad>(), {1, 2, 3}));
  rows.push_back(Row("DepthToSpace", 1, kMaxOnnxOpset, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<DepthSpace>(i, true);
  }));
  rows.push_back(Row("SpaceToDepth", 1, kMaxOnnxOpset, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<DepthSpace>(i, false);
  }));
  return rows;
}

}  // namespace tessera::opencl
