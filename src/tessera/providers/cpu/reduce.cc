// Reductions (ReduceSum, ReduceMean, ReduceMax, ... ) and ArgMax/ArgMin.
//
// A reduction is planned once per call: dims of size 1 are dropped and
// adjacent dims that are both reduced or both kept are merged. The trailing
// kept group (if any) becomes a contiguous "inner" vector of accumulators, the
// remaining kept dims are walked per output row, and the reduced dims are
// walked innermost-first, so the common cases (last axis, all axes, leading
// axes) touch memory contiguously.
#include <cmath>
#include <limits>
#include <type_traits>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

struct ReducePlan {
  Shape out_shape;
  int64_t out_count = 1;
  int64_t red_count = 1;   // elements folded into each output
  int64_t inner = 1;       // trailing kept contiguous run
  std::vector<int64_t> outer_sizes, outer_strides;  // other kept groups, outermost first
  std::vector<int64_t> red_sizes, red_strides;      // reduced groups, outermost first
  int64_t outer_count = 1;
};

ReducePlan MakePlan(const Shape& shape, const std::vector<bool>& reduced, bool keepdims) {
  ReducePlan p;
  size_t rank = shape.size();
  for (size_t i = 0; i < rank; ++i) {
    if (reduced[i]) {
      p.red_count *= shape[i];
      if (keepdims) p.out_shape.push_back(1);
    } else {
      p.out_shape.push_back(shape[i]);
      p.out_count *= shape[i];
    }
  }
  if (p.out_count == 0 || p.red_count == 0) return p;
  std::vector<int64_t> strides = StridesOf(shape);
  // Merge groups.
  struct Group {
    int64_t size, stride;
    bool red;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] == 1) continue;
    if (!groups.empty() && groups.back().red == reduced[i]) {
      groups.back().size *= shape[i];
      groups.back().stride = strides[i];
    } else {
      groups.push_back({shape[i], strides[i], static_cast<bool>(reduced[i])});
    }
  }
  if (!groups.empty() && !groups.back().red) {
    p.inner = groups.back().size;
    groups.pop_back();
  }
  for (const Group& g : groups) {
    if (g.red) {
      p.red_sizes.push_back(g.size);
      p.red_strides.push_back(g.stride);
    } else {
      p.outer_sizes.push_back(g.size);
      p.outer_strides.push_back(g.stride);
      p.outer_count *= g.size;
    }
  }
  return p;
}

