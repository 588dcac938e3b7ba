// com.microsoft QLinearSoftmax: y = quantize(Softmax(dequantize(x))) for
// 8-bit x and y with per-tensor scales and zero points. The `opset`
// attribute names the ONNX Softmax it follows: before 13 the axes from
// `axis` on are one row (the input coerced to 2-D), from 13 only `axis`.
// Differences x - max are whole quantization steps, so each row's
// exponentials come from a 256-entry table of e^(-d * x_scale), d the
// steps below the row's maximum; the sum and the division are in float.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

class QLinearSoftmax final : public OpKernel {
 public:
  explicit QLinearSoftmax(const KernelInfo& info)
      : axis_(info.attr_int("axis", -1)), opset_(info.attr_int("opset")) {
    if (opset_ < 1) info.Fail("opset must be an ONNX opset (>= 1), got ", opset_);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const DataType dt = x.dtype();
    if (dt != DataType::kUInt8 && dt != DataType::kInt8) ctx.Fail("X must be uint8 or int8, got ", x.Describe());
    const float xs = Scalar(ctx, 1, "X_scale");
    const float ys = Scalar(ctx, 3, "y_scale");
    const int zx = ZeroPoint(ctx, 2, dt, "x_zero_point");
    const int zy = ZeroPoint(ctx, 4, dt, "y_zero_point");
    (void)zx;  // x - max is independent of x's zero point
    if (!(ys > 0.f) || !(xs > 0.f)) ctx.Fail("X_scale and y_scale must be positive, got ", xs, " and ", ys);
    Tensor& y = ctx.allocate_output(0, dt, x.shape());
    if (x.numel() == 0) return;
    const int64_t r = x.rank();
    const int64_t axis = r == 0 ? 0 : NormalizeAxis(axis_, r, ctx);
    // (outer, n, inner): softmax over n values at stride inner.
    int64_t n, inner;
    if (opset_ < 13) {
      n = SizeFromDim(x.shape(), static_cast<size_t>(axis));
      inner = 1;
    } else {
      n = r == 0 ? 1 : x.shape()[static_cast<size_t>(axis)];
      inner = r == 0 ? 1 : SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    }
    const int64_t outer = x.numel() / (n * inner);
    float table[256];
    for (int d = 0; d < 256; ++d) table[d] = std::exp(-static_cast<float>(d) * xs);
    const int lo = dt == DataType::kInt8 ? -128 : 0, hi = dt == DataType::kInt8 ? 127 : 255;
    auto run = [&]<typename T>() {
      const T* xp = x.data<T>();
      T* yp = y.data<T>();
      ParallelFor(ctx.thread_pool(), outer * inner, std::max<int64_t>(1, 4096 / n), [&](int64_t g0, int64_t g1) {
        for (int64_t g = g0; g < g1; ++g) {
          const int64_t base = (g / inner) * n * inner + g % inner;
          int mx = lo;
          for (int64_t j = 0; j < n; ++j) mx = std::max<int>(mx, xp[base + j * inner]);
          float sum = 0;
          for (int64_t j = 0; j < n; ++j) sum += table[mx - xp[base + j * inner]];
          const float k = 1.0f / (sum * ys);
          for (int64_t j = 0; j < n; ++j) {
            const float v = std::nearbyint(table[mx - xp[base + j * inner]] * k) + static_cast<float>(zy);
            yp[base + j * inner] = static_cast<T>(std::clamp(v, static_cast<float>(lo), static_cast<float>(hi)));
          }
        }
      });
    };
    if (dt == DataType::kInt8) run.template operator()<int8_t>();
    else run.template operator()<uint8_t>();
  }

 private:
  static float Scalar(const KernelContext& ctx, size_t i, const char* what) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != DataType::kFloat || t.numel() != 1) ctx.Fail(what, " must be one float, got ", t.Describe());
    return t.data<float>()[0];
  }
  static int ZeroPoint(const KernelContext& ctx, size_t i, DataType dt, const char* what) {
    if (!ctx.has_input(i)) return 0;
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dt || t.numel() != 1) ctx.Fail(what, " must be one value of X's type, got ", t.Describe());
    return dt == DataType::kInt8 ? int{t.data<int8_t>()[0]} : int{t.data<uint8_t>()[0]};
  }

  int64_t axis_, opset_;
};

}  // namespace

std::vector<KernelRow> QLinearSoftmaxKernels() {
  return {{kMicrosoftDomain, "QLinearSoftmax", 1, 1, {DataType::kInt8, DataType::kUInt8}, Make<QLinearSoftmax>()}};
}

}  // namespace tessera::cpu
