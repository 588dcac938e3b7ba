// Normalization kernels: BatchNormalization, LayerNormalization,
// InstanceNormalization, GroupNormalization, LRN, LpNormalization,
// MeanVarianceNormalization and RMSNormalization. Statistics accumulate in
// double; float16/bfloat16 inputs are read through Load/StoreAs.
#include <cmath>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/normalization_impl.h"

namespace tessera::cpu {
namespace {

std::vector<DataType> NormFloats() { return {DataType::kFloat, DataType::kDouble, DataType::kFloat16}; }

// Small parameter tensors (scale, bias, mean...) read as doubles.
std::vector<double> ReadParam(const Tensor& t, const KernelContext& ctx, const char* what) {
  if (!IsFloatingPoint(t.dtype()) && !IsInteger(t.dtype()))
    ctx.Fail(what, " has unsupported element type ", DataTypeName(t.dtype()));
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.GetAsDouble(i);
  return v;
}

// Writes doubles into a float tensor of any supported float type.
void WriteDoubles(Tensor& t, const std::vector<double>& v, const KernelContext& ctx) {
  DispatchFloat(t.dtype(), ctx, [&]<typename T>() {
    T* d = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(v[i]));
  });
}

// Offsets of a parameter tensor unidirectionally broadcast onto X, split at
// `axis` into a per-row part and a per-inner-element part.
struct ParamMap {
  std::vector<double> vals;
  std::vector<int64_t> inner_off;   // size = prod(X.shape[axis:])
  Shape outer_dims;
  std::vector<int64_t> outer_strides;
  bool outer_zero = true;

  int64_t RowOffset(int64_t row) const {
    if (outer_zero) return 0;
    int64_t off = 0;
    for (size_t d = outer_dims.size(); d-- > 0;) {
      off += (row % outer_dims[d]) * outer_strides[d];
      row /= outer_dims[d];
    }
    return off;
  }
};

ParamMap MakeParamMap(const Tensor& p, const Shape& xs, int64_t axis, const KernelContext& ctx, const char* what) {
  ParamMap m;
  m.vals = ReadParam(p, ctx, what);
  size_t r = xs.size();
  const Shape& ps = p.shape();
  int64_t inner = SizeFromDim(xs, static_cast<size_t>(axis));
  std::vector<int64_t> st(r, 0);
  if (ps.size() > r) {
    // Tolerate extra leading 1s.
    for (size_t i = 0; i + r < ps.size(); ++i)
      if (ps[i] != 1) ctx.Fail(what, " of shape ", ShapeToString(ps), " cannot broadcast to X of shape ", ShapeToString(xs));
  }
  size_t pr = std::min(ps.size(), r);
  Shape tail(ps.end() - static_cast<std::ptrdiff_t>(pr), ps.end());
  std::vector<int64_t> own = StridesOf(tail);
  bool ok = true;
  for (size_t i = 0; i < pr; ++i) {
    size_t xd = r - pr + i;
    if (tail[i] == xs[xd]) {
      st[xd] = tail[i] == 1 ? 0 : own[i];
    } else if (tail[i] == 1) {
      st[xd] = 0;
    } else {
      ok = false;
    }
  }
  if (!ok) {
    // Also accept a flat parameter holding exactly the normalized elements.
    if (p.numel() == inner) {
      m.inner_off.resize(static_cast<size_t>(inner));
      for (int64_t j = 0; j < inner; ++j) m.inner_off[static_cast<size_t>(j)] = j;
      return m;
    }
    ctx.Fail(what, " of shape ", ShapeToString(ps), " cannot broadcast to X of shape ", ShapeToString(xs));
  }
  m.inner_off.resize(static_cast<size_t>(inner));
  Shape idims(xs.begin() + axis, xs.end());
  for (int64_t j = 0; j < inner; ++j) {
    int64_t rem = j, off = 0;
    for (size_t d = idims.size(); d-- > 0;) {
      off += (rem % idims[d]) * st[static_cast<size_t>(axis) + d];
      rem /= idims[d];
    }
    m.inner_off[static_cast<size_t>(j)] = off;
  }
  m.outer_dims.assign(xs.begin(), xs.begin() + axis);
  m.outer_strides.assign(st.begin(), st.begin() + axis);
  for (int64_t s : m.outer_strides)
    if (s != 0) m.outer_zero = false;
  return m;
}

// Runs run(p, x, y) on each of the `count` runs of `size` consecutive
// values of x (run p starts at p * size) and the same run of y, typed as
// x's float type; the runs split across threads, about `budget` values a
// chunk.
template <typename Run>
void ForEachRun(KernelContext& ctx, const Tensor& x, Tensor& y, int64_t count, int64_t size, int64_t budget,
                Run&& run) {
  DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    ParallelFor(ctx.thread_pool(), count, std::max<int64_t>(1, budget / std::max<int64_t>(size, 1)),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t p = lo; p < hi; ++p) run(p, xd + p * size, yd + p * size);
                });
  });
}

