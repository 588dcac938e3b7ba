// Resampling kernels: Resize, Upsample, GridSample, AffineGrid, RoiAlign,
// Col2Im and NonMaxSuppression.
//
// Resize/Upsample are separable: for every axis we precompute, per output
// index, a fixed number of taps (input index, weight) plus an "extrapolate"
// flag; an output value is the sum over the cartesian product of its per-axis
// taps.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"

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
enum class InterpMode { kNearest, kLinear, kCubic };

struct ResizeSpec {
  InterpMode mode = InterpMode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
};

double CubicWeight(double x, double a) {
  x = std::abs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

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

// ---- GridSample ------------------------------------------------------------------------
enum class PadMode { kZeros, kBorder, kReflection };

double Reflect(double x, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return lo;
  if (x < lo) {
    double dx = lo - x;
    double n = std::floor(dx / rng);
    double rem = dx - n * rng;
    return static_cast<int64_t>(n) % 2 == 0 ? lo + rem : hi - rem;
  }
  if (x > hi) {
    double dx = x - hi;
    double n = std::floor(dx / rng);
    double rem = dx - n * rng;
    return static_cast<int64_t>(n) % 2 == 0 ? hi - rem : lo + rem;
  }
  return x;
}

class GridSample final : public OpKernel {
 public:
  explicit GridSample(const KernelInfo& info) : opset_(info.opset()) {
    std::string m = info.attr_string("mode", opset_ >= 20 ? "linear" : "bilinear");
    if (m == "bilinear" || m == "linear") mode_ = InterpMode::kLinear;
    else if (m == "nearest") mode_ = InterpMode::kNearest;
    else if (m == "bicubic" || m == "cubic") mode_ = InterpMode::kCubic;
    else info.Fail("unsupported mode '", m, "'");
    std::string p = info.attr_string("padding_mode", "zeros");
    if (p == "zeros") pad_ = PadMode::kZeros;
    else if (p == "border") pad_ = PadMode::kBorder;
    else if (p == "reflection") pad_ = PadMode::kReflection;
    else info.Fail("unsupported padding_mode '", p, "'");
    align_ = info.attr_int("align_corners", 0) != 0;
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    int64_t r = x.rank() - 2;
    if (r < 1) ctx.Fail("X must have rank >= 3, got ", ShapeToString(x.shape()));
    if (opset_ < 20 && r != 2) ctx.Fail("GridSample-16 supports 4-D input only");
    if (grid.rank() != r + 2 || grid.dim(0) != x.dim(0) || grid.dim(r + 1) != r)
      ctx.Fail("grid of shape ", ShapeToString(grid.shape()), " does not match X of shape ", ShapeToString(x.shape()));
    int64_t N = x.dim(0), C = x.dim(1);
    Shape in_sp(x.shape().begin() + 2, x.shape().end());
    Shape out_sp(grid.shape().begin() + 1, grid.shape().end() - 1);
    Shape os = {N, C};
    os.insert(os.end(), out_sp.begin(), out_sp.end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    int64_t in_plane = SizeFromDim(in_sp, 0), out_plane = SizeFromDim(out_sp, 0);
    if (y.numel() == 0) return;
    if (in_plane == 0) ctx.Fail("cannot sample from X of shape ", ShapeToString(x.shape()), " with an empty spatial extent");
    std::vector<int64_t> istr = StridesOf(in_sp);
    std::vector<double> grid_vals(static_cast<size_t>(grid.numel()));
    DispatchFloat(grid.dtype(), ctx, [&]<typename G>() {
      const G* gd = grid.data<G>();
      for (int64_t i = 0; i < grid.numel(); ++i) grid_vals[static_cast<size_t>(i)] = static_cast<double>(Load(gd[i]));
    });
    size_t taps = mode_ == InterpMode::kNearest ? 1 : mode_ == InterpMode::kLinear ? 2 : 4;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), N * out_plane, 64, [&](int64_t lo, int64_t hi) {
        // Per dim: taps of (index or -1 for zero padding, weight).
        std::vector<int64_t> tidx(static_cast<size_t>(r) * taps);
        std::vector<double> tw(static_cast<size_t>(r) * taps);
        std::vector<size_t> pos(static_cast<size_t>(r));
        std::vector<int64_t> combo_off;
        std::vector<double> combo_w;
        for (int64_t q = lo; q < hi; ++q) {
          int64_t n = q / out_plane, o = q % out_plane;
          const double* g = &grid_vals[static_cast<size_t>(q * r)];
          for (int64_t d = 0; d < r; ++d) {
            int64_t dim = in_sp[static_cast<size_t>(d)];
            double gv = g[r - 1 - d];  // grid's last axis is ordered (x, y, z...) = reversed dims
            double lo_b = align_ ? 0.0 : -0.5, hi_b = align_ ? static_cast<double>(dim - 1) : static_cast<double>(dim) - 0.5;
            double c = align_ ? (gv + 1) / 2 * static_cast<double>(dim - 1) : ((gv + 1) * static_cast<double>(dim) - 1) / 2;
            if (pad_ == PadMode::kBorder) c = std::clamp(c, 0.0, static_cast<double>(dim - 1));
            else if (pad_ == PadMode::kReflection) c = Reflect(c, lo_b, hi_b);
            // Far outside points only ever touch padding; keep the integer casts defined.
            if (std::isfinite(c)) c = std::clamp(c, -static_cast<double>(dim) - 8.0, static_cast<double>(dim) + 8.0);
            auto fix = [&](int64_t i) -> int64_t {
              if (i >= 0 && i < dim) return i;
              if (pad_ == PadMode::kZeros) return -1;
              if (pad_ == PadMode::kBorder) return std::clamp<int64_t>(i, 0, dim - 1);
              double rv = Reflect(static_cast<double>(i), lo_b, hi_b);
              return std::clamp<int64_t>(static_cast<int64_t>(rv), 0, dim - 1);
            };
            size_t b = static_cast<size_t>(d) * taps;
            if (!std::isfinite(c)) {
              for (size_t t = 0; t < taps; ++t) {
                tidx[b + t] = -1;
                tw[b + t] = 0;
              }
              continue;
            }
            if (mode_ == InterpMode::kNearest) {
              tidx[b] = fix(static_cast<int64_t>(std::nearbyint(c)));
              tw[b] = 1;
            } else if (mode_ == InterpMode::kLinear) {
              double f = std::floor(c);
              double t = c - f;
              int64_t i0 = static_cast<int64_t>(f);
              tidx[b] = fix(i0);
              tw[b] = 1 - t;
              tidx[b + 1] = fix(i0 + 1);
              tw[b + 1] = t;
            } else {
              double f = std::floor(c);
              double t = c - f;
              int64_t i0 = static_cast<int64_t>(f) - 1;
              for (size_t k = 0; k < 4; ++k) {
                tidx[b + k] = fix(i0 + static_cast<int64_t>(k));
                tw[b + k] = CubicWeight(static_cast<double>(k) - 1 - t, -0.75);
              }
            }
          }
          // Combine the per-dim taps once per point, then apply to every channel.
          combo_off.clear();
          combo_w.clear();
          std::fill(pos.begin(), pos.end(), 0);
          while (true) {
            double w = 1;
            int64_t off = 0;
            bool zero = false;
            for (int64_t d = 0; d < r; ++d) {
              size_t k = static_cast<size_t>(d) * taps + pos[static_cast<size_t>(d)];
              if (tidx[k] < 0) {
                zero = true;
                break;
              }
              w *= tw[k];
              off += tidx[k] * istr[static_cast<size_t>(d)];
            }
            if (!zero && w != 0) {
              combo_off.push_back(off);
              combo_w.push_back(w);
            }
            int64_t d = r - 1;
            while (d >= 0) {
              if (++pos[static_cast<size_t>(d)] < taps) break;
              pos[static_cast<size_t>(d)] = 0;
              --d;
            }
            if (d < 0) break;
          }
          size_t nc = combo_off.size();
          for (int64_t c = 0; c < C; ++c) {
            const T* xp = xd + (n * C + c) * in_plane;
            double acc = 0;
            for (size_t i = 0; i < nc; ++i) acc += combo_w[i] * static_cast<double>(Load(xp[combo_off[i]]));
            yd[(n * C + c) * out_plane + o] = StoreAs<T>(static_cast<CT>(acc));
          }
        }
      });
    });
  }

 private:
  int64_t opset_;
  InterpMode mode_ = InterpMode::kLinear;
  PadMode pad_ = PadMode::kZeros;
  bool align_ = false;
};