// init(o) -> A gives the starting accumulator of output o, step(A&, const T&)
// folds one element, finish(A, o) writes output o.
// merge(A&, const A&) folds a partial accumulator into another; it lets a
// single large contiguous reduction (e.g. over all axes) split into a fixed
// number of chunks (deterministic whatever the thread count).
template <typename T, typename A, typename Init, typename Step, typename Merge, typename Finish>
void RunReduction(const ReducePlan& p, const T* x, ThreadPool* pool, const Init& init, const Step& step,
                  const Merge& merge, const Finish& finish) {
  if (p.out_count == 0) return;
  if (p.red_count == 0) {
    for (int64_t o = 0; o < p.out_count; ++o) finish(init(o), o);
    return;
  }
  constexpr int64_t kChunk = 1 << 15;
  if (p.outer_count == 1 && p.inner == 1 && p.red_sizes.size() == 1 && p.red_strides[0] == 1 &&
      p.red_count >= 2 * kChunk && pool != nullptr && pool->num_threads() > 1) {
    int64_t nchunks = std::min<int64_t>(64, p.red_count / kChunk);
    int64_t per = (p.red_count + nchunks - 1) / nchunks;
    std::vector<A> partial(static_cast<size_t>(nchunks), init(0));
    ParallelFor(pool, nchunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        A a = init(0);
        int64_t lo = c * per, hi = std::min(p.red_count, lo + per);
        for (int64_t i = lo; i < hi; ++i) step(a, x[i]);
        partial[static_cast<size_t>(c)] = a;
      }
    });
    A total = partial[0];
    for (int64_t c = 1; c < nchunks; ++c) merge(total, partial[static_cast<size_t>(c)]);
    finish(total, 0);
    return;
  }
  const int64_t inner = p.inner;
  const size_t nred = p.red_sizes.size();
  const int64_t last_size = nred ? p.red_sizes.back() : 1;
  const int64_t last_stride = nred ? p.red_strides.back() : 0;
  int64_t work_per_row = std::max<int64_t>(1, p.red_count * inner);
  int64_t grain = std::max<int64_t>(1, 32768 / work_per_row);
  ParallelFor(pool, p.outer_count, grain, [&](int64_t b, int64_t e) {
    std::vector<A> acc(static_cast<size_t>(inner));
    std::vector<int64_t> ridx(nred, 0);
    for (int64_t ok = b; ok < e; ++ok) {
      // Offset of this outer row.
      int64_t base = 0;
      int64_t rem = ok;
      for (size_t d = p.outer_sizes.size(); d-- > 0;) {
        base += (rem % p.outer_sizes[d]) * p.outer_strides[d];
        rem /= p.outer_sizes[d];
      }
      for (int64_t j = 0; j < inner; ++j) acc[static_cast<size_t>(j)] = init(ok * inner + j);
      // Walk the reduced groups; the last one is the tight loop.
      std::fill(ridx.begin(), ridx.end(), 0);
      int64_t outer_red = nred ? p.red_count / last_size : 1;
      for (int64_t r = 0; r < outer_red; ++r) {
        int64_t off = base;
        for (size_t d = 0; d + 1 < nred; ++d) off += ridx[d] * p.red_strides[d];
        if (inner == 1) {
          A& a = acc[0];
          if (last_stride == 1) {
            const T* px = x + off;
            for (int64_t i = 0; i < last_size; ++i) step(a, px[i]);
          } else {
            for (int64_t i = 0; i < last_size; ++i) step(a, x[off + i * last_stride]);
          }
        } else {
          for (int64_t i = 0; i < last_size; ++i) {
            const T* px = x + off + i * last_stride;
            for (int64_t j = 0; j < inner; ++j) step(acc[static_cast<size_t>(j)], px[j]);
          }
        }
        for (size_t d = nred > 0 ? nred - 1 : 0; d-- > 0;) {
          if (++ridx[d] < p.red_sizes[d]) break;
          ridx[d] = 0;
        }
      }
      for (int64_t j = 0; j < inner; ++j) finish(acc[static_cast<size_t>(j)], ok * inner + j);
    }
  });
}

enum class RK { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The accumulator for element type T: doubles for floats, wrapping 64-bit
// integers for sums/products of integers, signed/unsigned 64-bit for max/min.
template <RK K, typename T>
struct AccOf {
  using type = std::conditional_t<
      !std::is_integral_v<T> || K == RK::kL2 || K == RK::kLogSum || K == RK::kLogSumExp, double,
      std::conditional_t<K == RK::kMax || K == RK::kMin,
                         std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>, uint64_t>>;
};

template <RK K>
class Reduce final : public OpKernel {
 public:
  explicit Reduce(const KernelInfo& info) {
    int64_t input_axes_from = K == RK::kSum ? 13 : 18;
    axes_from_input_ = info.opset() >= input_axes_from;
    keepdims_ = info.attr_int("keepdims", 1) != 0;
    if (axes_from_input_) {
      noop_with_empty_axes_ = info.attr_int("noop_with_empty_axes", 0) != 0;
      if (info.has_attr("axes")) info.Fail("axes is an input (not an attribute) from opset ", input_axes_from);
    } else {
      axes_ = info.attr_ints("axes", {});
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes = axes_;
    if (axes_from_input_ && ctx.has_input(1)) {
      const Tensor& a = ctx.input(1);
      if (a.dtype() != DataType::kInt64 && a.dtype() != DataType::kInt32) ctx.Fail("axes must be int64");
      if (a.rank() > 1) ctx.Fail("axes must be 1-D, got ", ShapeToString(a.shape()));
      axes = a.ToInt64Vector();
    }
    int64_t rank = x.rank();
    if (axes.empty() && axes_from_input_ && noop_with_empty_axes_) {
      ctx.set_output(0, x.Clone());
      return;
    }
    std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
    for (int64_t a : axes) reduced[static_cast<size_t>(NormalizeAxis(a, rank, ctx))] = true;
    ReducePlan plan = MakePlan(x.shape(), reduced, keepdims_);
    Tensor& y = ctx.allocate_output(0, x.dtype(), plan.out_shape);
    if (x.dtype() == DataType::kBool) {
      if constexpr (K == RK::kMax || K == RK::kMin) {
        Run<bool>(ctx, plan, x, y);
        return;
      }
      ctx.Fail("element type bool is not supported");
    }
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() { Run<T>(ctx, plan, x, y); });
  }

