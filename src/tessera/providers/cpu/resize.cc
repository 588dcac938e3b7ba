// Resampling kernels: Resize and Upsample.
//
// Resize/Upsample are separable: for every axis we precompute, per output
// index, a fixed number of taps (input index, weight) plus an "extrapolate"
// flag; an output value is the sum over the cartesian product of its per-axis
// taps.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/resample_modes.h"

namespace tessera::cpu {
namespace {

// ---- shared resampling engine ----------------------------------------------------
struct AxisPlan {
  int64_t in = 0, out = 0, taps = 1;
  std::vector<int64_t> idx;    // out * taps
  std::vector<double> w;       // out * taps
  std::vector<uint8_t> extrap; // out
  bool Identity() const {
    if (in != out || taps != 1) return false;
    for (int64_t o = 0; o < out; ++o)
      if (idx[static_cast<size_t>(o)] != o || w[static_cast<size_t>(o)] != 1.0 || extrap[static_cast<size_t>(o)])
        return false;
    return true;
  }
};

template <typename T>
T CastResult(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    v = std::nearbyint(v);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(v));
  }
}

void Resample(const Tensor& x, Tensor& y, const std::vector<AxisPlan>& plans, double extrap_value,
              const KernelContext& ctx) {
  size_t r = plans.size();
  if (y.numel() == 0) return;
  if (r == 0) {
    std::memcpy(y.raw_data(), x.raw_data(), y.nbytes());
    return;
  }
  size_t k = 0;
  while (k + 1 < r && plans[k].Identity()) ++k;  // collapse leading identity axes into a batch
  int64_t batch = 1;
  for (size_t d = 0; d < k; ++d) batch *= plans[d].out;
  Shape in_sub, out_sub;
  for (size_t d = k; d < r; ++d) {
    in_sub.push_back(plans[d].in);
    out_sub.push_back(plans[d].out);
  }
  std::vector<int64_t> istr = StridesOf(in_sub);
  int64_t in_plane = SizeFromDim(in_sub, 0), out_plane = SizeFromDim(out_sub, 0);
  size_t m = r - k;  // resampled axes; the last is the inner loop
  const AxisPlan& last = plans[r - 1];
  int64_t out_last = last.out;
  int64_t rows_per_batch = out_plane / out_last;
  auto run = [&]<typename T>() {
    const T* xd = x.data<T>();
    T* yd = y.data<T>();
    T ev = CastResult<T>(extrap_value);
    ParallelFor(ctx.thread_pool(), batch * rows_per_batch, std::max<int64_t>(1, 4096 / std::max<int64_t>(out_last, 1)),
                [&](int64_t lo, int64_t hi) {
                  std::vector<int64_t> offs, noffs;
                  std::vector<double> ws, nws;
                  std::vector<int64_t> oi(m, 0);
                  for (int64_t row = lo; row < hi; ++row) {
                    int64_t b = row / rows_per_batch, rr = row % rows_per_batch;
                    // Unravel rr over the non-last resampled axes.
                    for (size_t d = m - 1; d-- > 0;) {
                      oi[d] = rr % out_sub[d];
                      rr /= out_sub[d];
                    }
                    bool ex = false;
                    offs.assign(1, b * in_plane);
                    ws.assign(1, 1.0);
                    for (size_t d = 0; d + 1 < m; ++d) {
                      const AxisPlan& p = plans[k + d];
                      size_t o = static_cast<size_t>(oi[d]);
                      if (p.extrap[o]) {
                        ex = true;
                        break;
                      }
                      noffs.clear();
                      nws.clear();
                      for (size_t i = 0; i < offs.size(); ++i)
                        for (int64_t t = 0; t < p.taps; ++t) {
                          double wt = p.w[o * static_cast<size_t>(p.taps) + static_cast<size_t>(t)];
                          if (wt == 0.0) continue;
                          noffs.push_back(offs[i] + p.idx[o * static_cast<size_t>(p.taps) + static_cast<size_t>(t)] * istr[d]);
                          nws.push_back(ws[i] * wt);
                        }
                      offs.swap(noffs);
                      ws.swap(nws);
                    }
                    T* yp = yd + row * out_last;
                    if (ex) {
                      for (int64_t o = 0; o < out_last; ++o) yp[o] = ev;
                      continue;
                    }
                    size_t lt = static_cast<size_t>(last.taps);
                    for (int64_t o = 0; o < out_last; ++o) {
                      size_t ou = static_cast<size_t>(o);
                      if (last.extrap[ou]) {
                        yp[o] = ev;
                        continue;
                      }
                      const int64_t* li = &last.idx[ou * lt];
                      const double* lw = &last.w[ou * lt];
                      double acc = 0;
                      for (size_t i = 0; i < offs.size(); ++i) {
                        const T* xp = xd + offs[i];
                        double s = 0;
                        for (size_t t = 0; t < lt; ++t)
                          if (lw[t] != 0.0) s += lw[t] * static_cast<double>(Load(xp[li[t]]));
                        acc += ws[i] * s;
                      }
                      yp[o] = CastResult<T>(acc);
                    }
                  }
                });
  };
  DispatchNumeric(x.dtype(), ctx, run);
}

