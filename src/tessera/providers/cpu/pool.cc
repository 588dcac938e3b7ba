// Pooling kernels: MaxPool, AveragePool, LpPool, the Global* pools, MaxUnpool
// and MaxRoiPool. Windowed pools share one N-D geometry (pool_geometry.h).
#include <cmath>
#include <limits>
#include <numeric>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_pool.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/pool_geometry.h"

namespace tessera::cpu {
namespace {

std::vector<DataType> PoolFloats() { return {DataType::kFloat, DataType::kDouble, DataType::kFloat16}; }
std::vector<DataType> PoolFloatsBF() {
  return {DataType::kFloat, DataType::kDouble, DataType::kFloat16, DataType::kBFloat16};
}


template <typename T>
void DispatchPoolType(DataType dt, const KernelContext& ctx, T&& fn) {
  switch (dt) {
    case DataType::kInt8: fn.template operator()<int8_t>(); return;
    case DataType::kUInt8: fn.template operator()<uint8_t>(); return;
    default: DispatchFloat(dt, ctx, fn);
  }
}

// Calls per_out(p, xp, yp, o, visit, valid_count, pad_count) for every
// output point o of every (n, c) plane p of x (PoolPlane's walk), with xp
// and yp the plane's input and output; planes split across the threads.
template <typename T, typename PerOut>
void ForEachPoolOutput(const Tensor& x, Tensor& y, const PoolGeometry& g, const std::vector<int64_t>& strides,
                       ThreadPool* pool, PerOut&& per_out) {
  const int64_t planes = x.dim(0) * x.dim(1);
  const int64_t in_plane = SizeFromDim(x.shape(), 2), out_plane = SizeFromDim(y.shape(), 2);
  const T* xd = x.data<T>();
  T* yd = y.data<T>();
  ParallelFor(pool, planes, 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T* xp = xd + p * in_plane;
      T* yp = yd + p * out_plane;
      PoolPlane(g, strides, [&](int64_t o, auto&& visit, int64_t valid, int64_t padc) {
        per_out(p, xp, yp, o, visit, valid, padc);
      });
    }
  });
}

// ---- MaxPool ---------------------------------------------------------------
// 2-D windows without dilation (the CNN case): per output row, the maximum
// down the window's rows, into a row buffer whose padding columns hold the
// type's lowest value (-inf for float), then a sliding maximum along it; both
// are SIMD loops (simd_pool.h). A window wholly in the padding gives the
// lowest finite value, as the generic path does.
void MaxRows(const float* const* r, int64_t k, int64_t n, float* y) { MaxRowsF32(r, k, n, y); }
void MaxRows(const uint8_t* const* r, int64_t k, int64_t n, uint8_t* y) { MaxRowsU8(r, k, n, y); }
void MaxRows(const int8_t* const* r, int64_t k, int64_t n, int8_t* y) { MaxRowsI8(r, k, n, y); }
void MaxSliding(const float* m, int64_t kw, int64_t s, int64_t outs, float* y) { MaxSlidingF32(m, kw, s, outs, y); }
void MaxSliding(const uint8_t* m, int64_t kw, int64_t s, int64_t outs, uint8_t* y) { MaxSlidingU8(m, kw, s, outs, y); }
void MaxSliding(const int8_t* m, int64_t kw, int64_t s, int64_t outs, int8_t* y) { MaxSlidingI8(m, kw, s, outs, y); }