 private:
  template <typename T>
  static void Run(KernelContext& ctx, const ReducePlan& plan, const Tensor& xt, Tensor& yt) {
    using A = typename AccOf<K, T>::type;
    const T* x = xt.data<T>();
    T* y = yt.data<T>();
    ThreadPool* pool = ctx.thread_pool();
    const int64_t n = plan.red_count;
    auto store = [y](int64_t o, auto v) {
      if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
        y[o] = StoreAs<T>(static_cast<float>(v));
      else
        y[o] = static_cast<T>(v);
    };
    auto ld = [](const T& v) -> A { return static_cast<A>(Load(v)); };
    if constexpr (K == RK::kSum || K == RK::kMean) {
      RunReduction<T, A>(
          plan, x, pool, [](int64_t) { return A(0); }, [&](A& a, const T& v) { a += ld(v); }, [](A& a, const A& b) { a += b; },
          [&](A a, int64_t o) {
            if constexpr (K == RK::kSum) {
              store(o, a);
            } else if constexpr (std::is_integral_v<T>) {
              using S = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
              store(o, n == 0 ? S(0) : static_cast<S>(a) / static_cast<S>(n));
            } else {
              store(o, a / static_cast<double>(n));
            }
          });
    } else if constexpr (K == RK::kMax || K == RK::kMin) {
      A identity;
      if constexpr (std::is_floating_point_v<A>)
        identity = K == RK::kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
      else if constexpr (std::is_same_v<T, bool>)
        identity = K == RK::kMax ? 0 : 1;
      else
        identity = K == RK::kMax ? static_cast<A>(std::numeric_limits<T>::lowest())
                                 : static_cast<A>(std::numeric_limits<T>::max());
      RunReduction<T, A>(
          plan, x, pool, [identity](int64_t) { return identity; },
          [&](A& a, const T& v) {
            A b = ld(v);
            if constexpr (std::is_floating_point_v<A>) {
              if (std::isnan(b)) a = b;
              else if (K == RK::kMax ? b > a : b < a) a = b;
            } else {
              if (K == RK::kMax ? b > a : b < a) a = b;
            }
          },
          [](A& a, const A& b) {
            if constexpr (std::is_floating_point_v<A>) {
              if (std::isnan(b)) a = b;
              else if (K == RK::kMax ? b > a : b < a) a = b;
            } else {
              if (K == RK::kMax ? b > a : b < a) a = b;
            }
          },
          [&](A a, int64_t o) { store(o, a); });
    } else if constexpr (K == RK::kProd) {
      RunReduction<T, A>(
          plan, x, pool, [](int64_t) { return A(1); }, [&](A& a, const T& v) { a *= ld(v); },
          [](A& a, const A& b) { a *= b; }, [&](A a, int64_t o) { store(o, a); });
    } else if constexpr (K == RK::kL1) {
      RunReduction<T, A>(
          plan, x, pool, [](int64_t) { return A(0); },
          [&](A& a, const T& v) {
            if constexpr (std::is_floating_point_v<A>)
              a += std::fabs(ld(v));
            else if constexpr (std::is_signed_v<T>)
              a += static_cast<A>(v < 0 ? -static_cast<int64_t>(v) : static_cast<int64_t>(v));
            else
              a += ld(v);
          },
          [](A& a, const A& b) { a += b; }, [&](A a, int64_t o) { store(o, a); });
    } else if constexpr (K == RK::kSumSquare || K == RK::kL2) {
      RunReduction<T, A>(
          plan, x, pool, [](int64_t) { return A(0); },
          [&](A& a, const T& v) {
            A b = ld(v);
            a += b * b;
          },
          [](A& a, const A& b) { a += b; },
          [&](A a, int64_t o) {
            if constexpr (K == RK::kL2) {
              double r = std::sqrt(static_cast<double>(a));
              if constexpr (std::is_integral_v<T>) r = std::trunc(r);
              store(o, r);
            } else {
              store(o, a);
            }
          });
    } else if constexpr (K == RK::kLogSum) {
      RunReduction<T, A>(
          plan, x, pool, [](int64_t) { return A(0); }, [&](A& a, const T& v) { a += ld(v); },
          [](A& a, const A& b) { a += b; }, [&](A a, int64_t o) { store(o, std::log(a)); });
    } else if constexpr (K == RK::kLogSumExp) {
      std::vector<double> mx(static_cast<size_t>(plan.out_count));
      RunReduction<T, double>(
          plan, x, pool, [](int64_t) { return -std::numeric_limits<double>::infinity(); },
          [&](double& a, const T& v) {
            double b = static_cast<double>(Load(v));
            if (b > a || std::isnan(b)) a = b;
          },
          [](double& a, const double& b) {
            if (b > a || std::isnan(b)) a = b;
          },
          [&](double a, int64_t o) { mx[static_cast<size_t>(o)] = a; });
      struct SumMax {
        double sum, max;
      };
      RunReduction<T, SumMax>(
          plan, x, pool,
          [&](int64_t o) {
            double m = mx[static_cast<size_t>(o)];
            return SumMax{0.0, std::isinf(m) ? 0.0 : m};
          },
          [&](SumMax& a, const T& v) { a.sum += std::exp(static_cast<double>(Load(v)) - a.max); },
          [](SumMax& a, const SumMax& b) { a.sum += b.sum; },
          [&](SumMax a, int64_t o) { store(o, a.max + std::log(a.sum)); });
    }
  }