// Runs line(x, y, len, stride) on each line of x along `axis` (len values
// `stride` apart) and the same line of y, typed as x's float type; the
// lines split across threads, `grain` at a time.
template <typename Line>
void ForEachAxisLine(KernelContext& ctx, const Tensor& x, Tensor& y, int64_t axis, int64_t grain, Line&& line) {
  const int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis)), len = x.dim(axis);
  const int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
  DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    ParallelFor(ctx.thread_pool(), outer * inner, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t q = lo; q < hi; ++q) {
        const int64_t base = q / inner * len * inner + q % inner;
        line(xd + base, yd + base, len, inner);
      }
    });
  });
}

// Mean and biased variance of x[0, n) in double, by two passes; both 0 when
// n == 0.
template <typename T>
inline void MeanAndVariance(const T* x, int64_t n, double& mean, double& var) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(Load(x[i]));
  mean = n > 0 ? sum / static_cast<double>(n) : 0;
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = static_cast<double>(Load(x[i])) - mean;
    sq += d * d;
  }
  var = n > 0 ? sq / static_cast<double>(n) : 0;
}

DataType StashType(const KernelInfo& info) {
  int64_t st = info.attr_int("stash_type", 1);
  if (st != 1 && st != 10 && st != 11 && st != 16) info.Fail("unsupported stash_type ", st);
  return static_cast<DataType>(st);
}