template <typename T>
void MaxPool2D(const T* x, T* y, int64_t planes, const PoolGeometry& g, int64_t kw, int64_t stride_w,
               ThreadPool* pool) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t pb = g.pad_begin[1];
  const size_t row_len =
      static_cast<size_t>(std::max(pb + W, MaxSlidingReach(kw, stride_w, OW)));
  constexpr T kPad = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  std::vector<int64_t> empty_cols;
  for (int64_t ow = 0; ow < OW; ++ow)
    if (g.win[1][static_cast<size_t>(ow)].empty()) empty_cols.push_back(ow);
  ParallelFor(pool, planes, 1, [&](int64_t b, int64_t e) {
    std::vector<T> row(row_len, kPad);
    std::vector<const T*> rows;
    for (int64_t p = b; p < e; ++p) {
      const T* xp = x + p * H * W;
      T* yp = y + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        T* yr = yp + oh * OW;
        const std::vector<int64_t>& hs = g.win[0][static_cast<size_t>(oh)];
        if (hs.empty()) {
          std::fill(yr, yr + OW, std::numeric_limits<T>::lowest());
          continue;
        }
        rows.clear();
        for (int64_t h : hs) rows.push_back(xp + h * W);
        MaxRows(rows.data(), static_cast<int64_t>(rows.size()), W, row.data() + pb);
        MaxSliding(row.data(), kw, stride_w, OW, yr);
        for (int64_t ow : empty_cols) yr[ow] = std::numeric_limits<T>::lowest();
      }
    }
  });
}

class MaxPool final : public OpKernel {
 public:
  explicit MaxPool(const KernelInfo& info) {
    attrs_.Parse(info, info.opset() >= 10, info.opset() >= 10);
    storage_order_ = info.opset() >= 8 ? info.attr_int("storage_order", 0) : 0;
    if (storage_order_ != 0 && storage_order_ != 1) info.Fail("storage_order must be 0 or 1");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    PoolGeometry g = MakeGeometry(attrs_, x.shape(), ctx);
    Shape os = OutShape(x.shape(), g);
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    bool want_idx = ctx.num_outputs() > 1 && ctx.output_requested(1);
    int64_t planes = x.dim(0) * x.dim(1);
    if (!want_idx && g.rank == 2 && attrs_.dilations[0] == 1 && attrs_.dilations[1] == 1) {
      const int64_t kw = attrs_.kernel[1], sw = attrs_.strides[1];
      switch (x.dtype()) {
        case DataType::kFloat: return MaxPool2D(x.data<float>(), y.data<float>(), planes, g, kw, sw, ctx.thread_pool());
        case DataType::kUInt8: return MaxPool2D(x.data<uint8_t>(), y.data<uint8_t>(), planes, g, kw, sw, ctx.thread_pool());
        case DataType::kInt8: return MaxPool2D(x.data<int8_t>(), y.data<int8_t>(), planes, g, kw, sw, ctx.thread_pool());
        default: break;
      }
    }
    int64_t* idx = nullptr;
    if (want_idx) idx = ctx.allocate_output(1, DataType::kInt64, os).data<int64_t>();
    int64_t in_plane = SizeFromDim(x.shape(), 2), out_plane = SizeFromDim(os, 2);
    std::vector<int64_t> strides = StridesOf(g.in);
    // Column-major strides for storage_order = 1.
    std::vector<int64_t> cstrides(g.rank, 1);
    for (size_t d = 1; d < g.rank; ++d) cstrides[d] = cstrides[d - 1] * g.in[d - 1];
    const std::vector<int64_t>& istr = storage_order_ ? cstrides : strides;
    DispatchPoolType(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      ForEachPoolOutput<T>(
          x, y, g, strides, ctx.thread_pool(),
          [&](int64_t p, const T* xp, T* yp, int64_t o, auto&& visit, int64_t, int64_t) {
            C best = std::numeric_limits<C>::lowest();
            int64_t best_off = -1;
            visit([&](int64_t off) {
              C v = Load(xp[off]);
              if (best_off < 0 || v > best) {
                best = v;
                best_off = off;
              } else if constexpr (std::is_floating_point_v<C>) {
                if (std::isnan(v) && !std::isnan(best)) {
                  best = v;
                  best_off = off;
                }
              }
            });
            yp[o] = StoreAs<T>(best);
            if (idx) {
              int64_t io = 0;
              if (best_off >= 0) {
                // Recover coordinates of best_off and re-linearize in the requested order.
                int64_t rem = best_off;
                for (size_t d = 0; d < g.rank; ++d) {
                  int64_t c = rem / strides[d];
                  rem %= strides[d];
                  io += c * istr[d];
                }
              }
              idx[p * out_plane + o] = p * in_plane + io;
            }
          });
    });
  }

 private:
  PoolAttrs attrs_;
  int64_t storage_order_ = 0;
};

