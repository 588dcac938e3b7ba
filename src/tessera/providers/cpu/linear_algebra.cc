// Linear algebra: Det (batched determinants by LU decomposition with partial
// pivoting, computed in double) and com.microsoft Inverse (batched inverses
// by Gauss-Jordan elimination with partial pivoting, in double).
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

// Determinant of the n x n row-major matrix a (destroyed).
double LuDeterminant(double* a, int64_t n) {
  double det = 1.0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::fabs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const double v = std::fabs(a[i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (best == 0.0) {
      // A zero column: singular unless NaNs are present, which must propagate.
      for (int64_t i = k; i < n; ++i)
        if (std::isnan(a[i * n + k])) return std::numeric_limits<double>::quiet_NaN();
      return 0.0;
    }
    if (p != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      det = -det;
    }
    const double pivot = a[k * n + k];
    det *= pivot;
    for (int64_t i = k + 1; i < n; ++i) {
      const double f = a[i * n + k] / pivot;
      if (f == 0.0) continue;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return det;
}

// M of a batch of square matrices [*, M, M]; fails otherwise.
int64_t SquareMatrixSize(const Tensor& x, const KernelContext& ctx) {
  const int64_t r = x.rank();
  if (r < 2) ctx.Fail("input must have rank >= 2 ([*, M, M]), got ", ShapeToString(x.shape()));
  const int64_t m = x.dim(r - 1);
  if (x.dim(r - 2) != m) ctx.Fail("the last two dimensions must be equal (square matrices), got ", ShapeToString(x.shape()));
  return m;
}

class Det final : public OpKernel {
 public:
  explicit Det(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    const int64_t m = SquareMatrixSize(x, ctx);
    Shape out_shape(x.shape().begin(), x.shape().end() - 2);
    const int64_t batch = SizeToDim(x.shape(), static_cast<size_t>(r - 2));
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
      const T* px = x.data<T>();
      T* py = y.data<T>();
      const int64_t mm = m * m;
      ParallelFor(ctx.thread_pool(), batch, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, mm * m)),
                  [&](int64_t b, int64_t e) {
                    std::vector<double> a(static_cast<size_t>(mm));
                    for (int64_t i = b; i < e; ++i) {
                      for (int64_t k = 0; k < mm; ++k) a[static_cast<size_t>(k)] = static_cast<double>(Load<T>(px[i * mm + k]));
                      py[i] = StoreAs<T>(LuDeterminant(a.data(), m));
                    }
                  });
    });
  }
};

// Inverse of the n x n row-major matrix a (destroyed) into inv; false when
// a pivot is exactly zero (singular).
bool GaussJordanInverse(double* a, int64_t n, double* inv) {
  for (int64_t i = 0; i < n * n; ++i) inv[i] = 0.0;
  for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::fabs(a[i * n + k]) > std::fabs(a[p * n + k])) p = i;
    if (a[p * n + k] == 0.0) return false;
    if (p != k)
      for (int64_t j = 0; j < n; ++j) {
        std::swap(a[k * n + j], a[p * n + j]);
        std::swap(inv[k * n + j], inv[p * n + j]);
      }
    const double d = 1.0 / a[k * n + k];
    for (int64_t j = 0; j < n; ++j) {
      a[k * n + j] *= d;
      inv[k * n + j] *= d;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i == k) continue;
      const double f = a[i * n + k];
      if (f == 0.0) continue;
      for (int64_t j = 0; j < n; ++j) {
        a[i * n + j] -= f * a[k * n + j];
        inv[i * n + j] -= f * inv[k * n + j];
      }
    }
  }
  return true;
}

class Inverse final : public OpKernel {
 public:
  explicit Inverse(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    const int64_t m = SquareMatrixSize(x, ctx);
    const int64_t batch = SizeToDim(x.shape(), static_cast<size_t>(r - 2));
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      const T* px = x.data<T>();
      T* py = y.data<T>();
      const int64_t mm = m * m;
      for (int64_t i = 0; i < batch; ++i) {
        std::vector<double> a(static_cast<size_t>(mm)), inv(static_cast<size_t>(mm));
        for (int64_t k = 0; k < mm; ++k) a[static_cast<size_t>(k)] = static_cast<double>(Load<T>(px[i * mm + k]));
        if (!GaussJordanInverse(a.data(), m, inv.data())) ctx.Fail("matrix ", i, " of the batch is singular");
        for (int64_t k = 0; k < mm; ++k) py[i * mm + k] = StoreAs<T>(inv[static_cast<size_t>(k)]);
      }
    });
  }
};

}  // namespace

std::vector<KernelRow> LinearAlgebraKernels() {
  return {
      {"ai.onnx", "Det", 11, 21, {DataType::kFloat, DataType::kDouble, DataType::kFloat16}, Make<Det>()},
      {"ai.onnx", "Det", 22, kMaxOnnxOpset, types::Floats(), Make<Det>()},
      {kMicrosoftDomain, "Inverse", 1, 1, {DataType::kFloat, DataType::kDouble, DataType::kFloat16}, Make<Inverse>()},
  };
}

}  // namespace tessera::cpu