// ---- BatchNormalization --------------------------------------------------------
class BatchNormalization final : public OpKernel {
 public:
  explicit BatchNormalization(const KernelInfo& info) : opset_(info.opset()) {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    momentum_ = info.attr_float("momentum", 0.9f);
    if (opset_ >= 14) training_ = info.attr_int("training_mode", 0) != 0;
    if (opset_ < 7) {
      // is_test=0 asks for training statistics; an inference runtime treats it like
      // training_mode when the extra outputs are wanted.
      training_ = info.attr_int("is_test", 0) == 0 && info.num_outputs() > 1 && info.has_output(1);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("X must have rank >= 2 (N, C, ...), got ", ShapeToString(x.shape()));
    int64_t N = x.dim(0), C = x.dim(1);
    int64_t S = SizeFromDim(x.shape(), 2);
    std::vector<double> scale = ReadParam(ctx.input(1), ctx, "scale");
    std::vector<double> bias = ReadParam(ctx.input(2), ctx, "B");
    std::vector<double> mean = ReadParam(ctx.input(3), ctx, "mean");
    std::vector<double> var = ReadParam(ctx.input(4), ctx, "var");
    // Per-channel [C] or per-activation [C, D1, ...] (spatial=0 of opsets 1-7).
    auto per = [&](const std::vector<double>& v, const char* what) -> int64_t {
      if (static_cast<int64_t>(v.size()) == C) return 1;
      if (static_cast<int64_t>(v.size()) == C * S && S != 1) return S;
      ctx.Fail(what, " has ", v.size(), " elements, expected ", C, " (one per channel)");
    };
    int64_t ps = per(scale, "scale");
    if (per(bias, "B") != ps || per(mean, "mean") != ps || per(var, "var") != ps)
      ctx.Fail("scale, B, mean and var must have the same shape");
    bool train = training_;
    std::vector<double> bmean, bvar;
    if (train) {
      // Batch statistics over every axis but the channel (per activation when ps == S).
      int64_t P = C * ps;
      bmean.assign(static_cast<size_t>(P), 0.0);
      bvar.assign(static_cast<size_t>(P), 0.0);
      int64_t inner = S / ps;  // elements per parameter per sample
      DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
        const T* xd = x.data<T>();
        for (int64_t n = 0; n < N; ++n)
          for (int64_t c = 0; c < C; ++c)
            for (int64_t s = 0; s < S; ++s) {
              int64_t pi = c * ps + (ps == 1 ? 0 : s);
              bmean[static_cast<size_t>(pi)] += static_cast<double>(Load(xd[(n * C + c) * S + s]));
            }
        double denom = static_cast<double>(N * inner);
        for (auto& m : bmean) m = denom > 0 ? m / denom : 0.0;
        for (int64_t n = 0; n < N; ++n)
          for (int64_t c = 0; c < C; ++c)
            for (int64_t s = 0; s < S; ++s) {
              int64_t pi = c * ps + (ps == 1 ? 0 : s);
              double d = static_cast<double>(Load(xd[(n * C + c) * S + s])) - bmean[static_cast<size_t>(pi)];
              bvar[static_cast<size_t>(pi)] += d * d;
            }
        for (auto& v : bvar) v = denom > 0 ? v / denom : 0.0;
      });
    }
    const std::vector<double>& um = train ? bmean : mean;
    const std::vector<double>& uv = train ? bvar : var;
    std::vector<double> a(um.size()), b(um.size());
    for (size_t i = 0; i < um.size(); ++i) {
      a[i] = scale[i] / std::sqrt(uv[i] + static_cast<double>(epsilon_));
      b[i] = bias[i] - um[i] * a[i];
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    ForEachRun(ctx, x, y, N * C, S, 16384, [&]<typename T>(int64_t p, const T* xp, T* yp) {
      using CT = typename cpu::Compute<T>::type;
      int64_t c = p % C;
      if (ps == 1) {
        CT ca = static_cast<CT>(a[static_cast<size_t>(c)]), cb = static_cast<CT>(b[static_cast<size_t>(c)]);
        for (int64_t s = 0; s < S; ++s) yp[s] = StoreAs<T>(Load(xp[s]) * ca + cb);
      } else {
        for (int64_t s = 0; s < S; ++s) {
          size_t i = static_cast<size_t>(c * S + s);
          yp[s] = StoreAs<T>(static_cast<CT>(static_cast<double>(Load(xp[s])) * a[i] + b[i]));
        }
      }
    });
    // Optional outputs.
    auto emit = [&](size_t i, const std::vector<double>& v, const Tensor& like) {
      if (i < ctx.num_outputs() && ctx.output_requested(i)) {
        Tensor& t = ctx.allocate_output(i, like.dtype(), like.shape());
        WriteDoubles(t, v, ctx);
      }
    };
    const Tensor& mt = ctx.input(3);
    const Tensor& vt = ctx.input(4);
    if (train) {
      std::vector<double> rm(mean.size()), rv(var.size());
      for (size_t i = 0; i < mean.size(); ++i) {
        rm[i] = mean[i] * momentum_ + bmean[i] * (1.0 - momentum_);
        rv[i] = var[i] * momentum_ + bvar[i] * (1.0 - momentum_);
      }
      emit(1, rm, mt);
      emit(2, rv, vt);
      if (opset_ < 14) {
        emit(3, bmean, mt);
        std::vector<double> inv(bvar.size());
        for (size_t i = 0; i < bvar.size(); ++i) inv[i] = bvar[i];
        emit(4, inv, vt);
      }
    } else {
      emit(1, mean, mt);
      emit(2, var, vt);
      emit(3, mean, mt);
      emit(4, var, vt);
    }
  }

 private:
  int64_t opset_;
  float epsilon_ = 1e-5f;
  float momentum_ = 0.9f;
  bool training_ = false;
};

