// Float reductions (ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2/LogSum/LogSumExp),
// Softmax/LogSoftmax and the inference normalizations (BatchNormalization,
// LayerNormalization, InstanceNormalization). Each output element (or row)
// is one work item that walks its reduction set, accumulating in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_kernel_util.h"

namespace tessera::opencl {

const char* const kReduceSource = R"CLC(
typedef struct {
  int n_out;
  int keep_rank;
  int red_rank;
  int red_n;
  int op;
  int kdims[TS_MAX_RANK];
  int kstr[TS_MAX_RANK];
  int rdims[TS_MAX_RANK];
  int rstr[TS_MAX_RANK];
} ts_reduce;

inline int ts_red_offset(const int* dims, const int* str, int rank, int i) {
  int o = 0;
  for (int d = rank - 1; d >= 0; --d) {
    int c = i % dims[d];
    i /= dims[d];
    o += c * str[d];
  }
  return o;
}

/* op: 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 sum of squares, 6 L1, 7 L2, 8 log-sum-exp, 9 log-sum */
__kernel void ts_reduce_f32(__global const float* x, __global float* y, ts_reduce p) {
  int i = get_global_id(0);
  if (i >= p.n_out) return;
  int base = ts_red_offset(p.kdims, p.kstr, p.keep_rank, i);
  float acc;
  if (p.op == 2 || p.op == 8) acc = -INFINITY;
  else if (p.op == 3) acc = INFINITY;
  else if (p.op == 4) acc = 1.0f;
  else acc = 0.0f;
  for (int j = 0; j < p.red_n; ++j) {
    float v = x[base + ts_red_offset(p.rdims, p.rstr, p.red_rank, j)];
    switch (p.op) {
      case 2: acc = (v > acc || isnan(v)) && !isnan(acc) ? v : acc; break;
      case 3: acc = (v < acc || isnan(v)) && !isnan(acc) ? v : acc; break;
      case 4: acc *= v; break;
      case 5: case 7: acc += v * v; break;
      case 6: acc += fabs(v); break;
      case 8: acc = fmax(acc, v); break;
      default: acc += v; break;
    }
  }
  if (p.op == 8 && p.red_n > 0) {
    float m = acc, s = 0.0f;
    if (isinf(m)) { y[i] = m; return; }
    for (int j = 0; j < p.red_n; ++j) s += exp(x[base + ts_red_offset(p.rdims, p.rstr, p.red_rank, j)] - m);
    acc = m + log(s);
  }
  if (p.op == 1) acc = acc / (float)p.red_n;
  if (p.op == 7) acc = sqrt(acc);
  if (p.op == 9) acc = log(acc);
  y[i] = acc;
}

/* Rows of n elements at stride inner: row g starts at (g / inner) * n * inner + g % inner. */
__kernel void ts_softmax_f32(__global const float* x, __global float* y, int rows, int n, int inner, int log_out) {
  int g = get_global_id(0);
  if (g >= rows) return;
  int base = (g / inner) * n * inner + g % inner;
  float m = -INFINITY;
  for (int j = 0; j < n; ++j) m = fmax(m, x[base + j * inner]);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += exp(x[base + j * inner] - m);
  if (log_out) {
    float ls = log(s);
    for (int j = 0; j < n; ++j) y[base + j * inner] = x[base + j * inner] - m - ls;
  } else {
    float r = 1.0f / s;
    for (int j = 0; j < n; ++j) y[base + j * inner] = exp(x[base + j * inner] - m) * r;
  }
}

/* Inference batch norm over (N, C, inner). */
__kernel void ts_batchnorm_f32(__global const float* x, __global const float* scale, __global const float* bias,
                               __global const float* mean, __global const float* var, __global float* y, int n,
                               int channels, int inner, float eps) {
  int i = get_global_id(0);
  if (i >= n) return;
  int c = (i / inner) % channels;
  y[i] = (x[i] - mean[c]) * (scale[c] / sqrt(var[c] + eps)) + bias[c];
}

/* Normalizes rows of n contiguous elements. Per-element scale/bias (layer
   norm: index j % affine_n) or per-row ones (instance norm: row % channels). */
__kernel void ts_rownorm_f32(__global const float* x, __global const float* scale, __global const float* bias,
                             __global float* y, __global float* mean_out, __global float* inv_out, int rows, int n,
                             float eps, int per_row, int channels, int has_bias, int write_stats) {
  int g = get_global_id(0);
  if (g >= rows) return;
  __global const float* xr = x + g * n;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += xr[j];
  float mu = s / (float)n;
  float v = 0.0f;
  for (int j = 0; j < n; ++j) { float d = xr[j] - mu; v += d * d; }
  float inv = 1.0f / sqrt(v / (float)n + eps);
  if (write_stats) { mean_out[g] = mu; inv_out[g] = inv; }
  if (per_row) {
    int c = g % channels;
    float a = scale[c] * inv, b = has_bias ? bias[c] : 0.0f;
    for (int j = 0; j < n; ++j) y[g * n + j] = (xr[j] - mu) * a + b;
  } else {
    for (int j = 0; j < n; ++j) y[g * n + j] = (xr[j] - mu) * inv * scale[j] + (has_bias ? bias[j] : 0.0f);
  }
}
)CLC";