// ---- AffineGrid ----------------------------------------------------------------------------
class AffineGrid final : public OpKernel {
 public:
  explicit AffineGrid(const KernelInfo& info) { align_ = info.attr_int("align_corners", 0) != 0; }

  void Compute(KernelContext& ctx) const override {
    const Tensor& theta = ctx.input(0);
    std::vector<int64_t> size = ReadInts(ctx.input(1));
    if (size.size() != 4 && size.size() != 5) ctx.Fail("size must have 4 or 5 elements, got ", size.size());
    int64_t r = static_cast<int64_t>(size.size()) - 2;  // 2 or 3 spatial dims
    int64_t N = size[0];
    if (theta.rank() != 3 || theta.dim(0) != N || theta.dim(1) != r || theta.dim(2) != r + 1)
      ctx.Fail("theta of shape ", ShapeToString(theta.shape()), " does not match size (expected [", N, ",", r, ",",
               r + 1, "])");
    for (int64_t v : size)
      if (v < 0) ctx.Fail("size values must be non-negative");
    Shape sp(size.begin() + 2, size.end());
    Shape os = {N};
    os.insert(os.end(), sp.begin(), sp.end());
    os.push_back(r);
    Tensor& y = ctx.allocate_output(0, theta.dtype(), os);
    auto base = [&](int64_t i, int64_t n) -> double {
      if (align_) return n <= 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
      return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
    };
    int64_t pts = SizeFromDim(sp, 0);
    DispatchFloat(theta.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* th = theta.data<T>();
      T* yd = y.data<T>();
      std::vector<int64_t> idx(static_cast<size_t>(r));
      for (int64_t n = 0; n < N; ++n) {
        const T* t = th + n * r * (r + 1);
        std::fill(idx.begin(), idx.end(), 0);
        for (int64_t p = 0; p < pts; ++p) {
          // Homogeneous point (x, y[, z], 1): x along the last spatial dim.
          double v[4];
          for (int64_t k = 0; k < r; ++k)
            v[k] = base(idx[static_cast<size_t>(r - 1 - k)], sp[static_cast<size_t>(r - 1 - k)]);
          v[r] = 1.0;
          for (int64_t i = 0; i < r; ++i) {
            double s = 0;
            for (int64_t j = 0; j <= r; ++j) s += static_cast<double>(Load(t[i * (r + 1) + j])) * v[j];
            yd[(n * pts + p) * r + i] = StoreAs<T>(static_cast<CT>(s));
          }
          for (int64_t d = r; d-- > 0;) {
            if (++idx[static_cast<size_t>(d)] < sp[static_cast<size_t>(d)]) break;
            idx[static_cast<size_t>(d)] = 0;
          }
        }
      }
    });
  }

 private:
  bool align_ = false;
};

