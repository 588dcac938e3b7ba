// Conv (1-D/2-D/3-D, groups, strides, dilations, pads, auto_pad, bias) as
// im2col + the shared GEMM kernel (1x1 stride-1 unpadded convs skip
// im2col), and pooling: MaxPool, AveragePool, GlobalAveragePool,
// GlobalMaxPool. Spatial ranks below 3 run as 3-D with unit leading dims.
#include <algorithm>
#include <limits>

#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_gemm.h"

namespace tessera::opencl {

const char* const kConvPoolSource = R"CLC(
typedef struct {
  int n;        /* work items (im2col: rows of the column matrix) */
  int channels; /* im2col: input channels; pool: N * C planes */
  int in[3];
  int out[3];
  int k[3];
  int s[3];
  int pad[3];   /* leading pads */
  int pad_end[3];
  int dil[3];
  int x_base;
  int mode;     /* pool: 0 max, 1 average excluding pads, 2 average including pads */
} ts_window;

/* Column matrix of `channels * k0*k1*k2` rows and out0*out1*out2 columns per
   image; one work item fills one row, walking the output positions with
   running input coordinates instead of dividing per element. */
__kernel void ts_im2col_f32(__global const float* x, __global float* col, ts_window w) {
  int row = get_global_id(0);
  if (row >= w.n) return;
  int P = w.out[0] * w.out[1] * w.out[2];
  int KK = w.k[0] * w.k[1] * w.k[2];
  int kidx = row % KK;
  int plane = row / KK; /* img * channels + c */
  int k2 = kidx % w.k[2], k1 = (kidx / w.k[2]) % w.k[1], k0 = kidx / (w.k[2] * w.k[1]);
  __global const float* xc = x + w.x_base + plane * w.in[0] * w.in[1] * w.in[2];
  __global float* out = col + row * P;
  int p = 0;
  for (int o0 = 0; o0 < w.out[0]; ++o0) {
    int i0 = o0 * w.s[0] - w.pad[0] + k0 * w.dil[0];
    int ok0 = i0 >= 0 && i0 < w.in[0];
    for (int o1 = 0; o1 < w.out[1]; ++o1) {
      int i1 = o1 * w.s[1] - w.pad[1] + k1 * w.dil[1];
      int ok = ok0 && i1 >= 0 && i1 < w.in[1];
      int base = (i0 * w.in[1] + i1) * w.in[2];
      int i2 = k2 * w.dil[2] - w.pad[2];
      for (int o2 = 0; o2 < w.out[2]; ++o2, i2 += w.s[2])
        out[p++] = ok && i2 >= 0 && i2 < w.in[2] ? xc[base + i2] : 0.0f;
    }
  }
}

__kernel void ts_pool_f32(__global const float* x, __global float* y, ts_window w) {
  int i = get_global_id(0);
  if (i >= w.n) return;
  int P = w.out[0] * w.out[1] * w.out[2];
  int p = i % P, plane = i / P;
  int o2 = p % w.out[2], o1 = (p / w.out[2]) % w.out[1], o0 = p / (w.out[2] * w.out[1]);
  __global const float* xp = x + plane * w.in[0] * w.in[1] * w.in[2];
  float acc = w.mode == 0 ? -INFINITY : 0.0f;
  int count = 0;
  for (int k0 = 0; k0 < w.k[0]; ++k0) {
    int i0 = o0 * w.s[0] - w.pad[0] + k0 * w.dil[0];
    if (i0 < -w.pad[0] || i0 >= w.in[0] + w.pad_end[0]) continue;
    for (int k1 = 0; k1 < w.k[1]; ++k1) {
      int i1 = o1 * w.s[1] - w.pad[1] + k1 * w.dil[1];
      if (i1 < -w.pad[1] || i1 >= w.in[1] + w.pad_end[1]) continue;
      for (int k2 = 0; k2 < w.k[2]; ++k2) {
        int i2 = o2 * w.s[2] - w.pad[2] + k2 * w.dil[2];
        if (i2 < -w.pad[2] || i2 >= w.in[2] + w.pad_end[2]) continue;
        int inside = i0 >= 0 && i0 < w.in[0] && i1 >= 0 && i1 < w.in[1] && i2 >= 0 && i2 < w.in[2];
        if (w.mode == 2) ++count;
        if (!inside) continue;
        float v = xp[(i0 * w.in[1] + i1) * w.in[2] + i2];
        if (w.mode == 0) {
          if (v > acc || isnan(v)) acc = v;
        } else {
          acc += v;
          if (w.mode == 1) ++count;
        }
      }
    }
  }
  y[i] = w.mode == 0 ? acc : acc / (float)count;
}

__kernel void ts_global_pool_f32(__global const float* x, __global float* y, int planes, int n, int is_max) {
  int g = get_global_id(0);
  if (g >= planes) return;
  __global const float* xp = x + g * n;
  float acc = is_max ? -INFINITY : 0.0f;
  for (int j = 0; j < n; ++j) {
    float v = xp[j];
    if (is_max) { if (v > acc || isnan(v)) acc = v; } else acc += v;
  }
  y[g] = is_max ? acc : acc / (float)n;
}
)CLC";