// ---- AveragePool / LpPool --------------------------------------------------
// Drives a float-only window pool over input 0. `window_reducer<T>()` returns
// the ForEachPoolOutput callback for element type T.
template <typename WindowReducer>
void FloatPoolCompute(const PoolAttrs& attrs, KernelContext& ctx, WindowReducer&& window_reducer) {
  const Tensor& x = ctx.input(0);
  PoolGeometry g = MakeGeometry(attrs, x.shape(), ctx);
  Tensor& y = ctx.allocate_output(0, x.dtype(), OutShape(x.shape(), g));
  std::vector<int64_t> strides = StridesOf(g.in);
  DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
    ForEachPoolOutput<T>(x, y, g, strides, ctx.thread_pool(), window_reducer.template operator()<T>());
  });
}

class AveragePool final : public OpKernel {
 public:
  explicit AveragePool(const KernelInfo& info) {
    attrs_.Parse(info, info.opset() >= 19, info.opset() >= 10);
    count_include_pad_ = info.opset() >= 7 && info.attr_int("count_include_pad", 0) != 0;
  }

  void Compute(KernelContext& ctx) const override {
    FloatPoolCompute(attrs_, ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      return [&](int64_t, const T* xp, T* yp, int64_t o, auto&& visit, int64_t valid, int64_t padc) {
        C sum = 0;
        visit([&](int64_t off) { sum += Load(xp[off]); });
        int64_t count = count_include_pad_ ? padc : valid;
        yp[o] = StoreAs<T>(count > 0 ? sum / static_cast<C>(count) : C(0));
      };
    });
  }

 private:
  PoolAttrs attrs_;
  bool count_include_pad_ = false;
};

float ReadP(const KernelInfo& info) {
  const Attribute* a = info.node().FindAttribute("p");
  if (!a) return 2.0f;
  if (a->type == AttributeType::kFloat) return info.attr_float("p");
  return static_cast<float>(info.attr_int("p"));
}

template <typename C>
C LpFinish(C sum, float p) {
  if (p == 2.0f) return std::sqrt(sum);
  if (p == 1.0f) return sum;
  return static_cast<C>(std::pow(static_cast<double>(sum), 1.0 / p));
}
template <typename C>
C LpTerm(C v, float p) {
  if (p == 2.0f) return v * v;
  if (p == 1.0f) return std::abs(v);
  return static_cast<C>(std::pow(std::abs(static_cast<double>(v)), static_cast<double>(p)));
}

class LpPool final : public OpKernel {
 public:
  explicit LpPool(const KernelInfo& info) {
    attrs_.Parse(info, info.opset() >= 18, info.opset() >= 18);
    p_ = ReadP(info);
    if (!(p_ > 0)) info.Fail("p must be positive");
  }

  void Compute(KernelContext& ctx) const override {
    FloatPoolCompute(attrs_, ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      return [&](int64_t, const T* xp, T* yp, int64_t o, auto&& visit, int64_t, int64_t) {
        C sum = 0;
        visit([&](int64_t off) { sum += LpTerm<C>(Load(xp[off]), p_); });
        yp[o] = StoreAs<T>(LpFinish<C>(sum, p_));
      };
    });
  }

 private:
  PoolAttrs attrs_;
  float p_ = 2.0f;
};

// ---- Global pools ------------------------------------------------------------
enum class GlobalKind { kAverage, kMax, kLp };