// ---- RoiAlign ------------------------------------------------------------------------------
class RoiAlign final : public OpKernel {
 public:
  explicit RoiAlign(const KernelInfo& info) {
    std::string m = info.attr_string("mode", "avg");
    if (m == "avg") max_ = false;
    else if (m == "max") max_ = true;
    else info.Fail("unsupported mode '", m, "'");
    oh_ = info.attr_int("output_height", 1);
    ow_ = info.attr_int("output_width", 1);
    sampling_ = info.attr_int("sampling_ratio", 0);
    scale_ = info.attr_float("spatial_scale", 1.0f);
    if (oh_ <= 0 || ow_ <= 0) info.Fail("output_height and output_width must be positive");
    if (sampling_ < 0) info.Fail("sampling_ratio must be non-negative");
    if (info.opset() >= 16) {
      std::string c = info.attr_string("coordinate_transformation_mode", "half_pixel");
      if (c == "half_pixel") half_pixel_ = true;
      else if (c == "output_half_pixel") half_pixel_ = false;
      else info.Fail("unsupported coordinate_transformation_mode '", c, "'");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    const Tensor& bi = ctx.input(2);
    if (x.rank() != 4) ctx.Fail("X must be 4-D, got ", ShapeToString(x.shape()));
    if (rois.rank() != 2 || rois.dim(1) != 4) ctx.Fail("rois must have shape [num_rois, 4], got ", ShapeToString(rois.shape()));
    if (bi.rank() != 1 || bi.dim(0) != rois.dim(0)) ctx.Fail("batch_indices must have shape [num_rois]");
    int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), {R, C, oh_, ow_});
    if (y.numel() > 0 && (H == 0 || W == 0)) ctx.Fail("X has an empty spatial extent ", ShapeToString(x.shape()));
    std::vector<int64_t> batch = ReadInts(bi);
    for (int64_t b : batch)
      if (b < 0 || b >= N) ctx.Fail("batch index ", b, " is out of range [0, ", N, ")");
    std::vector<double> rv(static_cast<size_t>(rois.numel()));
    for (int64_t i = 0; i < rois.numel(); ++i) {
      rv[static_cast<size_t>(i)] = rois.GetAsDouble(i);
      if (!std::isfinite(rv[static_cast<size_t>(i)]) || std::abs(rv[static_cast<size_t>(i)]) > 1e9)
        ctx.Fail("roi coordinate ", rv[static_cast<size_t>(i)], " is not a finite value of reasonable size");
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), R, 1, [&](int64_t lo, int64_t hi) {
        struct Sample { int64_t o1, o2, o3, o4; double w1, w2, w3, w4; };
        std::vector<Sample> samples;
        for (int64_t ri = lo; ri < hi; ++ri) {
          const double* roi = &rv[static_cast<size_t>(ri * 4)];
          double off = half_pixel_ ? 0.5 : 0.0;
          double x1 = roi[0] * scale_ - off, y1 = roi[1] * scale_ - off;
          double x2 = roi[2] * scale_ - off, y2 = roi[3] * scale_ - off;
          double rw = x2 - x1, rh = y2 - y1;
          if (!half_pixel_) {
            rw = std::max(rw, 1.0);
            rh = std::max(rh, 1.0);
          }
          double bh = rh / static_cast<double>(oh_), bw = rw / static_cast<double>(ow_);
          int64_t gh = sampling_ > 0 ? sampling_ : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh_)));
          int64_t gw = sampling_ > 0 ? sampling_ : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow_)));
          gh = std::max<int64_t>(gh, 0);
          gw = std::max<int64_t>(gw, 0);
          if (gh * gw > (int64_t{1} << 24)) ctx.Fail("roi ", ri, " needs too many sampling points");
          double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
          for (int64_t ph = 0; ph < oh_; ++ph)
            for (int64_t pw = 0; pw < ow_; ++pw) {
              samples.clear();
              for (int64_t iy = 0; iy < gh; ++iy) {
                double yy = y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
                for (int64_t ix = 0; ix < gw; ++ix) {
                  double xx = x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
                  if (yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W)) {
                    samples.push_back({0, 0, 0, 0, 0, 0, 0, 0});
                    continue;
                  }
                  double sy = std::max(yy, 0.0), sx = std::max(xx, 0.0);
                  int64_t yl = static_cast<int64_t>(sy), xl = static_cast<int64_t>(sx), yh, xh;
                  if (yl >= H - 1) {
                    yh = yl = H - 1;
                    sy = static_cast<double>(yl);
                  } else {
                    yh = yl + 1;
                  }
                  if (xl >= W - 1) {
                    xh = xl = W - 1;
                    sx = static_cast<double>(xl);
                  } else {
                    xh = xl + 1;
                  }
                  double ly = sy - static_cast<double>(yl), lx = sx - static_cast<double>(xl);
                  double hy = 1 - ly, hx = 1 - lx;
                  samples.push_back({yl * W + xl, yl * W + xh, yh * W + xl, yh * W + xh, hy * hx, hy * lx, ly * hx, ly * lx});
                }
              }
              for (int64_t c = 0; c < C; ++c) {
                const T* xp = xd + (batch[static_cast<size_t>(ri)] * C + c) * H * W;
                double acc = 0;
                bool first = true;
                for (const Sample& s : samples) {
                  double v1 = static_cast<double>(Load(xp[s.o1])), v2 = static_cast<double>(Load(xp[s.o2]));
                  double v3 = static_cast<double>(Load(xp[s.o3])), v4 = static_cast<double>(Load(xp[s.o4]));
                  if (max_) {
                    double m = std::max(std::max(s.w1 * v1, s.w2 * v2), std::max(s.w3 * v3, s.w4 * v4));
                    acc = first ? m : std::max(acc, m);
                    first = false;
                  } else {
                    acc += s.w1 * v1 + s.w2 * v2 + s.w3 * v3 + s.w4 * v4;
                  }
                }
                if (!max_) acc /= count;
                yd[((ri * C + c) * oh_ + ph) * ow_ + pw] = StoreAs<T>(static_cast<CT>(acc));
              }
            }
        }
      });
    });
  }

 private:
  bool max_ = false;
  int64_t oh_ = 1, ow_ = 1, sampling_ = 0;
  float scale_ = 1.0f;
  bool half_pixel_ = false;  // opset 10 behaves as output_half_pixel
};

