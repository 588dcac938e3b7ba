// Running sums and products along an axis: CumSum and CumProd.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// ---- CumSum / CumProd ------------------------------------------------------------------------

template <bool kProd>
class Cumulative final : public OpKernel {
 public:
  explicit Cumulative(const KernelInfo& info)
      : exclusive_(info.attr_int("exclusive", 0) != 0), reverse_(info.attr_int("reverse", 0) != 0) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& axis_t = ctx.input(1);
    if (axis_t.numel() != 1) ctx.Fail("axis must be a scalar, got ", ShapeToString(axis_t.shape()));
    if (axis_t.dtype() != DataType::kInt32 && axis_t.dtype() != DataType::kInt64) ctx.Fail("axis must be int32 or int64");
    int64_t rank = x.rank();
    if (rank == 0) ctx.Fail("input must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_t.GetAsInt64(0), rank, ctx);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.numel() == 0) return;
    int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    int64_t n = x.dim(axis);
    int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    bool excl = exclusive_, rev = reverse_;
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      // Integers accumulate in wrapping uint64 arithmetic (no signed overflow UB).
      using A = std::conditional_t<std::is_integral_v<T>, uint64_t, typename cpu::Compute<T>::type>;
      const T* xp = x.data<T>();
      T* yp = y.data<T>();
      auto load = [](const T& v) -> A {
        if constexpr (std::is_integral_v<T>) return static_cast<A>(static_cast<int64_t>(v));
        else return Load(v);
      };
      auto store = [](A v) -> T {
        if constexpr (std::is_integral_v<T>) return static_cast<T>(v);
        else return StoreAs<T>(v);
      };
      ParallelFor(ctx.thread_pool(), outer, 1, [&](int64_t b, int64_t e) {
        std::vector<A> acc(static_cast<size_t>(inner));
        if (inner == 1) {
          // One contiguous lane per row: keep the running value in a register.
          int64_t step = rev ? -1 : 1;
          for (int64_t o = b; o < e; ++o) {
            const T* xr = xp + o * n + (rev ? n - 1 : 0);
            T* yr = yp + o * n + (rev ? n - 1 : 0);
            A a = A(kProd ? 1 : 0);
            for (int64_t s = 0; s < n; ++s, xr += step, yr += step) {
              A v = load(*xr);
              if (excl) *yr = store(a);
              a = kProd ? static_cast<A>(a * v) : static_cast<A>(a + v);
              if (!excl) *yr = store(a);
            }
          }
          return;
        }
        for (int64_t o = b; o < e; ++o) {
          std::fill(acc.begin(), acc.end(), A(kProd ? 1 : 0));
          for (int64_t s = 0; s < n; ++s) {
            int64_t i = rev ? n - 1 - s : s;
            const T* xr = xp + (o * n + i) * inner;
            T* yr = yp + (o * n + i) * inner;
            for (int64_t j = 0; j < inner; ++j) {
              A& a = acc[static_cast<size_t>(j)];
              A v = load(xr[j]);
              if (excl) {
                yr[j] = store(a);
                a = kProd ? static_cast<A>(a * v) : static_cast<A>(a + v);
              } else {
                a = kProd ? static_cast<A>(a * v) : static_cast<A>(a + v);
                yr[j] = store(a);
              }
            }
          }
        }
      });
    });
  }

 private:
  bool exclusive_, reverse_;
};

std::vector<DataType> CumTypes() {
  return {DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
          DataType::kInt32,  DataType::kInt64,  DataType::kUInt32,  DataType::kUInt64};
}

}  // namespace

std::vector<KernelRow> CumulativeKernels() {
  auto cum = CumTypes();
  return {
      {"ai.onnx", "CumSum", 11, 13, cum, Make<Cumulative<false>>()},
      {"ai.onnx", "CumSum", 14, kMaxOnnxOpset, cum, Make<Cumulative<false>>()},
      {"ai.onnx", "CumProd", 26, kMaxOnnxOpset, cum, Make<Cumulative<true>>()},
  };
}

}  // namespace tessera::cpu