// ---- Layer / RMS normalization -------------------------------------------------
class LayerNormalization final : public OpKernel {
 public:
  LayerNormalization(const KernelInfo& info, bool rms) : rms_(rms) {
    axis_ = info.attr_int("axis", -1);
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    stash_ = StashType(info);
  }
  explicit LayerNormalization(const KernelInfo& info) : LayerNormalization(info, false) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    if (r == 0) ctx.Fail("X must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_, r, ctx);
    int64_t rows = SizeToDim(x.shape(), static_cast<size_t>(axis));
    int64_t D = SizeFromDim(x.shape(), static_cast<size_t>(axis));
    ParamMap sc = MakeParamMap(ctx.input(1), x.shape(), axis, ctx, "Scale");
    bool has_b = !rms_ && ctx.has_input(2);
    ParamMap bi;
    if (has_b) bi = MakeParamMap(ctx.input(2), x.shape(), axis, ctx, "B");
    DataType ydt = rms_ ? ctx.input(1).dtype() : x.dtype();
    if (!IsFloatingPoint(ydt)) ydt = x.dtype();
    Tensor& y = ctx.allocate_output(0, ydt, x.shape());
    Shape ss = x.shape();
    for (int64_t d = axis; d < r; ++d) ss[static_cast<size_t>(d)] = 1;
    Tensor* mean_t = nullptr;
    Tensor* inv_t = nullptr;
    if (!rms_ && ctx.num_outputs() > 1 && ctx.output_requested(1)) mean_t = &ctx.allocate_output(1, stash_, ss);
    if (!rms_ && ctx.num_outputs() > 2 && ctx.output_requested(2)) inv_t = &ctx.allocate_output(2, stash_, ss);
    // ONNX Runtime's SimplifiedLayerNormalization has inv_std_var as output 1.
    if (rms_ && ctx.num_outputs() > 1 && ctx.output_requested(1)) inv_t = &ctx.allocate_output(1, stash_, ss);
    std::vector<double> means(static_cast<size_t>(rows)), invs(static_cast<size_t>(rows));
    bool stash_double = stash_ == DataType::kDouble;
    // Scale/bias gathered into row order once when they do not vary across rows.
    auto gather = [&](const ParamMap& m, int64_t row, std::vector<double>& out) {
      out.resize(static_cast<size_t>(D));
      int64_t ro = m.RowOffset(row);
      for (int64_t j = 0; j < D; ++j)
        out[static_cast<size_t>(j)] = m.vals[static_cast<size_t>(ro + m.inner_off[static_cast<size_t>(j)])];
    };
    std::vector<double> sc0, bi0;
    if (sc.outer_zero) gather(sc, 0, sc0);
    if (has_b && bi.outer_zero) gather(bi, 0, bi0);
    if (!rms_ && !stash_double && D > 0 && x.dtype() == DataType::kFloat && ydt == DataType::kFloat &&
        sc.outer_zero && (!has_b || bi.outer_zero)) {
      // Float rows with one scale/bias for all: the vectorized row kernel.
      const std::vector<float> scale(sc0.begin(), sc0.end()), bias(bi0.begin(), bi0.end());
      const float* xd = x.data<float>();
      float* yd = y.data<float>();
      ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / D), [&](int64_t lo, int64_t hi) {
        for (int64_t row = lo; row < hi; ++row) {
          float mean, inv;
          LayerNormRowF32(xd + row * D, D, scale.data(), has_b ? bias.data() : nullptr, epsilon_, yd + row * D,
                          &mean, &inv);
          means[static_cast<size_t>(row)] = mean;
          invs[static_cast<size_t>(row)] = inv;
        }
      });
      if (mean_t) WriteDoubles(*mean_t, means, ctx);
      if (inv_t) WriteDoubles(*inv_t, invs, ctx);
      return;
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xd = x.data<T>();
      DispatchFloat(ydt, ctx, [&]<typename Y>() {
        Y* yd = y.data<Y>();
        ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(D, 1)),
                    [&](int64_t lo, int64_t hi) {
                      std::vector<double> sc_row, bi_row;
                      for (int64_t row = lo; row < hi; ++row) {
                        const T* xp = xd + row * D;
                        Y* yp = yd + row * D;
                        double mean = 0, sq = 0;
                        if (rms_) {
                          for (int64_t j = 0; j < D; ++j) {
                            double v = static_cast<double>(Load(xp[j]));
                            sq += v * v;
                          }
                          sq = D > 0 ? sq / static_cast<double>(D) : 0;
                        } else {
                          MeanAndVariance(xp, D, mean, sq);
                        }
                        double inv = 1.0 / std::sqrt(sq + static_cast<double>(epsilon_));
                        if (!stash_double) {
                          mean = static_cast<float>(mean);
                          inv = static_cast<float>(inv);
                        }
                        means[static_cast<size_t>(row)] = mean;
                        invs[static_cast<size_t>(row)] = inv;
                        const double* sp = sc0.data();
                        const double* bp = bi0.data();
                        if (!sc.outer_zero) {
                          gather(sc, row, sc_row);
                          sp = sc_row.data();
                        }
                        if (has_b && !bi.outer_zero) {
                          gather(bi, row, bi_row);
                          bp = bi_row.data();
                        }
                        if (has_b) {
                          for (int64_t j = 0; j < D; ++j)
                            yp[j] = StoreAs<Y>(static_cast<typename cpu::Compute<Y>::type>(
                                (static_cast<double>(Load(xp[j])) - mean) * inv * sp[j] + bp[j]));
                        } else {
                          for (int64_t j = 0; j < D; ++j)
                            yp[j] = StoreAs<Y>(static_cast<typename cpu::Compute<Y>::type>(
                                (static_cast<double>(Load(xp[j])) - mean) * inv * sp[j]));
                        }
                      }
                    });
      });
    });
    if (mean_t) WriteDoubles(*mean_t, means, ctx);
    if (inv_t) WriteDoubles(*inv_t, invs, ctx);
  }

 private:
  bool rms_;
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
  DataType stash_ = DataType::kFloat;
};