// ---- Col2Im --------------------------------------------------------------------------------
class Col2Im final : public OpKernel {
 public:
  explicit Col2Im(const KernelInfo& info) {
    dilations_ = info.attr_ints("dilations", {});
    pads_ = info.attr_ints("pads", {});
    strides_ = info.attr_ints("strides", {});
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> img = ReadInts(ctx.input(1));
    std::vector<int64_t> blk = ReadInts(ctx.input(2));
    size_t r = img.size();
    if (r == 0 || blk.size() != r) ctx.Fail("image_shape and block_shape must have the same non-zero length");
    std::vector<int64_t> dil = dilations_.empty() ? std::vector<int64_t>(r, 1) : dilations_;
    std::vector<int64_t> str = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    if (dil.size() != r || str.size() != r || pads.size() != 2 * r) ctx.Fail("dilations/strides/pads do not match rank ", r);
    if (x.rank() != 3) ctx.Fail("input must be 3-D [N, C*prod(block_shape), L], got ", ShapeToString(x.shape()));
    int64_t kprod = 1;
    for (size_t d = 0; d < r; ++d) {
      if (blk[d] <= 0 || img[d] < 0 || dil[d] <= 0 || str[d] <= 0 || pads[d] < 0 || pads[d + r] < 0)
        ctx.Fail("invalid block_shape/image_shape/dilations/strides/pads");
      kprod *= blk[d];
    }
    int64_t N = x.dim(0);
    if (x.dim(1) % kprod != 0) ctx.Fail("input dim 1 (", x.dim(1), ") is not divisible by prod(block_shape) = ", kprod);
    int64_t C = x.dim(1) / kprod;
    std::vector<int64_t> nb(r);
    int64_t L = 1;
    for (size_t d = 0; d < r; ++d) {
      int64_t ek = (blk[d] - 1) * dil[d] + 1;
      int64_t span = img[d] + pads[d] + pads[d + r] - ek;
      nb[d] = span < 0 ? 0 : span / str[d] + 1;
      L *= nb[d];
    }
    if (x.dim(2) != L) ctx.Fail("input dim 2 (", x.dim(2), ") does not match the number of blocks ", L);
    Shape os = {N, C};
    os.insert(os.end(), img.begin(), img.end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    int64_t plane = SizeFromDim(os, 2);
    std::vector<int64_t> istr = StridesOf(Shape(img.begin(), img.end()));
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), N * C, 1, [&](int64_t lo, int64_t hi) {
        std::vector<CT> acc(static_cast<size_t>(plane));
        std::vector<int64_t> kidx(r), bidx(r);
        for (int64_t p = lo; p < hi; ++p) {
          std::fill(acc.begin(), acc.end(), CT(0));
          const T* xp = xd + p * kprod * L;
          std::fill(kidx.begin(), kidx.end(), 0);
          for (int64_t k = 0; k < kprod; ++k) {
            std::fill(bidx.begin(), bidx.end(), 0);
            for (int64_t l = 0; l < L; ++l) {
              int64_t off = 0;
              bool inside = true;
              for (size_t d = 0; d < r; ++d) {
                int64_t c = bidx[d] * str[d] - pads[d] + kidx[d] * dil[d];
                if (c < 0 || c >= img[d]) {
                  inside = false;
                  break;
                }
                off += c * istr[d];
              }
              if (inside) acc[static_cast<size_t>(off)] += Load(xp[k * L + l]);
              for (size_t d = r; d-- > 0;) {
                if (++bidx[d] < nb[d]) break;
                bidx[d] = 0;
              }
            }
            for (size_t d = r; d-- > 0;) {
              if (++kidx[d] < blk[d]) break;
              kidx[d] = 0;
            }
          }
          T* yp = yd + p * plane;
          for (int64_t i = 0; i < plane; ++i) yp[i] = StoreAs<T>(acc[static_cast<size_t>(i)]);
        }
      });
    });
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

