// Kernels that select values by what they are: TopK (the k largest or
// smallest along an axis), Unique (each distinct value once, with indices
// and counts) and NonZero (the coordinates of the non-zero elements).
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// ---- TopK ---------------------------------------------------------------------------------

template <typename C>
inline bool IsNan(C v) {
  if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
  else return false;
}

class TopK final : public OpKernel {
 public:
  explicit TopK(const KernelInfo& info) {
    k_from_input_ = info.opset() >= 10;
    if (!k_from_input_) k_attr_ = info.attr_int("k");
    axis_ = info.attr_int("axis", -1);
    if (info.opset() >= 11) {
      largest_ = info.attr_int("largest", 1) != 0;
      sorted_ = info.attr_int("sorted", 1) != 0;
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t k = k_attr_;
    if (k_from_input_) {
      const Tensor& kt = ctx.input(1);
      if (kt.numel() != 1) ctx.Fail("K must hold a single value, got ", ShapeToString(kt.shape()));
      if (kt.dtype() != DataType::kInt64 && kt.dtype() != DataType::kInt32) ctx.Fail("K must be int64");
      k = kt.GetAsInt64(0);
    }
    int64_t rank = x.rank();
    if (rank == 0) ctx.Fail("input must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_, rank, ctx);
    int64_t n = x.dim(axis);
    if (k < 0 || k > n) ctx.Fail("k ", k, " is out of range [0, ", n, "] for axis ", axis);
    Shape out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = k;
    Tensor& values = ctx.allocate_output(0, x.dtype(), out_shape);
    Tensor& indices = ctx.allocate_output(1, DataType::kInt64, out_shape);
    if (values.numel() == 0) return;
    int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    bool largest = largest_;
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      const T* xp = x.data<T>();
      T* vp = values.data<T>();
      int64_t* ip = indices.data<int64_t>();
      int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(n, 1));
      ParallelFor(ctx.thread_pool(), outer * inner, grain, [&](int64_t b, int64_t e) {
        std::vector<C> lane(static_cast<size_t>(n));
        std::vector<int64_t> order(static_cast<size_t>(n));
        for (int64_t r = b; r < e; ++r) {
          int64_t o = r / inner, j = r % inner;
          const T* base = xp + o * n * inner + j;
          for (int64_t i = 0; i < n; ++i) lane[static_cast<size_t>(i)] = Load(base[i * inner]);
          std::iota(order.begin(), order.end(), int64_t{0});
          // NaN ranks above every number; ties go to the lower index.
          auto before = [&](int64_t a, int64_t c) {
            C va = lane[static_cast<size_t>(a)], vc = lane[static_cast<size_t>(c)];
            bool na = IsNan(va), nc = IsNan(vc);
            if (na || nc) {
              if (na && nc) return a < c;
              return largest ? na : nc;
            }
            if (va != vc) return largest ? va > vc : va < vc;
            return a < c;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
          T* vo = vp + o * k * inner + j;
          int64_t* io = ip + o * k * inner + j;
          for (int64_t i = 0; i < k; ++i) {
            int64_t src = order[static_cast<size_t>(i)];
            vo[i * inner] = base[src * inner];
            io[i * inner] = src;
          }
        }
      });
    });
  }

 private:
  bool k_from_input_ = true;
  int64_t k_attr_ = 0;
  int64_t axis_ = -1;
  bool largest_ = true;
  bool sorted_ = true;
};

// ---- Unique --------------------------------------------------------------------------------------