enum class CoordMode { kHalfPixel, kHalfPixelSymmetric, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNN, kTfCropAndResize };
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil, kSimple };

struct ResizeSpec {
  InterpMode mode = InterpMode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
};

// scale: output/input along the axis; out_float: in * scale before rounding.
AxisPlan PlanAxis(const ResizeSpec& s, int64_t in, int64_t out, double scale, double out_float, double roi_start,
                  double roi_end) {
  AxisPlan p;
  p.in = in;
  p.out = out;
  double filt_scale = (s.antialias && scale < 1.0) ? scale : 1.0;
  int64_t start_off = 0;
  if (s.mode == InterpMode::kNearest) {
    p.taps = 1;
  } else if (s.mode == InterpMode::kLinear) {
    start_off = static_cast<int64_t>(std::floor(-1.0 / filt_scale)) + 1;
    p.taps = 2 - 2 * start_off;
  } else {
    start_off = static_cast<int64_t>(std::floor(-2.0 / filt_scale)) + 1;
    p.taps = 2 - 2 * start_off;
  }
  size_t taps = static_cast<size_t>(p.taps);
  p.idx.assign(static_cast<size_t>(out) * taps, 0);
  p.w.assign(static_cast<size_t>(out) * taps, 0.0);
  p.extrap.assign(static_cast<size_t>(out), 0);
  if (in == 0) return p;
  for (int64_t o = 0; o < out; ++o) {
    double xr = static_cast<double>(o), xo = 0;
    switch (s.coord) {
      case CoordMode::kHalfPixel: xo = (xr + 0.5) / scale - 0.5; break;
      case CoordMode::kHalfPixelSymmetric: {
        double adj = static_cast<double>(out) / out_float;
        double center = static_cast<double>(in) / 2;
        double offset = center * (1 - adj);
        xo = offset + (xr + 0.5) / scale - 0.5;
        break;
      }
      case CoordMode::kPytorchHalfPixel: xo = out > 1 ? (xr + 0.5) / scale - 0.5 : 0.0; break;
      case CoordMode::kAlignCorners:
        // The reference divides by the fractional target length (in * scale) when scales are given.
        xo = (out == 1 || out_float == 1.0) ? 0.0 : xr * static_cast<double>(in - 1) / (out_float - 1);
        break;
      case CoordMode::kAsymmetric: xo = xr / scale; break;
      case CoordMode::kTfHalfPixelForNN: xo = (xr + 0.5) / scale; break;
      case CoordMode::kTfCropAndResize:
        xo = out > 1 ? roi_start * static_cast<double>(in - 1) +
                           xr * (roi_end - roi_start) * static_cast<double>(in - 1) / static_cast<double>(out - 1)
                     : 0.5 * (roi_start + roi_end) * static_cast<double>(in - 1);
        if (xo < 0 || xo > static_cast<double>(in - 1)) {
          p.extrap[static_cast<size_t>(o)] = 1;
          continue;
        }
        break;
    }
    if (!std::isfinite(xo)) {
      if (s.coord == CoordMode::kTfCropAndResize) {
        p.extrap[static_cast<size_t>(o)] = 1;
        continue;
      }
      xo = 0;
    }
    // Points far outside only ever read edge values; keep the integer casts defined.
    xo = std::clamp(xo, -static_cast<double>(in) - 8.0, static_cast<double>(in) + 8.0);
    size_t base = static_cast<size_t>(o) * taps;
    if (s.mode == InterpMode::kNearest) {
      double v = 0;
      switch (s.nearest) {
        case NearestMode::kRoundPreferFloor:
          v = (xo - std::floor(xo) == 0.5) ? std::floor(xo) : std::round(xo);
          break;
        case NearestMode::kRoundPreferCeil:
          v = (xo - std::floor(xo) == 0.5) ? std::ceil(xo) : std::round(xo);
          break;
        case NearestMode::kFloor: v = std::floor(xo); break;
        case NearestMode::kCeil: v = std::ceil(xo); break;
        case NearestMode::kSimple: v = scale < 1.0 ? std::ceil(xo) : std::floor(xo); break;
      }
      int64_t i = static_cast<int64_t>(std::clamp(v, 0.0, static_cast<double>(in - 1)));
      p.idx[base] = i;
      p.w[base] = 1.0;
      continue;
    }
    double fl = std::floor(xo);
    double ratio = xo - fl;
    int64_t b0 = static_cast<int64_t>(fl);
    if (ratio == 0) {  // the reference takes the lower neighbour set with ratio 1
      ratio = 1;
      b0 -= 1;
    }
    double sum = 0;
    for (size_t t = 0; t < taps; ++t) {
      int64_t off = start_off + static_cast<int64_t>(t);
      int64_t pos = b0 + off;
      double arg = (static_cast<double>(off) - ratio) * filt_scale;
      double wt = s.mode == InterpMode::kLinear ? std::max(0.0, 1.0 - std::abs(arg)) : CubicWeight(arg, s.cubic_a);
      if (s.exclude_outside && (pos < 0 || pos >= in)) wt = 0;
      p.idx[base + t] = std::clamp<int64_t>(pos, 0, in - 1);
      p.w[base + t] = wt;
      sum += wt;
    }
    bool normalize = s.exclude_outside || filt_scale < 1.0;
    if (normalize && sum != 0)
      for (size_t t = 0; t < taps; ++t) p.w[base + t] /= sum;
  }
  return p;
}

