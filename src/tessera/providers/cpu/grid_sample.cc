// Sampling at given coordinates: GridSample, and AffineGrid (the sampling
// grid of an affine transform, GridSample's usual input).
#include <algorithm>
#include <cmath>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/resample_modes.h"

namespace tessera::cpu {
namespace {

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

}  // namespace

std::vector<KernelRow> GridSampleKernels() {
  return {
      {"ai.onnx", "GridSample", 16, 19, types::Floats(), Make<GridSample>()},
      {"ai.onnx", "GridSample", 20, kMaxOnnxOpset, types::Floats(), Make<GridSample>()},
      // ONNX Runtime's com.microsoft form: opset 16's mode names (bilinear, bicubic).
      {kMicrosoftDomain, "GridSample", 1, 1, types::Floats(),
       [](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
         return std::make_unique<GridSample>(KernelInfo(info.node(), 16, info.owner_graph()));
       }},
      {"ai.onnx", "AffineGrid", 20, kMaxOnnxOpset, types::Floats(), Make<AffineGrid>()},
  };
}

}  // namespace tessera::cpu