// ---- NonMaxSuppression --------------------------------------------------------------------
class NonMaxSuppression final : public OpKernel {
 public:
  explicit NonMaxSuppression(const KernelInfo& info) {
    center_ = info.attr_int("center_point_box", 0);
    if (center_ != 0 && center_ != 1) info.Fail("center_point_box must be 0 or 1");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.rank() != 3 || boxes.dim(2) != 4) ctx.Fail("boxes must have shape [batch, spatial, 4], got ", ShapeToString(boxes.shape()));
    if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
      ctx.Fail("scores of shape ", ShapeToString(scores.shape()), " do not match boxes of shape ", ShapeToString(boxes.shape()));
    int64_t max_out = 0;
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) max_out = ctx.input(2).GetAsInt64(0);
    double iou_th = 0;
    if (ctx.has_input(3) && ctx.input(3).numel() > 0) iou_th = ctx.input(3).GetAsDouble(0);
    bool has_score_th = ctx.has_input(4) && ctx.input(4).numel() > 0;
    double score_th = has_score_th ? ctx.input(4).GetAsDouble(0) : 0;
    if (iou_th < 0 || iou_th > 1) ctx.Fail("iou_threshold must be in [0, 1], got ", iou_th);
    int64_t B = boxes.dim(0), S = boxes.dim(1), C = scores.dim(1);
    std::vector<int64_t> sel;
    if (max_out > 0) {
      std::vector<double> bx(static_cast<size_t>(boxes.numel())), sc(static_cast<size_t>(scores.numel()));
      for (int64_t i = 0; i < boxes.numel(); ++i) bx[static_cast<size_t>(i)] = boxes.GetAsDouble(i);
      for (int64_t i = 0; i < scores.numel(); ++i) sc[static_cast<size_t>(i)] = scores.GetAsDouble(i);
      // Normalized corners (y1, x1, y2, x2) with y1 <= y2, x1 <= x2.
      std::vector<double> cn(bx.size());
      for (int64_t i = 0; i < B * S; ++i) {
        const double* b = &bx[static_cast<size_t>(i * 4)];
        double* o = &cn[static_cast<size_t>(i * 4)];
        if (center_) {
          double xc = b[0], yc = b[1], w = b[2], h = b[3];
          o[0] = yc - h / 2;
          o[1] = xc - w / 2;
          o[2] = yc + h / 2;
          o[3] = xc + w / 2;
        } else {
          o[0] = std::min(b[0], b[2]);
          o[1] = std::min(b[1], b[3]);
          o[2] = std::max(b[0], b[2]);
          o[3] = std::max(b[1], b[3]);
        }
      }
      auto iou = [&](int64_t i, int64_t j) {
        const double* a = &cn[static_cast<size_t>(i * 4)];
        const double* b = &cn[static_cast<size_t>(j * 4)];
        double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
        double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
        if (ih <= 0 || iw <= 0) return 0.0;
        double inter = ih * iw;
        double aa = (a[2] - a[0]) * (a[3] - a[1]), ab = (b[2] - b[0]) * (b[3] - b[1]);
        double uni = aa + ab - inter;
        if (aa <= 0 || ab <= 0 || uni <= 0) return 0.0;
        return inter / uni;
      };
      std::vector<int64_t> cand, kept;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c) {
          const double* s = &sc[static_cast<size_t>((b * C + c) * S)];
          cand.clear();
          for (int64_t i = 0; i < S; ++i)
            if (!has_score_th || s[i] > score_th) cand.push_back(i);
          std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t bb) { return s[a] > s[bb]; });
          kept.clear();
          for (int64_t i : cand) {
            if (static_cast<int64_t>(kept.size()) >= max_out) break;
            bool ok = true;
            for (int64_t k : kept)
              if (iou(b * S + i, b * S + k) > iou_th) {
                ok = false;
                break;
              }
            if (ok) {
              kept.push_back(i);
              sel.push_back(b);
              sel.push_back(c);
              sel.push_back(i);
            }
          }
        }
    }
    int64_t n = static_cast<int64_t>(sel.size() / 3);
    Tensor& y = ctx.allocate_output(0, DataType::kInt64, {n, 3});
    if (!sel.empty()) std::memcpy(y.raw_data(), sel.data(), sel.size() * sizeof(int64_t));
  }

 private:
  int64_t center_ = 0;
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
      {"ai.onnx", "GridSample", 16, 19, types::Floats(), Make<GridSample>()},
      {"ai.onnx", "GridSample", 20, kMaxOnnxOpset, types::Floats(), Make<GridSample>()},
      // ONNX Runtime's com.microsoft form: opset 16's mode names (bilinear, bicubic).
      {kMicrosoftDomain, "GridSample", 1, 1, types::Floats(),
       [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
         return std::make_unique<GridSample>(KernelInfo(info.node(), 16, info.owner_graph()));
       }},
      {"ai.onnx", "AffineGrid", 20, kMaxOnnxOpset, types::Floats(), Make<AffineGrid>()},
      {"ai.onnx", "RoiAlign", 10, 15, f3, Make<RoiAlign>()},
      {"ai.onnx", "RoiAlign", 16, kMaxOnnxOpset, types::Floats(), Make<RoiAlign>()},
      {"ai.onnx", "Col2Im", 18, kMaxOnnxOpset, types::Numeric(), Make<Col2Im>()},
      {"ai.onnx", "NonMaxSuppression", 10, kMaxOnnxOpset, {DataType::kFloat}, Make<NonMaxSuppression>()},
  };
}

}  // namespace tessera::cpu
