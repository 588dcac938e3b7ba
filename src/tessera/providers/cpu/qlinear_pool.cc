// com.microsoft QLinearGlobalAveragePool and QLinearAveragePool: the window
// sums are exact integers (int64), and each output is requantized once:
// y = saturate(round((sum - count * x_zero) * x_scale / (count * y_scale)) +
// y_zero) in double, rounding half to even, within one output step of
// dequantize -> float AveragePool -> quantize. Both take NCHW, or NHWC with
// channels_last = 1.
#include <algorithm>
#include <cmath>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/pool_geometry.h"
#include "tessera/providers/cpu/qlinear_util.h"

namespace tessera::cpu {
namespace {

// The mean of `count` 8-bit values summing to `sum`, requantized.
inline uint8_t RequantizeMean(int64_t sum, int64_t count, const QuantParams& x, const QuantParams& y, bool is_signed) {
  const double lo = is_signed ? -128.0 : 0.0, hi = is_signed ? 127.0 : 255.0;
  double v = 0.0;
  if (count > 0) {
    v = static_cast<double>(sum - count * x.zero) * (static_cast<double>(x.scale) / (static_cast<double>(y.scale) * count));
    v = std::isnan(v) ? 0.0 : std::clamp(v, -1e9, 1e9);  // a NaN or zero scale, as QuantizeLinear treats it
  }
  const double q = std::clamp(std::nearbyint(v) + y.zero, lo, hi);
  return is_signed ? static_cast<uint8_t>(static_cast<int8_t>(q)) : static_cast<uint8_t>(q);
}

template <typename T>
int64_t SumOf(const T* x, int64_t n) {
  int64_t total = 0;
  // int32 partial sums vectorize; 2^23 bytes cannot overflow one.
  for (int64_t b = 0; b < n; b += int64_t{1} << 23) {
    const int64_t e = std::min(n, b + (int64_t{1} << 23));
    int32_t s = 0;
    for (int64_t i = b; i < e; ++i) s += x[i];
    total += s;
  }
  return total;
}

// The params and checks both pools share: X, x_scale, x_zero_point?,
// y_scale, y_zero_point?.
struct PoolIo {
  DataType type;
  bool is_signed;
  QuantParams x, y;
};

PoolIo ReadPoolIo(const KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  PoolIo io;
  io.type = x.dtype();
  if (!IsQuant8(io.type)) ctx.Fail("X has element type ", DataTypeName(io.type), ", expected int8 or uint8");
  io.is_signed = io.type == DataType::kInt8;
  io.x = ReadQuantParams(ctx, 1, 2, io.type, "x");
  io.y = ReadQuantParams(ctx, 3, 4, io.type, "y");
  return io;
}

bool ChannelsLast(const KernelInfo& info) {
  const int64_t v = info.attr_int("channels_last", 0);
  if (v != 0 && v != 1) info.Fail("channels_last must be 0 or 1, got ", v);
  return v == 1;
}

class QLinearGlobalAveragePool final : public OpKernel {
 public:
  explicit QLinearGlobalAveragePool(const KernelInfo& info) : channels_last_(ChannelsLast(info)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const PoolIo io = ReadPoolIo(ctx);
    if (x.rank() < 3) ctx.Fail("X must have rank 3 or more (N, C and spatial dims), got ", ShapeToString(x.shape()));
    const size_t r = static_cast<size_t>(x.rank());
    const int64_t n = x.dim(0), c = channels_last_ ? x.dim(static_cast<int64_t>(r) - 1) : x.dim(1);
    Shape out_shape(r, 1);
    out_shape[0] = n;
    out_shape[channels_last_ ? r - 1 : 1] = c;
    const int64_t spatial = channels_last_ ? SizeFromDim(x.shape(), 1) / std::max<int64_t>(c, 1) : SizeFromDim(x.shape(), 2);
    Tensor& y = ctx.allocate_output(0, io.type, out_shape);
    if (y.numel() == 0) return;
    auto* yd = static_cast<uint8_t*>(y.raw_data());
    auto run = [&]<typename T>() {
      const T* xd = static_cast<const T*>(x.raw_data());
      if (!channels_last_) {
        ParallelFor(ctx.thread_pool(), n * c, std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(spatial, 1)),
                    [&](int64_t lo, int64_t hi) {
                      for (int64_t p = lo; p < hi; ++p)
                        yd[p] = RequantizeMean(SumOf(xd + p * spatial, spatial), spatial, io.x, io.y, io.is_signed);
                    });
        return;
      }
      // NHWC: each pixel's channels added into per-channel sums at once.
      ParallelFor(ctx.thread_pool(), n, 1, [&](int64_t lo, int64_t hi) {
        std::vector<int64_t> total(static_cast<size_t>(c));
        std::vector<int32_t> part(static_cast<size_t>(c));
        for (int64_t b = lo; b < hi; ++b) {
          std::fill(total.begin(), total.end(), 0);
          const T* xb = xd + b * spatial * c;
          for (int64_t p0 = 0; p0 < spatial; p0 += int64_t{1} << 23) {
            std::fill(part.begin(), part.end(), 0);
            const int64_t p1 = std::min(spatial, p0 + (int64_t{1} << 23));
            for (int64_t p = p0; p < p1; ++p)
              for (int64_t k = 0; k < c; ++k) part[static_cast<size_t>(k)] += xb[p * c + k];
            for (int64_t k = 0; k < c; ++k) total[static_cast<size_t>(k)] += part[static_cast<size_t>(k)];
          }
          for (int64_t k = 0; k < c; ++k)
            yd[b * c + k] = RequantizeMean(total[static_cast<size_t>(k)], spatial, io.x, io.y, io.is_signed);
        }
      });
    };
    if (io.is_signed) run.template operator()<int8_t>();
    else run.template operator()<uint8_t>();
  }