namespace {

// Mirrors ts_window.
struct Window {
  int32_t n = 0, channels = 0;
  int32_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pad[3] = {}, pad_end[3] = {},
          dil[3] = {1, 1, 1};
  int32_t x_base = 0, mode = 0;
};

constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

// Window attributes shared by Conv and the pools, resolved per spatial rank.
struct WindowAttrs {
  std::string auto_pad;
  std::vector<int64_t> kernel, strides, dilations, pads;
  bool ceil_mode = false;

  explicit WindowAttrs(const KernelInfo& info) {
    auto_pad = info.attr_string("auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER")
      info.Fail("unknown auto_pad '", auto_pad, "'");
    kernel = info.attr_ints("kernel_shape", {});
    strides = info.attr_ints("strides", {});
    dilations = info.attr_ints("dilations", {});
    pads = info.attr_ints("pads", {});
    ceil_mode = info.attr_int("ceil_mode", 0) != 0;
  }

  // Fills w's spatial fields (right-aligned into 3 slots) and returns the
  // output spatial shape.
  Shape Resolve(const KernelContext& ctx, const Shape& in, const std::vector<int64_t>& k, Window* w) const {
    size_t sr = in.size();
    if (sr < 1 || sr > 3) ctx.Fail("OpenCL windows handle 1 to 3 spatial dims, got ", sr);
    if (k.size() != sr) ctx.Fail("kernel_shape has ", k.size(), " entries for ", sr, " spatial dims");
    auto get = [&](const std::vector<int64_t>& v, size_t i, int64_t def, const char* what) {
      if (v.empty()) return def;
      if (v.size() != sr) ctx.Fail(what, " has ", v.size(), " entries for ", sr, " spatial dims");
      return v[i];
    };
    if (!pads.empty() && pads.size() != 2 * sr) ctx.Fail("pads has ", pads.size(), " entries; expected ", 2 * sr);
    Shape out(sr);
    for (size_t i = 0; i < sr; ++i) {
      int64_t s = get(strides, i, 1, "strides"), d = get(dilations, i, 1, "dilations");
      if (s <= 0 || d <= 0 || k[i] <= 0) ctx.Fail("kernel, strides and dilations must be positive");
      int64_t ek = (k[i] - 1) * d + 1;
      int64_t pb = 0, pe = 0, o;
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        o = (in[i] + s - 1) / s;
        int64_t total = std::max<int64_t>(0, (o - 1) * s + ek - in[i]);
        pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        pe = total - pb;
      } else {
        if (auto_pad == "NOTSET" && !pads.empty()) {
          pb = pads[i];
          pe = pads[i + sr];
        }
        if (pb < 0 || pe < 0) ctx.Fail("pads must be non-negative");
        int64_t span = in[i] + pb + pe - ek;
        if (span < 0) ctx.Fail("the window (", ek, ") is larger than the padded input (", in[i] + pb + pe, ")");
        o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // A last window that would start inside the end padding is dropped.
        if (ceil_mode && (o - 1) * s >= in[i] + pb) --o;
      }
      size_t slot = 3 - sr + i;
      for (int64_t v : {in[i], o, k[i], s, d, pb, pe, ek})
        if (v >= kI32Max) ctx.Fail("window parameter ", v, " exceeds 32-bit indexing");
      w->in[slot] = I32(in[i]);
      w->out[slot] = I32(o);
      w->k[slot] = I32(k[i]);
      w->s[slot] = I32(s);
      w->dil[slot] = I32(d);
      w->pad[slot] = I32(pb);
      w->pad_end[slot] = I32(pe);
      out[i] = o;
    }
    return out;
  }
};