  bool axes_from_input_ = false;
  bool keepdims_ = true;
  bool noop_with_empty_axes_ = false;
  std::vector<int64_t> axes_;
};

// ---- ArgMax / ArgMin -------------------------------------------------------

template <bool kMax>
class ArgReduce final : public OpKernel {
 public:
  explicit ArgReduce(const KernelInfo& info) {
    axis_ = info.attr_int("axis", 0);
    keepdims_ = info.attr_int("keepdims", 1) != 0;
    select_last_ = info.opset() >= 12 && info.attr_int("select_last_index", 0) != 0;
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rank = x.rank();
    if (rank == 0) ctx.Fail("input must have rank >= 1");
    int64_t axis = NormalizeAxis(axis_, rank, ctx);
    Shape out_shape;
    for (int64_t i = 0; i < rank; ++i) {
      if (i != axis) out_shape.push_back(x.dim(i));
      else if (keepdims_) out_shape.push_back(1);
    }
    int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    int64_t n = x.dim(axis);
    int64_t inner = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1);
    Tensor& y = ctx.allocate_output(0, DataType::kInt64, out_shape);
    if (y.numel() == 0) return;
    if (n == 0) ctx.Fail("cannot take ", kMax ? "ArgMax" : "ArgMin", " over an empty axis");
    bool last = select_last_;
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      int64_t* yp = y.data<int64_t>();
      int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, n * inner));
      ParallelFor(ctx.thread_pool(), outer, grain, [&](int64_t b, int64_t e) {
        using C = typename cpu::Compute<T>::type;
        std::vector<C> best(static_cast<size_t>(inner));
        for (int64_t o = b; o < e; ++o) {
          const T* xb = xp + o * n * inner;
          int64_t* yb = yp + o * inner;
          for (int64_t j = 0; j < inner; ++j) {
            best[static_cast<size_t>(j)] = Load(xb[j]);
            yb[j] = 0;
          }
          for (int64_t i = 1; i < n; ++i) {
            const T* xr = xb + i * inner;
            for (int64_t j = 0; j < inner; ++j) {
              C v = Load(xr[j]);
              C& bv = best[static_cast<size_t>(j)];
              bool better;
              if constexpr (std::is_floating_point_v<C>) {
                // Like numpy: the first (or last) NaN wins over every number.
                if (std::isnan(v) || std::isnan(bv)) {
                  better = std::isnan(v) && (last || !std::isnan(bv));
                  if (better) {
                    bv = v;
                    yb[j] = i;
                  }
                  continue;
                }
              }
              if (last) better = kMax ? v >= bv : v <= bv;
              else better = kMax ? v > bv : v < bv;
              if (better) {
                bv = v;
                yb[j] = i;
              }
            }
          }
        }
      });
    });
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool select_last_ = false;
};