class RMSNormalization final : public OpKernel {
 public:
  explicit RMSNormalization(const KernelInfo& info) : impl_(info, true) {}
  void Compute(KernelContext& ctx) const override { impl_.Compute(ctx); }

 private:
  LayerNormalization impl_;
};

// ---- Instance / Group normalization ----------------------------------------------
// Normalizes groups of `gsize` consecutive channels of each sample; scale/bias
// are indexed per channel (per_group = false) or per group.
void GroupNorm(KernelContext& ctx, const Tensor& x, int64_t groups, bool per_group, double eps) {
  if (x.rank() < 2) ctx.Fail("X must have rank >= 2 (N, C, ...), got ", ShapeToString(x.shape()));
  int64_t N = x.dim(0), C = x.dim(1), S = SizeFromDim(x.shape(), 2);
  if (groups <= 0 || C % groups != 0) ctx.Fail("channel count ", C, " is not divisible by num_groups ", groups);
  int64_t cpg = C / groups;
  std::vector<double> scale = ReadParam(ctx.input(1), ctx, "scale");
  std::vector<double> bias = ReadParam(ctx.input(2), ctx, "bias");
  int64_t want = per_group ? groups : C;
  if (static_cast<int64_t>(scale.size()) != want || static_cast<int64_t>(bias.size()) != want)
    ctx.Fail("scale and bias must have ", want, " elements, got ", scale.size(), " and ", bias.size());
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  const int64_t gs = cpg * S;
  ForEachRun(ctx, x, y, N * groups, gs, 8192, [&]<typename T>(int64_t p, const T* xp, T* yp) {
    using CT = typename cpu::Compute<T>::type;
    int64_t g = p % groups;
    double mean = 0, var = 0;
    MeanAndVariance(xp, gs, mean, var);
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t k = 0; k < cpg; ++k) {
      size_t pi = static_cast<size_t>(per_group ? g : g * cpg + k);
      double a = scale[pi] * inv, b = bias[pi] - mean * a;
      for (int64_t s = 0; s < S; ++s) {
        int64_t i = k * S + s;
        yp[i] = StoreAs<T>(static_cast<CT>(static_cast<double>(Load(xp[i])) * a + b));
      }
    }
  });
}

class InstanceNormalization final : public OpKernel {
 public:
  explicit InstanceNormalization(const KernelInfo& info) { epsilon_ = info.attr_float("epsilon", 1e-5f); }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("X must have rank >= 2 (N, C, ...), got ", ShapeToString(x.shape()));
    GroupNorm(ctx, x, x.dim(1) == 0 ? 1 : x.dim(1), false, epsilon_);
  }

 private:
  float epsilon_;
};

class GroupNormalization final : public OpKernel {
 public:
  explicit GroupNormalization(const KernelInfo& info) {
    epsilon_ = info.attr_float("epsilon", 1e-5f);
    groups_ = info.attr_int("num_groups");
    if (groups_ <= 0) info.Fail("num_groups must be positive");
    per_group_ = info.opset() < 21;
  }
  void Compute(KernelContext& ctx) const override { GroupNorm(ctx, ctx.input(0), groups_, per_group_, epsilon_); }