class GlobalPool final : public OpKernel {
 public:
  GlobalPool(const KernelInfo& info, GlobalKind kind) : kind_(kind) {
    if (kind == GlobalKind::kLp) {
      p_ = ReadP(info);
      if (!(p_ > 0)) info.Fail("p must be positive");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.Fail("input must have rank >= 2 (N, C, ...), got ", ShapeToString(x.shape()));
    Shape os = {x.dim(0), x.dim(1)};
    for (int64_t i = 2; i < x.rank(); ++i) os.push_back(1);
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    int64_t planes = x.dim(0) * x.dim(1);
    int64_t plane = SizeFromDim(x.shape(), 2);
    if (kind_ == GlobalKind::kMax && plane == 0 && planes > 0) ctx.Fail("GlobalMaxPool over an empty spatial extent");
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), planes, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane, 1)),
                  [&](int64_t b, int64_t e) {
                    for (int64_t p = b; p < e; ++p) {
                      const T* xp = xd + p * plane;
                      C acc;
                      if (kind_ == GlobalKind::kMax) {
                        acc = Load(xp[0]);
                        for (int64_t i = 1; i < plane; ++i) {
                          C v = Load(xp[i]);
                          if (v > acc || std::isnan(static_cast<double>(v))) acc = v;
                        }
                      } else if (kind_ == GlobalKind::kAverage) {
                        double s = 0;
                        for (int64_t i = 0; i < plane; ++i) s += static_cast<double>(Load(xp[i]));
                        acc = static_cast<C>(plane > 0 ? s / static_cast<double>(plane) : 0.0);
                      } else {
                        double s = 0;
                        for (int64_t i = 0; i < plane; ++i) s += LpTerm<double>(static_cast<double>(Load(xp[i])), p_);
                        acc = static_cast<C>(LpFinish<double>(s, p_));
                      }
                      yd[p] = StoreAs<T>(acc);
                    }
                  });
    });
  }

 private:
  GlobalKind kind_;
  float p_ = 2.0f;
};

// GlobalPool of one kind, built from KernelInfo alone as a row's factory
// builds kernels.
template <GlobalKind kKind>
class GlobalPoolOf final : public OpKernel {
 public:
  explicit GlobalPoolOf(const KernelInfo& info) : impl_(info, kKind) {}
  void Compute(KernelContext& ctx) const override { impl_.Compute(ctx); }

 private:
  GlobalPool impl_;
};
using GlobalAveragePool = GlobalPoolOf<GlobalKind::kAverage>;
using GlobalMaxPool = GlobalPoolOf<GlobalKind::kMax>;
using GlobalLpPool = GlobalPoolOf<GlobalKind::kLp>;