InterpMode ParseInterp(const KernelInfo& info, const std::string& m) {
  if (m == "nearest") return InterpMode::kNearest;
  if (m == "linear" || m == "bilinear" || m == "trilinear") return InterpMode::kLinear;
  if (m == "cubic") return InterpMode::kCubic;
  info.Fail("unsupported mode '", m, "'");
}

std::vector<DataType> ResizeTypes() {
  return types::Numeric();
}

// ---- Resize ---------------------------------------------------------------------
class Resize final : public OpKernel {
 public:
  explicit Resize(const KernelInfo& info) : opset_(info.opset()) {
    spec_.mode = ParseInterp(info, info.attr_string("mode", "nearest"));
    if (opset_ < 11) {
      spec_.coord = CoordMode::kAsymmetric;
      spec_.nearest = NearestMode::kSimple;
      return;
    }
    std::string cm = info.attr_string("coordinate_transformation_mode", "half_pixel");
    if (cm == "half_pixel") spec_.coord = CoordMode::kHalfPixel;
    else if (cm == "half_pixel_symmetric" && opset_ >= 19) spec_.coord = CoordMode::kHalfPixelSymmetric;
    else if (cm == "pytorch_half_pixel") spec_.coord = CoordMode::kPytorchHalfPixel;
    else if (cm == "align_corners") spec_.coord = CoordMode::kAlignCorners;
    else if (cm == "asymmetric") spec_.coord = CoordMode::kAsymmetric;
    else if (cm == "tf_half_pixel_for_nn") spec_.coord = CoordMode::kTfHalfPixelForNN;
    else if (cm == "tf_crop_and_resize") spec_.coord = CoordMode::kTfCropAndResize;
    else info.Fail("unsupported coordinate_transformation_mode '", cm, "'");
    std::string nm = info.attr_string("nearest_mode", "round_prefer_floor");
    if (nm == "round_prefer_floor") spec_.nearest = NearestMode::kRoundPreferFloor;
    else if (nm == "round_prefer_ceil") spec_.nearest = NearestMode::kRoundPreferCeil;
    else if (nm == "floor") spec_.nearest = NearestMode::kFloor;
    else if (nm == "ceil") spec_.nearest = NearestMode::kCeil;
    else info.Fail("unsupported nearest_mode '", nm, "'");
    spec_.cubic_a = info.attr_float("cubic_coeff_a", -0.75f);
    spec_.exclude_outside = info.attr_int("exclude_outside", 0) != 0;
    extrapolation_ = info.attr_float("extrapolation_value", 0.0f);
    if (opset_ >= 18) {
      spec_.antialias = info.attr_int("antialias", 0) != 0;
      axes_ = info.attr_ints("axes", {});
      std::string kp = info.attr_string("keep_aspect_ratio_policy", "stretch");
      if (kp == "stretch") policy_ = 0;
      else if (kp == "not_larger") policy_ = 1;
      else if (kp == "not_smaller") policy_ = 2;
      else info.Fail("unsupported keep_aspect_ratio_policy '", kp, "'");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    // Which axes scales/sizes/roi refer to.
    std::vector<int64_t> axes;
    if (axes_.empty()) {
      for (int64_t i = 0; i < r; ++i) axes.push_back(i);
    } else {
      std::vector<bool> seen(static_cast<size_t>(r), false);
      for (int64_t a : axes_) {
        int64_t n = NormalizeAxis(a, r, ctx);
        if (seen[static_cast<size_t>(n)]) ctx.Fail("axis ", a, " is repeated in axes");
        seen[static_cast<size_t>(n)] = true;
        axes.push_back(n);
      }
    }
    size_t na = axes.size();
    std::vector<double> scales(static_cast<size_t>(r), 1.0), out_float(static_cast<size_t>(r));
    Shape os = x.shape();
    std::vector<double> roi_s(static_cast<size_t>(r), 0.0), roi_e(static_cast<size_t>(r), 1.0);
    size_t scales_in = opset_ < 11 ? 1 : 2;
    bool has_scales = ctx.has_input(scales_in) && ctx.input(scales_in).numel() > 0;
    bool has_sizes = opset_ >= 11 && ctx.has_input(3) && ctx.input(3).numel() > 0;
    if (has_scales && has_sizes) ctx.Fail("only one of 'scales' and 'sizes' may be given");
    if (!has_scales && !has_sizes) ctx.Fail("one of 'scales' and 'sizes' must be given");
    if (opset_ >= 11 && spec_.coord == CoordMode::kTfCropAndResize && ctx.has_input(1) && ctx.input(1).numel() > 0) {
      const Tensor& roi = ctx.input(1);
      if (static_cast<size_t>(roi.numel()) != 2 * na)
        ctx.Fail("roi has ", roi.numel(), " values, expected ", 2 * na);
      for (size_t i = 0; i < na; ++i) {
        roi_s[static_cast<size_t>(axes[i])] = roi.GetAsDouble(static_cast<int64_t>(i));
        roi_e[static_cast<size_t>(axes[i])] = roi.GetAsDouble(static_cast<int64_t>(i + na));
      }
    }
    if (has_scales) {
      const Tensor& st = ctx.input(scales_in);
      if (!IsFloatingPoint(st.dtype())) ctx.Fail("scales must be a float tensor");
      if (static_cast<size_t>(st.numel()) != na) ctx.Fail("scales has ", st.numel(), " values, expected ", na);
      for (size_t i = 0; i < na; ++i) {
        double s = st.GetAsDouble(static_cast<int64_t>(i));
        if (!(s > 0)) ctx.Fail("scales must be positive, got ", s);
        size_t a = static_cast<size_t>(axes[i]);
        scales[a] = s;
        double of = static_cast<double>(x.dim(axes[i])) * s;
        os[a] = static_cast<int64_t>(std::floor(of));
        if (os[a] < 0 || of > 1e12) ctx.Fail("scale ", s, " gives an unreasonable output size");
      }
    } else {
      const Tensor& zt = ctx.input(3);
      if (zt.dtype() != DataType::kInt64) ctx.Fail("sizes must be int64");
      if (static_cast<size_t>(zt.numel()) != na) ctx.Fail("sizes has ", zt.numel(), " values, expected ", na);
      std::vector<int64_t> sz = ReadInts(zt);
      for (int64_t v : sz)
        if (v < 0) ctx.Fail("sizes must be non-negative");
      if (policy_ == 0) {
        for (size_t i = 0; i < na; ++i) {
          size_t a = static_cast<size_t>(axes[i]);
          os[a] = sz[i];
          scales[a] = x.dim(axes[i]) > 0 ? static_cast<double>(sz[i]) / static_cast<double>(x.dim(axes[i])) : 1.0;
        }
      } else {
        double sc = policy_ == 1 ? std::numeric_limits<double>::infinity() : 0.0;
        for (size_t i = 0; i < na; ++i) {
          double in = static_cast<double>(x.dim(axes[i]));
          double f = in > 0 ? static_cast<double>(sz[i]) / in : 1.0;
          sc = policy_ == 1 ? std::min(sc, f) : std::max(sc, f);
        }
        for (size_t i = 0; i < na; ++i) {
          size_t a = static_cast<size_t>(axes[i]);
          scales[a] = sc;
          os[a] = static_cast<int64_t>(std::floor(sc * static_cast<double>(x.dim(axes[i])) + 0.5));
        }
      }
    }
    for (int64_t d = 0; d < r; ++d) {
      size_t a = static_cast<size_t>(d);
      out_float[a] = has_scales ? static_cast<double>(x.dim(d)) * scales[a] : static_cast<double>(os[a]);
      if (has_sizes && policy_ != 0) out_float[a] = static_cast<double>(x.dim(d)) * scales[a];
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    if (y.numel() == 0) return;
    if (x.numel() == 0) ctx.Fail("cannot resize an empty input to a non-empty output");
    std::vector<AxisPlan> plans(static_cast<size_t>(r));
    for (int64_t d = 0; d < r; ++d) {
      size_t a = static_cast<size_t>(d);
      bool resized = os[a] != x.dim(d) || scales[a] != 1.0 ||
                     (spec_.coord == CoordMode::kTfCropAndResize && (roi_s[a] != 0.0 || roi_e[a] != 1.0));
      if (!resized) {
        AxisPlan p;
        p.in = p.out = x.dim(d);
        p.idx.resize(static_cast<size_t>(p.out));
        std::iota(p.idx.begin(), p.idx.end(), int64_t{0});
        p.w.assign(static_cast<size_t>(p.out), 1.0);
        p.extrap.assign(static_cast<size_t>(p.out), 0);
        plans[a] = std::move(p);
      } else {
        plans[a] = PlanAxis(spec_, x.dim(d), os[a], scales[a], out_float[a], roi_s[a], roi_e[a]);
      }
    }
    Resample(x, y, plans, extrapolation_, ctx);
  }

 private:
  int64_t opset_;
  ResizeSpec spec_;
  float extrapolation_ = 0.0f;
  std::vector<int64_t> axes_;
  int policy_ = 0;
};

// ---- Upsample (deprecated) ---------------------------------------------------------
class Upsample final : public OpKernel {
 public:
  explicit Upsample(const KernelInfo& info) : opset_(info.opset()) {
    spec_.mode = ParseInterp(info, info.attr_string("mode", "nearest"));
    spec_.coord = CoordMode::kAsymmetric;
    spec_.nearest = NearestMode::kSimple;
    if (opset_ < 7) {
      height_scale_ = info.attr_float("height_scale", 1.0f);
      width_scale_ = info.attr_float("width_scale", 1.0f);
    } else if (opset_ < 9) {
      scales_attr_ = info.attr_floats("scales");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t r = x.rank();
    std::vector<double> scales;
    if (opset_ < 7) {
      if (r != 4) ctx.Fail("Upsample-1 expects a 4-D input");
      scales = {1.0, 1.0, height_scale_, width_scale_};
    } else if (opset_ < 9) {
      scales.assign(scales_attr_.begin(), scales_attr_.end());
    } else {
      const Tensor& st = ctx.input(1);
      for (int64_t i = 0; i < st.numel(); ++i) scales.push_back(st.GetAsDouble(i));
    }
    if (static_cast<int64_t>(scales.size()) != r) ctx.Fail("scales has ", scales.size(), " values, input rank is ", r);
    Shape os = x.shape();
    std::vector<AxisPlan> plans(static_cast<size_t>(r));
    for (int64_t d = 0; d < r; ++d) {
      double s = scales[static_cast<size_t>(d)];
      if (!(s > 0)) ctx.Fail("scales must be positive");
      double of = static_cast<double>(x.dim(d)) * s;
      if (of > 1e12) ctx.Fail("scale ", s, " gives an unreasonable output size");
      os[static_cast<size_t>(d)] = static_cast<int64_t>(std::floor(of));
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    if (y.numel() == 0) return;
    if (x.numel() == 0) ctx.Fail("cannot upsample an empty input to a non-empty output");
    for (int64_t d = 0; d < r; ++d) {
      size_t a = static_cast<size_t>(d);
      plans[a] = PlanAxis(spec_, x.dim(d), os[a], scales[a], static_cast<double>(os[a]), 0, 1);
    }
    Resample(x, y, plans, 0.0, ctx);
  }

 private:
  int64_t opset_;
  ResizeSpec spec_;
  float height_scale_ = 1, width_scale_ = 1;
  std::vector<float> scales_attr_;
};

}  // namespace

std::vector<KernelRow> ResizeKernels() {
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  return {
      {"ai.onnx", "Resize", 10, 10, ResizeTypes(), Make<Resize>()},
      {"ai.onnx", "Resize", 11, 12, ResizeTypes(), Make<Resize>()},
      {"ai.onnx", "Resize", 13, 17, ResizeTypes(), Make<Resize>()},
      {"ai.onnx", "Resize", 18, 18, ResizeTypes(), Make<Resize>()},
      {"ai.onnx", "Resize", 19, kMaxOnnxOpset, ResizeTypes(), Make<Resize>()},
      {"ai.onnx", "Upsample", 1, 6, f3, Make<Upsample>()},
      {"ai.onnx", "Upsample", 7, 8, ResizeTypes(), Make<Upsample>()},
      {"ai.onnx", "Upsample", 9, kMaxOnnxOpset, ResizeTypes(), Make<Upsample>()},
  };
}

}  // namespace tessera::cpu