namespace {

struct ReduceInfo {
  int32_t n_out = 0, keep_rank = 0, red_rank = 0, red_n = 0, op = 0;
  int32_t kdims[kMaxRank] = {}, kstr[kMaxRank] = {}, rdims[kMaxRank] = {}, rstr[kMaxRank] = {};
};

enum ReduceOp { kSum = 0, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSumExp, kLogSum };

class Reduce final : public OpenClKernel {
 public:
  Reduce(const KernelInfo& info, int op, bool axes_input)
      : op_(op),
        axes_input_(axes_input),
        keepdims_(info.attr_int("keepdims", 1) != 0),
        noop_(info.attr_int("noop_with_empty_axes", 0) != 0) {
    if (!axes_input && info.has_attr("axes")) axes_ = info.attr_ints("axes");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    int64_t r = x.rank();
    std::vector<int64_t> axes = axes_;
    if (axes_input_ && ctx.has_input(1)) axes = ctx.input(1).ToInt64Vector();
    std::vector<bool> reduced(static_cast<size_t>(r), false);
    if (axes.empty()) {
      if (noop_) {
        Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
        rt().CopyBuffer(MemOf(x), 0, MemOf(y), 0, x.nbytes());
        return;
      }
      reduced.assign(static_cast<size_t>(r), true);
    }
    for (int64_t a : axes) reduced[static_cast<size_t>(cpu::NormalizeAxis(a, r, ctx))] = true;
    std::vector<int64_t> strides(static_cast<size_t>(r), 1);
    for (int64_t d = r - 1; d > 0; --d) strides[static_cast<size_t>(d - 1)] = strides[static_cast<size_t>(d)] * x.dim(d);
    ReduceInfo p;
    p.op = op_;
    Shape out;
    int64_t red_n = 1, n_out = 1;
    for (int64_t d = 0; d < r; ++d) {
      size_t k = static_cast<size_t>(d);
      if (reduced[k]) {
        p.rdims[p.red_rank] = I32(x.dim(d));
        p.rstr[p.red_rank++] = I32(strides[k]);
        red_n *= x.dim(d);
        if (keepdims_) out.push_back(1);
      } else {
        p.kdims[p.keep_rank] = I32(x.dim(d));
        p.kstr[p.keep_rank++] = I32(strides[k]);
        n_out *= x.dim(d);
        out.push_back(x.dim(d));
      }
    }
    p.red_n = I32(red_n);
    p.n_out = I32(n_out);
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, out);
    rt().Launch1D("ts_reduce_f32", {MemOf(x), MemOf(y), KernelArg::Value(p)}, static_cast<size_t>(n_out));
  }