class Conv final : public OpenClKernel {
 public:
  explicit Conv(const KernelInfo& info) : attrs_(info), group_(info.attr_int("group", 1)) {
    if (group_ <= 0) info.Fail("group must be positive, got ", group_);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    CheckIndexable(ctx, x);
    CheckIndexable(ctx, w);
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
      ctx.Fail("Conv on OpenCL needs X and W of equal rank 3..5; got ", x.Describe(), " and ", w.Describe());
    int64_t n = x.dim(0), cin = x.dim(1), cout = w.dim(0), g = group_;
    if (cin % g != 0 || cout % g != 0 || w.dim(1) * g != cin)
      ctx.Fail("input channels do not match: X ", x.Describe(), ", W ", w.Describe(), ", group ", g);
    Shape in(x.shape().begin() + 2, x.shape().end());
    std::vector<int64_t> k(w.shape().begin() + 2, w.shape().end());
    if (!attrs_.kernel.empty() && attrs_.kernel != k)
      ctx.Fail("kernel_shape ", ShapeToString(attrs_.kernel), " does not match W ", w.Describe());
    Window win;
    Shape out_sp = attrs_.Resolve(ctx, in, k, &win);
    Shape out_shape{n, cout};
    out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, out_shape);
    CheckIndexable(ctx, y);
    cl_mem bias = nullptr;
    if (ctx.has_input(2)) {
      const Tensor& b = ctx.input(2);
      if (b.rank() != 1 || b.dim(0) != cout) ctx.Fail("bias B must have shape (", cout, "), got ", b.Describe());
      bias = MemOf(b);
    }
    if (y.numel() == 0) return;
    int64_t P = 1, kk = 1, in_p = 1;
    for (int64_t v : out_sp) P *= v;
    for (int64_t v : k) kk *= v;
    for (int64_t v : in) in_p *= v;
    int64_t cg = cin / g, mg = cout / g, kg = cg * kk;
    bool direct = kk == 1 && P == in_p;
    for (int i = 0; i < 3; ++i) direct = direct && win.s[i] == 1 && win.pad[i] == 0;
    int64_t per_image = cin * kk * P;
    if (per_image >= kI32Max) ctx.Fail("the im2col buffer of one image (", per_image, " floats) exceeds 32-bit indexing");
    // Images per im2col pass: bounded so the column buffer stays near 256 MiB.
    int64_t chunk = direct ? n : std::clamp<int64_t>((int64_t{1} << 26) / std::max<int64_t>(per_image, 1), 1, n);
    Tensor col;
    if (!direct) col = NewDeviceTensor(runtime(), DataType::kFloat, {chunk * per_image});
    for (int64_t n0 = 0; n0 < n; n0 += chunk) {
      int64_t count = std::min(chunk, n - n0);
      cl_mem b_mem = MemOf(x);
      GemmParams p;
      if (direct) {
        p.b_base = 0;
      } else {
        Window c = win;
        c.channels = I32(cin);
        c.n = I32(count * cin * kk);  // rows of the column matrix
        c.x_base = I32(n0 * cin * in_p);
        rt().Launch1D("ts_im2col_f32", {MemOf(x), MemOf(col), KernelArg::Value(c)}, static_cast<size_t>(c.n));
        b_mem = MemOf(col);
      }
      p.m = I32(mg), p.n = I32(P), p.k = I32(kg);
      p.sam = I32(kg), p.sak = 1, p.sbk = I32(P), p.sbn = 1;
      p.batches = I32(count * g);
      p.y_base = I32(n0 * cout * P);
      if (bias) {
        p.has_c = 1, p.beta = 1, p.scm = 1, p.scn = 0, p.c_mod = I32(g), p.c_batch = I32(mg);
      }
      // Batches run over (image, group): W moves with the group, the column
      // matrix (or X itself) with both.
      BroadcastInfo batch;
      batch.rank = 2;
      batch.n = p.batches;
      batch.dims[0] = I32(count);
      batch.dims[1] = I32(g);
      batch.sa[0] = 0;
      batch.sa[1] = I32(mg * kg);
      batch.sb[0] = I32(cin * kk * P);
      batch.sb[1] = I32(kg * P);
      LaunchGemm(rt(), MemOf(w), b_mem, bias, MemOf(y), p, batch);
    }
  }

 private:
  WindowAttrs attrs_;
  int64_t group_;
};