 private:
  bool channels_last_;
};

class QLinearAveragePool final : public OpKernel {
 public:
  explicit QLinearAveragePool(const KernelInfo& info)
      : channels_last_(ChannelsLast(info)), count_include_pad_(info.attr_int("count_include_pad", 0) != 0) {
    attrs_.Parse(info, false, true);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const PoolIo io = ReadPoolIo(ctx);
    const size_t r = static_cast<size_t>(x.rank());
    if (r < 3) ctx.Fail("X must have rank 3 or more (N, C and spatial dims), got ", ShapeToString(x.shape()));
    // The geometry works on NCHW dims; NHWC reads the same windows with
    // strides C times larger.
    Shape nchw = x.shape();
    if (channels_last_) {
      nchw = {x.dim(0), x.dim(static_cast<int64_t>(r) - 1)};
      nchw.insert(nchw.end(), x.shape().begin() + 1, x.shape().end() - 1);
    }
    const PoolGeometry g = MakeGeometry(attrs_, nchw, ctx);
    const int64_t n = nchw[0], c = nchw[1];
    Shape out_shape = OutShape(nchw, g);
    if (channels_last_) {
      Shape nhwc = {n};
      nhwc.insert(nhwc.end(), out_shape.begin() + 2, out_shape.end());
      nhwc.push_back(c);
      out_shape = nhwc;
    }
    Tensor& y = ctx.allocate_output(0, io.type, out_shape);
    if (y.numel() == 0) return;
    const int64_t in_plane = SizeFromDim(nchw, 2), out_plane = SizeFromDim(OutShape(nchw, g), 2);
    std::vector<int64_t> strides = StridesOf(g.in);
    // Per (n, c) plane: where it starts in X and Y, and the step between its
    // consecutive cells there.
    const int64_t step = channels_last_ ? c : 1;
    for (int64_t& s : strides) s *= step;
    auto* yd = static_cast<uint8_t*>(y.raw_data());
    auto run = [&]<typename T>() {
      const T* xd = static_cast<const T*>(x.raw_data());
      ParallelFor(ctx.thread_pool(), n * c, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t p = lo; p < hi; ++p) {
          const int64_t b = p / c, k = p % c;
          const T* xp = channels_last_ ? xd + b * in_plane * c + k : xd + p * in_plane;
          uint8_t* yp = channels_last_ ? yd + b * out_plane * c + k : yd + p * out_plane;
          PoolPlane(g, strides, [&](int64_t o, auto&& visit, int64_t valid, int64_t padc) {
            int64_t sum = 0;
            visit([&](int64_t off) { sum += xp[off]; });
            // Padding cells hold the real value 0, the zero point.
            const int64_t count = count_include_pad_ ? padc : valid;
            sum += (count - valid) * io.x.zero;
            yp[o * step] = RequantizeMean(sum, count, io.x, io.y, io.is_signed);
          });
        }
      });
    };
    if (io.is_signed) run.template operator()<int8_t>();
    else run.template operator()<uint8_t>();
  }

 private:
  bool channels_last_;
  bool count_include_pad_;
  PoolAttrs attrs_;
};

}  // namespace

std::vector<KernelRow> QLinearPoolKernels() {
  const std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {kMicrosoftDomain, "QLinearAveragePool", 1, 1, q8, Make<QLinearAveragePool>()},
      {kMicrosoftDomain, "QLinearGlobalAveragePool", 1, 1, q8, Make<QLinearGlobalAveragePool>()},
  };
}

}  // namespace tessera::cpu