 private:
  int op_;
  bool axes_input_, keepdims_, noop_;
  std::vector<int64_t> axes_;
};

class Softmax final : public OpenClKernel {
 public:
  Softmax(const KernelInfo& info, bool log)
      : log_(log), legacy_(info.opset() < 13), axis_(info.attr_int("axis", info.opset() < 13 ? 1 : -1)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    int64_t r = x.rank();
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    if (r == 0) ctx.Fail("Softmax needs an input of rank >= 1");
    int64_t axis = cpu::NormalizeAxis(axis_, r, ctx);
    int64_t outer = 1, n = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    if (legacy_) {
      // Before opset 13 the input is coerced to 2-D [outer, rest] at axis.
      for (int64_t d = axis; d < r; ++d) n *= x.dim(d);
    } else {
      n = x.dim(axis);
      for (int64_t d = axis + 1; d < r; ++d) inner *= x.dim(d);
    }
    int64_t rows = outer * inner;
    if (n == 0) return;
    rt().Launch1D("ts_softmax_f32", {MemOf(x), MemOf(y), KernelArg::Value(I32(rows)), KernelArg::Value(I32(n)),
                                     KernelArg::Value(I32(inner)), KernelArg::Value(log_ ? 1 : 0)},
                  static_cast<size_t>(rows));
  }

 private:
  bool log_, legacy_;
  int64_t axis_;
};

void RequireChannelVector(const KernelContext& ctx, const Tensor& t, int64_t c, const char* what) {
  if (t.rank() != 1 || t.dim(0) != c) ctx.Fail(what, " must have shape (", c, "), got ", t.Describe());
}

// Checks x as N x C x spatial... of rank >= min_rank; returns C and the
// number of spatial elements per channel.
std::pair<int64_t, int64_t> ChannelsAndSpatialSize(const KernelContext& ctx, const Tensor& x, int64_t min_rank,
                                                   const char* op) {
  CheckIndexable(ctx, x);
  if (x.rank() < min_rank) ctx.Fail(op, " needs an input of rank >= ", min_rank, ", got ", x.Describe());
  int64_t spatial = 1;
  for (int64_t d = 2; d < x.rank(); ++d) spatial *= x.dim(d);
  return {x.dim(1), spatial};
}

class BatchNorm final : public OpenClKernel {
 public:
  explicit BatchNorm(const KernelInfo& info) : eps_(info.attr_float("epsilon", 1e-5f)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto [c, inner] = ChannelsAndSpatialSize(ctx, x, 2, "BatchNormalization");
    const char* names[] = {"scale", "B", "mean", "var"};
    for (size_t i = 1; i <= 4; ++i) RequireChannelVector(ctx, ctx.input(i), c, names[i - 1]);
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    rt().Launch1D("ts_batchnorm_f32", {MemOf(x), MemOf(ctx.input(1)), MemOf(ctx.input(2)), MemOf(ctx.input(3)),
                                       MemOf(ctx.input(4)), MemOf(y), KernelArg::Value(I32(x.numel())),
                                       KernelArg::Value(I32(c)), KernelArg::Value(I32(inner)), KernelArg::Value(eps_)},
                  static_cast<size_t>(x.numel()));
  }

 private:
  float eps_;
};

void LaunchRowNorm(Runtime& rt, const Tensor& x, const Tensor& scale, const Tensor* bias, const Tensor& y,
                   const Tensor* mean, const Tensor* inv, int64_t rows, int64_t n, float eps, bool per_row,
                   int64_t channels) {
  if (rows == 0) return;
  cl_mem ym = MemOf(y);
  rt.Launch1D("ts_rownorm_f32",
              {MemOf(x), MemOf(scale), bias ? MemOf(*bias) : MemOf(scale), ym, mean ? MemOf(*mean) : ym,
               inv ? MemOf(*inv) : ym, KernelArg::Value(I32(rows)), KernelArg::Value(I32(n)), KernelArg::Value(eps),
               KernelArg::Value(per_row ? 1 : 0), KernelArg::Value(I32(channels)), KernelArg::Value(bias ? 1 : 0),
               KernelArg::Value(mean ? 1 : 0)},
              static_cast<size_t>(rows));
}