class Unique final : public OpKernel {
 public:
  explicit Unique(const KernelInfo& info) : sorted_(info.attr_int("sorted", 1) != 0) {
    if (info.has_attr("axis")) {
      has_axis_ = true;
      axis_ = info.attr_int("axis");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t outer = 1, n = x.numel(), inner = 1, axis = 0;
    if (has_axis_) {
      if (x.rank() == 0) ctx.Fail("axis is given but the input is a scalar");
      axis = NormalizeAxis(axis_, x.rank(), ctx);
      outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
      n = x.dim(axis);
      inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    }
    // Slice s is the elements x[o, s, i] for all (o, i); flattened: one element.
    auto run = [&]<typename T>(auto&& less, auto&& equal) {
      const T* p = x.data<T>();
      auto slice_less = [&](int64_t a, int64_t b) {
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            const T& va = p[(o * n + a) * inner + i];
            const T& vb = p[(o * n + b) * inner + i];
            if (less(va, vb)) return true;
            if (less(vb, va)) return false;
          }
        return false;
      };
      auto slice_equal = [&](int64_t a, int64_t b) {
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i)
            if (!equal(p[(o * n + a) * inner + i], p[(o * n + b) * inner + i])) return false;
        return true;
      };
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), slice_less);
      // Groups of equal slices; the first of each group is its first occurrence.
      std::vector<int64_t> first, counts;
      std::vector<int64_t> group_of(static_cast<size_t>(n));
      for (int64_t r = 0; r < n; ++r) {
        int64_t s = order[static_cast<size_t>(r)];
        if (r == 0 || !slice_equal(order[static_cast<size_t>(r - 1)], s)) {
          first.push_back(s);
          counts.push_back(0);
        }
        counts.back()++;
        group_of[static_cast<size_t>(s)] = static_cast<int64_t>(first.size()) - 1;
      }
      int64_t u = static_cast<int64_t>(first.size());
      // Output position of each group.
      std::vector<int64_t> pos(static_cast<size_t>(u));
      std::iota(pos.begin(), pos.end(), int64_t{0});
      std::vector<int64_t> by_pos(pos);  // group at each output position
      if (!sorted_) {
        std::sort(by_pos.begin(), by_pos.end(),
                  [&](int64_t a, int64_t b) { return first[static_cast<size_t>(a)] < first[static_cast<size_t>(b)]; });
        for (int64_t q = 0; q < u; ++q) pos[static_cast<size_t>(by_pos[static_cast<size_t>(q)])] = q;
      }
      Shape y_shape = has_axis_ ? x.shape() : Shape{u};
      if (has_axis_) y_shape[static_cast<size_t>(axis)] = u;
      Tensor& y = ctx.allocate_output(0, x.dtype(), y_shape);
      T* yp = y.data<T>();
      for (int64_t q = 0; q < u; ++q) {
        int64_t s = first[static_cast<size_t>(by_pos[static_cast<size_t>(q)])];
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) yp[(o * u + q) * inner + i] = p[(o * n + s) * inner + i];
      }
      if (ctx.output_requested(1)) {
        Tensor& t = ctx.allocate_output(1, DataType::kInt64, {u});
        for (int64_t q = 0; q < u; ++q) t.data<int64_t>()[q] = first[static_cast<size_t>(by_pos[static_cast<size_t>(q)])];
      }
      if (ctx.output_requested(2)) {
        Tensor& t = ctx.allocate_output(2, DataType::kInt64, {n});
        for (int64_t s = 0; s < n; ++s) t.data<int64_t>()[s] = pos[static_cast<size_t>(group_of[static_cast<size_t>(s)])];
      }
      if (ctx.output_requested(3)) {
        Tensor& t = ctx.allocate_output(3, DataType::kInt64, {u});
        for (int64_t q = 0; q < u; ++q) t.data<int64_t>()[q] = counts[static_cast<size_t>(by_pos[static_cast<size_t>(q)])];
      }
    };
    if (x.dtype() == DataType::kString) {
      run.template operator()<std::string>([](const std::string& a, const std::string& b) { return a < b; },
                                           [](const std::string& a, const std::string& b) { return a == b; });
      return;
    }
    if (x.dtype() == DataType::kComplex64 || x.dtype() == DataType::kComplex128) {
      auto body = [&]<typename Cx>() {
        run.template operator()<Cx>(
            [](const Cx& a, const Cx& b) { return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag()); },
            [](const Cx& a, const Cx& b) { return a == b; });
      };
      if (x.dtype() == DataType::kComplex64) body.template operator()<std::complex<float>>();
      else body.template operator()<std::complex<double>>();
      return;
    }
    DispatchNumericBool(x.dtype(), ctx, [&]<typename T>() {
      // NaN sorts after every number and equals other NaNs (one unique NaN).
      run.template operator()<T>(
          [](const T& a, const T& b) {
            auto va = Load(a), vb = Load(b);
            if (IsNan(va)) return false;
            if (IsNan(vb)) return true;
            return va < vb;
          },
          [](const T& a, const T& b) {
            auto va = Load(a), vb = Load(b);
            return va == vb || (IsNan(va) && IsNan(vb));
          });
    });
  }

 private:
  bool sorted_;
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// ---- NonZero --------------------------------------------------------------------------

class NonZero final : public OpKernel {
 public:
  explicit NonZero(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> flat;
    auto collect = [&](auto&& is_nonzero) {
      for (int64_t i = 0; i < x.numel(); ++i)
        if (is_nonzero(i)) flat.push_back(i);
    };
    if (x.dtype() == DataType::kString) {
      const std::string* p = x.data<std::string>();
      collect([&](int64_t i) { return !p[i].empty(); });
    } else if (x.dtype() == DataType::kComplex64) {
      const std::complex<float>* p = x.data<std::complex<float>>();
      collect([&](int64_t i) { return p[i] != std::complex<float>(0); });
    } else if (x.dtype() == DataType::kComplex128) {
      const std::complex<double>* p = x.data<std::complex<double>>();
      collect([&](int64_t i) { return p[i] != std::complex<double>(0); });
    } else {
      DispatchNumericBool(x.dtype(), ctx, [&]<typename T>() {
        const T* p = x.data<T>();
        collect([&](int64_t i) { return Load(p[i]) != 0; });
      });
    }
    int64_t rank = x.rank(), nnz = static_cast<int64_t>(flat.size());
    Tensor& out = ctx.allocate_output(0, DataType::kInt64, {rank, nnz});
    int64_t* o = out.data<int64_t>();
    for (int64_t j = 0; j < nnz; ++j) {
      int64_t rem = flat[static_cast<size_t>(j)];
      for (int64_t d = rank; d-- > 0;) {
        o[d * nnz + j] = rem % x.dim(d);
        rem /= x.dim(d);
      }
    }
  }
};

}  // namespace

std::vector<KernelRow> SelectionKernels() {
  auto numeric = types::Numeric();
  auto mv = MovementTypes();
  return {
      {"ai.onnx", "NonZero", 9, 12, mv, Make<NonZero>()},
      {"ai.onnx", "NonZero", 13, kMaxOnnxOpset, mv, Make<NonZero>()},
      {"ai.onnx", "TopK", 1, 9, numeric, Make<TopK>()},
      {"ai.onnx", "TopK", 10, 10, numeric, Make<TopK>()},
      {"ai.onnx", "TopK", 11, 23, numeric, Make<TopK>()},
      {"ai.onnx", "TopK", 24, kMaxOnnxOpset, numeric, Make<TopK>()},
      {"ai.onnx", "Unique", 11, kMaxOnnxOpset, mv, Make<Unique>()},
  };
}

}  // namespace tessera::cpu