 private:
  float epsilon_;
  int64_t groups_;
  bool per_group_;
};

// ---- LRN ---------------------------------------------------------------------------
class LRN final : public OpKernel {
 public:
  explicit LRN(const KernelInfo& info) {
    alpha_ = info.attr_float("alpha", 1e-4f);
    beta_ = info.attr_float("beta", 0.75f);
    bias_ = info.attr_float("bias", 1.0f);
    size_ = info.attr_int("size");
    if (size_ <= 0) info.Fail("size must be positive");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("X must have rank >= 2 (N, C, ...), got ", ShapeToString(x.shape()));
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    int64_t lo_off = (size_ - 1) / 2, hi_off = size_ - 1 - lo_off;
    // Each channel over the sum of squares of its window of channels.
    ForEachAxisLine(ctx, x, y, 1, 16, [&]<typename T>(const T* xl, T* yl, int64_t channels, int64_t stride) {
      using CT = typename cpu::Compute<T>::type;
      for (int64_t c = 0; c < channels; ++c) {
        int64_t c0 = std::max<int64_t>(0, c - lo_off), c1 = std::min<int64_t>(channels - 1, c + hi_off);
        double sum = 0;
        for (int64_t k = c0; k <= c1; ++k) {
          double v = static_cast<double>(Load(xl[k * stride]));
          sum += v * v;
        }
        double v = static_cast<double>(Load(xl[c * stride]));
        double den = std::pow(static_cast<double>(bias_) + static_cast<double>(alpha_) / static_cast<double>(size_) * sum,
                              static_cast<double>(beta_));
        yl[c * stride] = StoreAs<T>(static_cast<CT>(v / den));
      }
    });
  }

 private:
  float alpha_, beta_, bias_;
  int64_t size_;
};

// ---- LpNormalization --------------------------------------------------------------
class LpNormalization final : public OpKernel {
 public:
  explicit LpNormalization(const KernelInfo& info) {
    axis_ = info.attr_int("axis", -1);
    p_ = info.attr_int("p", 2);
    if (p_ != 1 && p_ != 2) info.Fail("p must be 1 or 2, got ", p_);
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() == 0) ctx.Fail("input must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_, x.rank(), ctx);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    ForEachAxisLine(ctx, x, y, axis, 64, [&]<typename T>(const T* xl, T* yl, int64_t len, int64_t stride) {
      using CT = typename cpu::Compute<T>::type;
      double norm = 0;
      for (int64_t k = 0; k < len; ++k) {
        double v = static_cast<double>(Load(xl[k * stride]));
        norm += p_ == 1 ? std::abs(v) : v * v;
      }
      if (p_ == 2) norm = std::sqrt(norm);
      for (int64_t k = 0; k < len; ++k) {
        double v = static_cast<double>(Load(xl[k * stride]));
        yl[k * stride] = StoreAs<T>(static_cast<CT>(norm == 0 ? 0.0 : v / norm));
      }
    });
  }

 private:
  int64_t axis_, p_;
};