class LayerNorm final : public OpenClKernel {
 public:
  explicit LayerNorm(const KernelInfo& info)
      : axis_(info.attr_int("axis", -1)), eps_(info.attr_float("epsilon", 1e-5f)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    CheckIndexable(ctx, x);
    int64_t r = x.rank();
    if (r == 0) ctx.Fail("LayerNormalization needs an input of rank >= 1");
    int64_t axis = cpu::NormalizeAxis(axis_, r, ctx);
    int64_t rows = 1, n = 1;
    for (int64_t d = 0; d < axis; ++d) rows *= x.dim(d);
    for (int64_t d = axis; d < r; ++d) n *= x.dim(d);
    const Tensor& scale = ctx.input(1);
    const Tensor* bias = ctx.optional_input(2);
    if (scale.numel() != n || (bias && bias->numel() != n))
      ctx.Fail("Scale ", scale.Describe(), (bias ? " and B " + bias->Describe() : std::string()),
               " must cover the normalized shape exactly on OpenCL (", n, " elements)");
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    Shape stats_shape(x.shape().begin(), x.shape().begin() + axis);
    stats_shape.resize(static_cast<size_t>(r), 1);
    Tensor mean, inv;
    bool stats = ctx.output_requested(1) || ctx.output_requested(2);
    if (stats) {
      mean = ctx.output_requested(1) ? NewOutput(ctx, 1, DataType::kFloat, stats_shape)
                                     : NewDeviceTensor(runtime(), DataType::kFloat, stats_shape);
      inv = ctx.output_requested(2) ? NewOutput(ctx, 2, DataType::kFloat, stats_shape)
                                    : NewDeviceTensor(runtime(), DataType::kFloat, stats_shape);
    }
    if (n == 0) return;
    LaunchRowNorm(rt(), x, scale, bias, y, stats ? &mean : nullptr, stats ? &inv : nullptr, rows, n, eps_, false, 1);
  }

 private:
  int64_t axis_;
  float eps_;
};

class InstanceNorm final : public OpenClKernel {
 public:
  explicit InstanceNorm(const KernelInfo& info) : eps_(info.attr_float("epsilon", 1e-5f)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto [c, n] = ChannelsAndSpatialSize(ctx, x, 3, "InstanceNormalization");
    RequireChannelVector(ctx, ctx.input(1), c, "scale");
    RequireChannelVector(ctx, ctx.input(2), c, "B");
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, x.shape());
    if (n == 0) return;
    LaunchRowNorm(rt(), x, ctx.input(1), &ctx.input(2), y, nullptr, nullptr, x.dim(0) * c, n, eps_, true, c);
  }

 private:
  float eps_;
};

std::string RankFits(const NodeQuery& q) {
  const TypeInfo* t = q.input_type(0);
  if (t && t->shape && t->shape->size() > static_cast<size_t>(kMaxRank))
    return "rank " + std::to_string(t->shape->size()) + " > " + std::to_string(kMaxRank);
  return "";
}

OpenClRow Row(const char* op, int64_t first, int64_t last, KernelFactory f, std::vector<size_t> host_inputs,
              std::function<std::string(const NodeQuery&)> check) {
  return OpenClRow{KernelRow{kOnnxDomain, op, first, last, {DataType::kFloat}, std::move(f)}, std::move(host_inputs),
                   {}, std::move(check)};
}

std::string FloatRank(const NodeQuery& q) {
  std::string why = FloatInputs(q, {1});
  return why.empty() ? RankFits(q) : why;
}

}  // namespace