class Pool final : public OpenClKernel {
 public:
  Pool(const KernelInfo& info, bool average)
      : attrs_(info), average_(average), include_pad_(info.attr_int("count_include_pad", 0) != 0) {
    if (attrs_.kernel.empty()) info.Fail("kernel_shape is required");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    if (x.rank() < 3 || x.rank() > 5) ctx.Fail("pooling on OpenCL needs an input of rank 3..5, got ", x.Describe());
    Shape in(x.shape().begin() + 2, x.shape().end());
    Window win;
    Shape out_sp = attrs_.Resolve(ctx, in, attrs_.kernel, &win);
    Shape out_shape{x.dim(0), x.dim(1)};
    out_shape.insert(out_shape.end(), out_sp.begin(), out_sp.end());
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, out_shape);
    CheckIndexable(ctx, y);
    if (y.numel() == 0) return;
    win.n = I32(y.numel());
    win.channels = I32(x.dim(0) * x.dim(1));
    win.mode = !average_ ? 0 : include_pad_ ? 2 : 1;
    rt().Launch1D("ts_pool_f32", {MemOf(x), MemOf(y), KernelArg::Value(win)}, static_cast<size_t>(y.numel()));
  }

 private:
  WindowAttrs attrs_;
  bool average_, include_pad_;
};

class GlobalPool final : public OpenClKernel {
 public:
  GlobalPool(const KernelInfo&, bool is_max) : is_max_(is_max) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    if (x.rank() < 2) ctx.Fail("global pooling needs an input of rank >= 2, got ", x.Describe());
    Shape out(x.shape().size(), 1);
    out[0] = x.dim(0);
    out[1] = x.dim(1);
    int64_t n = 1;
    for (int64_t d = 2; d < x.rank(); ++d) n *= x.dim(d);
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, out);
    if (y.numel() == 0) return;
    if (n == 0) ctx.Fail("global pooling over an empty spatial extent: ", x.Describe());
    rt().Launch1D("ts_global_pool_f32", {MemOf(x), MemOf(y), KernelArg::Value(I32(y.numel())), KernelArg::Value(I32(n)),
                                         KernelArg::Value(is_max_ ? 1 : 0)},
                  static_cast<size_t>(y.numel()));
  }

 private:
  bool is_max_;
};

const Attribute* FindAttr(const NodeQuery& q, const char* name) {
  for (const Attribute& a : q.node.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

// Float input of 1 to 3 spatial dims (rank 3..5) when the rank is known.
std::string WindowCheck(const NodeQuery& q) {
  std::string why = FloatInputs(q);
  if (!why.empty()) return why;
  const TypeInfo* t = q.input_type(0);
  if (t && t->shape && (t->shape->size() < 3 || t->shape->size() > 5))
    return "rank " + std::to_string(t->shape->size()) + " is outside 3..5";
  return "";
}

OpenClRow Row(const char* op, int64_t first, KernelFactory f, std::function<std::string(const NodeQuery&)> check) {
  return OpenClRow{KernelRow{kOnnxDomain, op, first, kMaxOnnxOpset, {DataType::kFloat}, std::move(f)}, {}, {},
                   std::move(check)};
}

}  // namespace

std::vector<OpenClRow> ConvPoolRows() {
  std::vector<OpenClRow> rows;
  rows.push_back(Row("Conv", 1, Make<Conv>(), WindowCheck));
  rows.push_back(Row("MaxPool", 1, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Pool>(i, false);
  }, [](const NodeQuery& q) {
    if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return std::string("the Indices output runs on the CPU");
    if (const Attribute* a = FindAttr(q, "storage_order"); a && a->i != 0)
      return std::string("storage_order=1 runs on the CPU");
    return WindowCheck(q);
  }));
  rows.push_back(Row("AveragePool", 1, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Pool>(i, true);
  }, WindowCheck));
  rows.push_back(Row("GlobalAveragePool", 1, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<GlobalPool>(i, false);
  }, [](const NodeQuery& q) { return FloatInputs(q); }));
  rows.push_back(Row("GlobalMaxPool", 1, [](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
    return std::make_unique<GlobalPool>(i, true);
  }, [](const NodeQuery& q) { return FloatInputs(q); }));
  return rows;
}

}  // namespace tessera::opencl