std::vector<DataType> ReduceTypes() {
  return {DataType::kFloat,  DataType::kDouble, DataType::kFloat16, DataType::kBFloat16,
          DataType::kInt32,  DataType::kInt64,  DataType::kUInt32,  DataType::kUInt64};
}

}  // namespace

std::vector<KernelRow> ReduceKernels() {
  std::vector<KernelRow> rows;
  auto base = ReduceTypes();
  auto with8 = types::Join(base, {DataType::kInt8, DataType::kUInt8});
  auto withbool = types::Join(with8, {DataType::kBool});
  rows.push_back({"ai.onnx", "ReduceSum", 1, 10, base, Make<Reduce<RK::kSum>>()});
  rows.push_back({"ai.onnx", "ReduceSum", 11, 12, base, Make<Reduce<RK::kSum>>()});
  rows.push_back({"ai.onnx", "ReduceSum", 13, kMaxOnnxOpset, base, Make<Reduce<RK::kSum>>()});
  auto add18 = [&]<RK K>(const char* op) {
    rows.push_back({"ai.onnx", op, 1, 10, base, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 11, 12, base, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 13, 17, base, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 18, kMaxOnnxOpset, base, Make<Reduce<K>>()});
  };
  add18.operator()<RK::kMean>("ReduceMean");
  add18.operator()<RK::kProd>("ReduceProd");
  add18.operator()<RK::kL1>("ReduceL1");
  add18.operator()<RK::kL2>("ReduceL2");
  add18.operator()<RK::kLogSum>("ReduceLogSum");
  add18.operator()<RK::kLogSumExp>("ReduceLogSumExp");
  add18.operator()<RK::kSumSquare>("ReduceSumSquare");
  auto addMinMax = [&]<RK K>(const char* op) {
    rows.push_back({"ai.onnx", op, 1, 10, base, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 11, 11, base, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 12, 12, with8, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 13, 17, with8, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 18, 19, with8, Make<Reduce<K>>()});
    rows.push_back({"ai.onnx", op, 20, kMaxOnnxOpset, withbool, Make<Reduce<K>>()});
  };
  addMinMax.operator()<RK::kMax>("ReduceMax");
  addMinMax.operator()<RK::kMin>("ReduceMin");
  auto numeric = types::Numeric();
  auto addArg = [&]<bool kMax>(const char* op) {
    rows.push_back({"ai.onnx", op, 1, 10, numeric, Make<ArgReduce<kMax>>()});
    rows.push_back({"ai.onnx", op, 11, 11, numeric, Make<ArgReduce<kMax>>()});
    rows.push_back({"ai.onnx", op, 12, 12, numeric, Make<ArgReduce<kMax>>()});
    rows.push_back({"ai.onnx", op, 13, kMaxOnnxOpset, numeric, Make<ArgReduce<kMax>>()});
  };
  addArg.operator()<true>("ArgMax");
  addArg.operator()<false>("ArgMin");
  return rows;
}

}  // namespace tessera::cpu