// ---- MaxUnpool -----------------------------------------------------------------
class MaxUnpool final : public OpKernel {
 public:
  explicit MaxUnpool(const KernelInfo& info) {
    kernel_ = info.attr_ints("kernel_shape");
    size_t r = kernel_.size();
    if (r == 0) info.Fail("kernel_shape must not be empty");
    strides_ = info.attr_ints("strides", std::vector<int64_t>(r, 1));
    if (strides_.empty()) strides_.assign(r, 1);
    pads_ = info.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
    if (pads_.empty()) pads_.assign(2 * r, 0);
    if (strides_.size() != r || pads_.size() != 2 * r) info.Fail("strides/pads do not match kernel_shape rank ", r);
    for (int64_t s : strides_)
      if (s <= 0) info.Fail("strides must be positive");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    size_t r = kernel_.size();
    if (x.rank() != static_cast<int64_t>(r) + 2)
      ctx.Fail("input of shape ", ShapeToString(x.shape()), " does not match kernel_shape rank ", r);
    if (ind.shape() != x.shape())
      ctx.Fail("indices shape ", ShapeToString(ind.shape()), " differs from X shape ", ShapeToString(x.shape()));
    if (ind.dtype() != DataType::kInt64) ctx.Fail("indices must be int64");
    Shape os = {x.dim(0), x.dim(1)};
    for (size_t d = 0; d < r; ++d) {
      int64_t o = (x.dim(static_cast<int64_t>(d) + 2) - 1) * strides_[d] + kernel_[d] - pads_[d] - pads_[d + r];
      os.push_back(std::max<int64_t>(o, 0));
    }
    // Indices address the inferred output shape; an explicit output_shape keeps
    // each element's spatial coordinates.
    Shape inferred = os;
    bool remap = false;
    if (ctx.has_input(2)) {
      std::vector<int64_t> given = ReadInts(ctx.input(2));
      if (given.size() != os.size()) ctx.Fail("output_shape has ", given.size(), " values, expected ", os.size());
      for (size_t d = 0; d < given.size(); ++d) {
        if (given[d] < 0) ctx.Fail("output_shape values must be non-negative");
        if (d < 2 && given[d] != os[d]) ctx.Fail("output_shape batch/channel dims must match the input");
        if (d >= 2 && given[d] < os[d])
          ctx.Fail("output_shape dim ", d, " (", given[d], ") is smaller than the inferred size ", os[d]);
      }
      remap = given != os;
      os = given;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    std::memset(y.raw_data(), 0, y.nbytes());
    const int64_t* id = ind.data<int64_t>();
    int64_t n = x.numel();
    int64_t limit = SizeFromDim(inferred, 0);
    Shape isp(inferred.begin() + 2, inferred.end()), osp(os.begin() + 2, os.end());
    std::vector<int64_t> ostr = StridesOf(osp);
    int64_t in_plane = SizeFromDim(isp, 0), out_plane = SizeFromDim(osp, 0);
    size_t es = ElementSize(x);
    const char* xs = static_cast<const char*>(x.raw_data());
    char* ys = static_cast<char*>(y.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      int64_t v = id[i];
      if (v < 0 || v >= limit) ctx.Fail("index ", v, " is out of range for an output of ", limit, " elements");
      int64_t dst = v;
      if (remap) {
        int64_t p = v / in_plane, rem = v % in_plane, off = 0;
        for (size_t d = isp.size(); d-- > 0;) {
          off += (rem % isp[d]) * ostr[d];
          rem /= isp[d];
        }
        dst = p * out_plane + off;
      }
      std::memcpy(ys + dst * es, xs + i * es, es);
    }
  }

 private:
  std::vector<int64_t> kernel_, strides_, pads_;
};

// ---- MaxRoiPool ------------------------------------------------------------------
class MaxRoiPool final : public OpKernel {
 public:
  explicit MaxRoiPool(const KernelInfo& info) {
    pooled_ = info.attr_ints("pooled_shape");
    if (pooled_.size() != 2 || pooled_[0] <= 0 || pooled_[1] <= 0)
      info.Fail("pooled_shape must hold two positive values");
    scale_ = info.attr_float("spatial_scale", 1.0f);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    if (x.rank() != 4) ctx.Fail("X must be 4-D, got ", ShapeToString(x.shape()));
    if (rois.rank() != 2 || rois.dim(1) != 5) ctx.Fail("rois must have shape [num_rois, 5], got ", ShapeToString(rois.shape()));
    if (rois.dtype() != x.dtype()) ctx.Fail("rois must have the same type as X");
    int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
    int64_t PH = pooled_[0], PW = pooled_[1];
    Tensor& y = ctx.allocate_output(0, x.dtype(), {R, C, PH, PW});
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      const T* rd = rois.data<T>();
      T* yd = y.data<T>();
      for (int64_t r = 0; r < R; ++r) {
        const T* roi = rd + r * 5;
        double bidx = static_cast<double>(Load(roi[0]));
        if (!(bidx >= 0 && bidx < static_cast<double>(N))) ctx.Fail("roi ", r, " has batch index out of range");
        int64_t b = static_cast<int64_t>(bidx);
        for (int k = 1; k < 5; ++k) {
          double v = static_cast<double>(Load(roi[k])) * scale_;
          if (!std::isfinite(v) || std::abs(v) > 1e9) ctx.Fail("roi ", r, " has a non-finite or huge coordinate");
        }
        int64_t x1 = static_cast<int64_t>(std::round(static_cast<double>(Load(roi[1])) * scale_));
        int64_t y1 = static_cast<int64_t>(std::round(static_cast<double>(Load(roi[2])) * scale_));
        int64_t x2 = static_cast<int64_t>(std::round(static_cast<double>(Load(roi[3])) * scale_));
        int64_t y2 = static_cast<int64_t>(std::round(static_cast<double>(Load(roi[4])) * scale_));
        int64_t rh = std::max<int64_t>(y2 - y1 + 1, 1), rw = std::max<int64_t>(x2 - x1 + 1, 1);
        double bh = static_cast<double>(rh) / static_cast<double>(PH), bw = static_cast<double>(rw) / static_cast<double>(PW);
        for (int64_t c = 0; c < C; ++c) {
          const T* xp = xd + (b * C + c) * H * W;
          T* yp = yd + (r * C + c) * PH * PW;
          for (int64_t ph = 0; ph < PH; ++ph) {
            int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(ph * bh)) + y1, 0, H);
            int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((ph + 1) * bh)) + y1, 0, H);
            for (int64_t pw = 0; pw < PW; ++pw) {
              int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(pw * bw)) + x1, 0, W);
              int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((pw + 1) * bw)) + x1, 0, W);
              bool empty = he <= hs || we <= ws;
              CT best = std::numeric_limits<CT>::lowest();
              for (int64_t h = hs; h < he; ++h)
                for (int64_t w = ws; w < we; ++w) best = std::max<CT>(best, Load(xp[h * W + w]));
              yp[ph * PW + pw] = StoreAs<T>(empty ? CT(0) : best);
            }
          }
        }
      }
    });
  }

 private:
  std::vector<int64_t> pooled_;
  float scale_ = 1.0f;
};

}  // namespace