// ---- MeanVarianceNormalization -------------------------------------------------
class MeanVarianceNormalization final : public OpKernel {
 public:
  explicit MeanVarianceNormalization(const KernelInfo& info) {
    axes_ = info.attr_ints("axes", {0, 2, 3});
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    std::vector<bool> red(static_cast<size_t>(r), false);
    for (int64_t a : axes_) {
      int64_t n = NormalizeAxis(a, r, ctx);
      if (red[static_cast<size_t>(n)]) ctx.Fail("axis ", a, " is repeated in axes");
      red[static_cast<size_t>(n)] = true;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    int64_t total = x.numel();
    if (total == 0) return;
    // Group index of every element = its coordinates along the kept axes.
    std::vector<int64_t> strides = StridesOf(x.shape());
    Shape keep_dims;
    for (int64_t d = 0; d < r; ++d)
      if (!red[static_cast<size_t>(d)]) keep_dims.push_back(x.dim(d));
    int64_t groups = 1;
    for (int64_t d : keep_dims) groups *= d;
    int64_t per = total / groups;
    std::vector<int64_t> gid(static_cast<size_t>(total));
    {
      std::vector<int64_t> idx(static_cast<size_t>(r), 0);
      for (int64_t i = 0; i < total; ++i) {
        int64_t g = 0;
        for (int64_t d = 0; d < r; ++d)
          if (!red[static_cast<size_t>(d)]) g = g * x.dim(d) + idx[static_cast<size_t>(d)];
        gid[static_cast<size_t>(i)] = g;
        for (int64_t d = r; d-- > 0;) {
          if (++idx[static_cast<size_t>(d)] < x.dim(d)) break;
          idx[static_cast<size_t>(d)] = 0;
        }
      }
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      // Two passes (mean, then centered squares) for numerical stability.
      std::vector<double> mean(static_cast<size_t>(groups), 0.0), den(static_cast<size_t>(groups), 0.0);
      for (int64_t i = 0; i < total; ++i) mean[static_cast<size_t>(gid[static_cast<size_t>(i)])] += static_cast<double>(Load(xd[i]));
      for (auto& m : mean) m /= static_cast<double>(per);
      for (int64_t i = 0; i < total; ++i) {
        size_t g = static_cast<size_t>(gid[static_cast<size_t>(i)]);
        double d = static_cast<double>(Load(xd[i])) - mean[g];
        den[g] += d * d;
      }
      for (auto& v : den) v = std::sqrt(v / static_cast<double>(per)) + 1e-9;
      for (int64_t i = 0; i < total; ++i) {
        size_t g = static_cast<size_t>(gid[static_cast<size_t>(i)]);
        yd[i] = StoreAs<T>(static_cast<CT>((static_cast<double>(Load(xd[i])) - mean[g]) / den[g]));
      }
    });
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

std::unique_ptr<OpKernel> MakeLayerNormKernel(const KernelInfo& info, bool rms) {
  return std::make_unique<LayerNormalization>(info, rms);
}

std::vector<KernelRow> NormalizationKernels() {
  return {
      {"ai.onnx", "BatchNormalization", 1, 13, NormFloats(), Make<BatchNormalization>()},
      {"ai.onnx", "BatchNormalization", 14, kMaxOnnxOpset, types::Floats(), Make<BatchNormalization>()},
      {"ai.onnx", "LayerNormalization", 17, kMaxOnnxOpset, types::Floats(), Make<LayerNormalization>()},
      {"ai.onnx", "RMSNormalization", 23, kMaxOnnxOpset, types::Floats(), Make<RMSNormalization>()},
      // ONNX Runtime registers these two in the ONNX domain from opset 1, and
      // its transformer optimizer and LLM builders write them there: Layer-
      // Normalization before ONNX defined it (17), and the RMS form.
      {"ai.onnx", "LayerNormalization", 1, 16, types::Floats(), Make<LayerNormalization>()},
      {"ai.onnx", "SimplifiedLayerNormalization", 1, kMaxOnnxOpset, types::Floats(), Make<RMSNormalization>()},
      {"ai.onnx", "InstanceNormalization", 1, 21, NormFloats(), Make<InstanceNormalization>()},
      {"ai.onnx", "InstanceNormalization", 22, kMaxOnnxOpset, types::Floats(), Make<InstanceNormalization>()},
      {"ai.onnx", "GroupNormalization", 18, 20, types::Floats(), Make<GroupNormalization>()},
      {"ai.onnx", "GroupNormalization", 21, kMaxOnnxOpset, types::Floats(), Make<GroupNormalization>()},
      {"ai.onnx", "LRN", 1, 12, NormFloats(), Make<LRN>()},
      {"ai.onnx", "LRN", 13, kMaxOnnxOpset, types::Floats(), Make<LRN>()},
      {"ai.onnx", "LpNormalization", 1, 21, NormFloats(), Make<LpNormalization>()},
      {"ai.onnx", "LpNormalization", 22, kMaxOnnxOpset, types::Floats(), Make<LpNormalization>()},
      {"ai.onnx", "MeanVarianceNormalization", 9, 12, NormFloats(), Make<MeanVarianceNormalization>()},
      {"ai.onnx", "MeanVarianceNormalization", 13, kMaxOnnxOpset, types::Floats(), Make<MeanVarianceNormalization>()},
  };
}

}  // namespace tessera::cpu
