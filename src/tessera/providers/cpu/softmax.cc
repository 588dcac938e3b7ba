// Softmax, LogSoftmax and Hardmax.
//
// Before opset 13 the input is coerced to 2-D at `axis` (default 1) and the op
// works on each row of that matrix; from 13 it works along one axis (default
// -1). Both cases map onto an (outer, n, inner) view: legacy is inner == 1.
#include <cmath>
#include <limits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

enum class SoftmaxKind { kSoftmax, kLogSoftmax, kHardmax };

// Lanes along the softmax axis: n elements spaced `stride` apart.
struct Lanes {
  int64_t outer = 1, n = 1, inner = 1;
};

template <SoftmaxKind kKind>
class SoftmaxOp final : public OpKernel {
 public:
  explicit SoftmaxOp(const KernelInfo& info) {
    legacy_ = info.opset() < 13;
    axis_ = info.attr_int("axis", legacy_ ? 1 : -1);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Shape& shape = x.shape();
    int64_t rank = x.rank();
    Lanes l;
    if (legacy_) {
      // Coerce to 2-D [prod(dims[:axis]), prod(dims[axis:])]; axis == rank is allowed.
      if (axis_ < -rank || axis_ > rank) ctx.Fail("axis ", axis_, " is out of range for rank ", rank);
      int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
      l.outer = SizeToDim(shape, static_cast<size_t>(axis));
      l.n = SizeFromDim(shape, static_cast<size_t>(axis));
      l.inner = 1;
    } else {
      if (rank == 0) ctx.Fail("input must have rank >= 1");
      int64_t axis = NormalizeAxis(axis_, rank, ctx);
      l.outer = SizeToDim(shape, static_cast<size_t>(axis));
      l.n = shape[static_cast<size_t>(axis)];
      l.inner = SizeFromDim(shape, static_cast<size_t>(axis) + 1);
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    if (x.numel() == 0) return;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() { Run<T>(x.data<T>(), y.data<T>(), l, ctx.thread_pool()); });
  }

 private:
  template <typename T>
  static void Run(const T* x, T* y, const Lanes& l, ThreadPool* pool) {
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    int64_t n = l.n, inner = l.inner;
    if (inner == 1) {
      int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1));
      ParallelFor(pool, l.outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) Row<T, C>(x + o * n, y + o * n, n);
      });
      return;
    }
    // Strided lanes: process a whole [n, inner] block at once so memory is
    // walked contiguously; per-lane state lives in small vectors.
    int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n * inner, 1));
    ParallelFor(pool, l.outer, grain, [&](int64_t b, int64_t e) {
      std::vector<C> mx(static_cast<size_t>(inner)), sum(static_cast<size_t>(inner));
      std::vector<int64_t> arg(static_cast<size_t>(inner));
      for (int64_t o = b; o < e; ++o) {
        const T* xb = x + o * n * inner;
        T* yb = y + o * n * inner;
        for (int64_t j = 0; j < inner; ++j) {
          mx[j] = Load(xb[j]);
          arg[j] = 0;
        }
        for (int64_t i = 1; i < n; ++i) {
          const T* xr = xb + i * inner;
          for (int64_t j = 0; j < inner; ++j) {
            C v = Load(xr[j]);
            if (v > mx[j] || (std::isnan(v) && !std::isnan(mx[j]))) {
              mx[j] = v;
              arg[j] = i;
            }
          }
        }
        if constexpr (kKind == SoftmaxKind::kHardmax) {
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < inner; ++j) yb[i * inner + j] = StoreAs<T>(C(arg[j] == i ? 1 : 0));
        } else {
          for (int64_t j = 0; j < inner; ++j) sum[j] = 0;
          for (int64_t i = 0; i < n; ++i) {
            const T* xr = xb + i * inner;
            T* yr = yb + i * inner;
            for (int64_t j = 0; j < inner; ++j) {
              C ex = std::exp(Load(xr[j]) - mx[j]);
              sum[j] += ex;
              if constexpr (kKind == SoftmaxKind::kSoftmax) yr[j] = StoreAs<T>(ex);
            }
          }
          for (int64_t i = 0; i < n; ++i) {
            const T* xr = xb + i * inner;
            T* yr = yb + i * inner;
            for (int64_t j = 0; j < inner; ++j) {
              if constexpr (kKind == SoftmaxKind::kSoftmax) {
                // Recompute rather than reading back the rounded 16-bit value.
                C ex = std::is_same_v<T, C> ? C(Load(yr[j])) : std::exp(Load(xr[j]) - mx[j]);
                yr[j] = StoreAs<T>(ex / sum[j]);
              } else {
                yr[j] = StoreAs<T>(Load(xr[j]) - mx[j] - std::log(sum[j]));
              }
            }
          }
        }
      }
    });
  }

  template <typename T, typename C>
  static void Row(const T* x, T* y, int64_t n) {
    C mx = Load(x[0]);
    int64_t arg = 0;
    for (int64_t i = 1; i < n; ++i) {
      C v = Load(x[i]);
      if (v > mx || (std::isnan(v) && !std::isnan(mx))) {
        mx = v;
        arg = i;
      }
    }
    if constexpr (kKind == SoftmaxKind::kHardmax) {
      for (int64_t i = 0; i < n; ++i) y[i] = StoreAs<T>(C(i == arg ? 1 : 0));
    } else if constexpr (kKind == SoftmaxKind::kSoftmax) {
      C sum = 0;
      if constexpr (std::is_same_v<T, C>) {
        for (int64_t i = 0; i < n; ++i) {
          C ex = std::exp(x[i] - mx);
          y[i] = ex;
          sum += ex;
        }
        C inv = C(1) / sum;
        for (int64_t i = 0; i < n; ++i) y[i] *= inv;
      } else {
        for (int64_t i = 0; i < n; ++i) sum += std::exp(Load(x[i]) - mx);
        C inv = C(1) / sum;
        for (int64_t i = 0; i < n; ++i) y[i] = StoreAs<T>(std::exp(Load(x[i]) - mx) * inv);
      }
    } else {
      C sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += std::exp(Load(x[i]) - mx);
      C lse = mx + std::log(sum);
      for (int64_t i = 0; i < n; ++i) y[i] = StoreAs<T>(Load(x[i]) - lse);
    }
  }

  bool legacy_ = false;
  int64_t axis_ = -1;
};

using Softmax = SoftmaxOp<SoftmaxKind::kSoftmax>;
using LogSoftmax = SoftmaxOp<SoftmaxKind::kLogSoftmax>;
using Hardmax = SoftmaxOp<SoftmaxKind::kHardmax>;

}  // namespace

std::vector<KernelRow> SoftmaxKernels() {
  std::vector<KernelRow> rows;
  auto add = [&rows]<typename K>(const char* op) {
    rows.push_back({"ai.onnx", op, 1, 10, types::Floats(), Make<K>()});
    rows.push_back({"ai.onnx", op, 11, 12, types::Floats(), Make<K>()});
    rows.push_back({"ai.onnx", op, 13, kMaxOnnxOpset, types::Floats(), Make<K>()});
  };
  add.operator()<Softmax>("Softmax");
  add.operator()<LogSoftmax>("LogSoftmax");
  add.operator()<Hardmax>("Hardmax");
  return rows;
}

}  // namespace tessera::cpu