std::vector<KernelRow> PoolKernels() {
  std::vector<DataType> max12 = types::Join(PoolFloats(), {DataType::kInt8, DataType::kUInt8});
  std::vector<DataType> max22 = types::Join(PoolFloatsBF(), {DataType::kInt8, DataType::kUInt8});
  return {
      {"ai.onnx", "MaxPool", 1, 11, PoolFloats(), Make<MaxPool>()},
      {"ai.onnx", "MaxPool", 12, 21, max12, Make<MaxPool>()},
      {"ai.onnx", "MaxPool", 22, kMaxOnnxOpset, max22, Make<MaxPool>()},
      {"ai.onnx", "AveragePool", 1, 21, PoolFloats(), Make<AveragePool>()},
      {"ai.onnx", "AveragePool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<AveragePool>()},
      {"ai.onnx", "LpPool", 1, 21, PoolFloats(), Make<LpPool>()},
      {"ai.onnx", "LpPool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<LpPool>()},
      {"ai.onnx", "GlobalAveragePool", 1, 21, PoolFloats(), Make<GlobalAveragePool>()},
      {"ai.onnx", "GlobalAveragePool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<GlobalAveragePool>()},
      {"ai.onnx", "GlobalMaxPool", 1, 21, PoolFloats(), Make<GlobalMaxPool>()},
      {"ai.onnx", "GlobalMaxPool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<GlobalMaxPool>()},
      {"ai.onnx", "GlobalLpPool", 1, 21, PoolFloats(), Make<GlobalLpPool>()},
      {"ai.onnx", "GlobalLpPool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<GlobalLpPool>()},
      {"ai.onnx", "MaxUnpool", 9, 21, PoolFloats(), Make<MaxUnpool>()},
      {"ai.onnx", "MaxUnpool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<MaxUnpool>()},
      {"ai.onnx", "MaxRoiPool", 1, 21, PoolFloats(), Make<MaxRoiPool>()},
      {"ai.onnx", "MaxRoiPool", 22, kMaxOnnxOpset, PoolFloatsBF(), Make<MaxRoiPool>()},
  };
}

}  // namespace tessera::cpu