std::vector<OpenClRow> ReduceRows() {
  std::vector<OpenClRow> rows;
  struct R { const char* op; int code; int64_t input_axes_from; };
  for (R r : {R{"ReduceSum", kSum, 13}, R{"ReduceMean", kMean, 18}, R{"ReduceMax", kMax, 18},
              R{"ReduceMin", kMin, 18}, R{"ReduceProd", kProd, 18}, R{"ReduceSumSquare", kSumSquare, 18},
              R{"ReduceL1", kL1, 18}, R{"ReduceL2", kL2, 18}, R{"ReduceLogSumExp", kLogSumExp, 18}, R{"ReduceLogSum", kLogSum, 18}}) {
    rows.push_back(Row(r.op, 1, r.input_axes_from - 1, [code = r.code](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
      return std::make_unique<Reduce>(i, code, false);
    }, {}, FloatRank));
    rows.push_back(Row(r.op, r.input_axes_from, kMaxOnnxOpset, [code = r.code](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
      return std::make_unique<Reduce>(i, code, true);
    }, {1}, FloatRank));
  }
  for (bool log : {false, true})
    rows.push_back(Row(log ? "LogSoftmax" : "Softmax", 1, kMaxOnnxOpset, [log](const KernelInfo& i) -> std::unique_ptr<OpKernel> {
      return std::make_unique<Softmax>(i, log);
    }, {}, [](const NodeQuery& q) { return FloatInputs(q); }));
  // Opset 9 dropped the `spatial` attribute; only inference mode runs here.
  rows.push_back(Row("BatchNormalization", 9, kMaxOnnxOpset, Make<BatchNorm>(), {}, [](const NodeQuery& q) {
    for (const Attribute& a : q.node.attributes)
      if (a.name == "training_mode" && a.i != 0) return std::string("training_mode=1 runs on the CPU");
    for (size_t i = 1; i < q.node.outputs.size(); ++i)
      if (!q.node.outputs[i].empty()) return std::string("running statistics outputs run on the CPU");
    return FloatInputs(q);
  }));
  rows.push_back(Row("LayerNormalization", 17, kMaxOnnxOpset, Make<LayerNorm>(), {}, [](const NodeQuery& q) {
    std::string why = FloatInputs(q);
    if (!why.empty()) return why;
    // Scale and B must span the normalized dims exactly (no broadcasting).
    const TypeInfo* x = q.input_type(0);
    if (!x || !x->shape) return std::string("input rank unknown at session creation");
    int64_t r = static_cast<int64_t>(x->shape->size()), axis = -1;
    for (const Attribute& a : q.node.attributes)
      if (a.name == "axis") axis = a.i;
    if (axis < -r || axis >= r) return std::string("axis out of range");
    if (axis < 0) axis += r;
    for (size_t i = 1; i < 3 && i < q.node.inputs.size(); ++i) {
      if (q.node.inputs[i].empty()) continue;
      const TypeInfo* t = q.input_type(i);
      if (!t || !t->shape) return "shape of input " + std::to_string(i) + " unknown at session creation";
      const auto& s = *t->shape;
      size_t lead = 0;
      while (lead < s.size() && s.size() - lead > static_cast<size_t>(r - axis) && s[lead].known() && s[lead].value == 1) ++lead;
      if (s.size() - lead != static_cast<size_t>(r - axis)) return "input " + std::to_string(i) + " broadcasts; runs on the CPU";
      for (size_t k = lead; k < s.size(); ++k) {
        const auto& xd = (*x->shape)[static_cast<size_t>(axis) + k - lead];
        if (!s[k].known() || !xd.known() || s[k].value != xd.value)
          return "input " + std::to_string(i) + " broadcasts or has unknown dims; runs on the CPU";
      }
    }
    return std::string();
  }));
  // Opset 6 dropped the legacy consumed_inputs attribute.
  rows.push_back(Row("InstanceNormalization", 6, kMaxOnnxOpset, Make<InstanceNorm>(), {},
                     [](const NodeQuery& q) { return FloatInputs(q); }));
  return rows;
}

}  // namespace tessera::opencl
