// Optimizer kernels of the ai.onnx.preview.training domain: Adagrad, Adam and
// Momentum (standard and Nesterov). Each takes a learning rate R, an update
// count T and groups of per-tensor state, and produces the updated groups.
#include <cmath>

#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"

namespace tessera::cpu {
namespace {

constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// Reads the scalar learning rate R and update count T, and checks the variadic
// inputs split into `groups` equally sized groups whose tensors share shapes.
struct OptimizerArgs {
  double r = 0;
  int64_t t = 0;
  size_t n = 0;  // tensors optimized
};

OptimizerArgs ReadOptimizerArgs(const KernelContext& ctx, size_t groups, size_t out_groups) {
  OptimizerArgs a;
  if (ctx.num_inputs() < 2 + groups)
    ctx.Fail("expected R, T and ", groups, " groups of tensors, got ", ctx.num_inputs(), " inputs");
  const Tensor& r = ctx.input(0);
  const Tensor& t = ctx.input(1);
  if (r.numel() != 1) ctx.Fail("learning rate R must be a scalar, got ", r.Describe());
  if (r.dtype() != DataType::kFloat && r.dtype() != DataType::kDouble)
    ctx.Fail("learning rate R must be float or double, got ", DataTypeName(r.dtype()));
  if (t.numel() != 1) ctx.Fail("update count T must be a scalar, got ", t.Describe());
  if (t.dtype() != DataType::kInt64) ctx.Fail("update count T must be int64, got ", DataTypeName(t.dtype()));
  a.r = r.GetAsDouble(0);
  a.t = t.GetAsInt64(0);
  size_t rest = ctx.num_inputs() - 2;
  if (rest % groups != 0)
    ctx.Fail("expected R, T and ", groups, " equally sized groups of tensors, got ", ctx.num_inputs(), " inputs");
  a.n = rest / groups;
  if (ctx.num_outputs() > out_groups * a.n)
    ctx.Fail("expected at most ", out_groups * a.n, " outputs for ", a.n, " optimized tensors, got ",
             ctx.num_outputs());
  for (size_t i = 0; i < a.n; ++i) {
    const Tensor& x = ctx.input(2 + i);
    if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kDouble)
      ctx.Fail("optimized tensor ", i, " must be float or double, got ", DataTypeName(x.dtype()));
    for (size_t g = 1; g < groups; ++g) {
      const Tensor& s = ctx.input(2 + g * a.n + i);
      if (s.dtype() != x.dtype())
        ctx.Fail("input ", 2 + g * a.n + i, " has type ", DataTypeName(s.dtype()), ", expected ",
                 DataTypeName(x.dtype()), " like its optimized tensor");
      if (s.shape() != x.shape())
        ctx.Fail("input ", 2 + g * a.n + i, " has shape ", ShapeToString(s.shape()), ", expected ",
                 ShapeToString(x.shape()), " like its optimized tensor");
    }
  }
  return a;
}

// Output o for optimized tensor i when requested, else nullptr.
template <typename T>
T* OutputOrNull(KernelContext& ctx, size_t o, const Tensor& like) {
  if (o >= ctx.num_outputs() || !ctx.output_requested(o)) return nullptr;
  return ctx.allocate_output(o, like.dtype(), like.shape()).data<T>();
}

template <typename T>
void DispatchOptimizerType(DataType dt, const KernelContext& ctx, T&& fn) {
  switch (dt) {
    case DataType::kFloat: fn.template operator()<float>(); return;
    case DataType::kDouble: fn.template operator()<double>(); return;
    default: ctx.Fail("element type ", DataTypeName(dt), " is not supported (expected float or double)");
  }
}

class Adagrad final : public OpKernel {
 public:
  explicit Adagrad(const KernelInfo& info)
      : decay_(info.attr_float("decay_factor", 0.0f)),
        epsilon_(info.attr_float("epsilon", 0.0f)),
        norm_(info.attr_float("norm_coefficient", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 3, 2);
    const double r = a.r / (1.0 + static_cast<double>(a.t) * decay_);
    for (size_t i = 0; i < a.n; ++i) {
      const Tensor& x = ctx.input(2 + i);
      DispatchOptimizerType(x.dtype(), ctx, [&]<typename T>() {
        const T* xp = x.data<T>();
        const T* gp = ctx.input(2 + a.n + i).data<T>();
        const T* hp = ctx.input(2 + 2 * a.n + i).data<T>();
        T* xo = OutputOrNull<T>(ctx, i, x);
        T* ho = OutputOrNull<T>(ctx, a.n + i, x);
        const T norm = static_cast<T>(norm_), eps = static_cast<T>(epsilon_), rr = static_cast<T>(r);
        for (int64_t k = 0; k < x.numel(); ++k) {
          T g = norm * xp[k] + gp[k];
          T h = hp[k] + g * g;
          if (xo) xo[k] = xp[k] - rr * g / (std::sqrt(h) + eps);
          if (ho) ho[k] = h;
        }
      });
    }
  }

 private:
  float decay_, epsilon_, norm_;
};

class Adam final : public OpKernel {
 public:
  explicit Adam(const KernelInfo& info)
      : alpha_(info.attr_float("alpha", 0.9f)),
        beta_(info.attr_float("beta", 0.999f)),
        epsilon_(info.attr_float("epsilon", 0.0f)),
        norm_(info.attr_float("norm_coefficient", 0.0f)),
        norm_post_(info.attr_float("norm_coefficient_post", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 4, 3);
    double r_adj = a.r;
    if (a.t > 0) {
      double td = static_cast<double>(a.t);
      r_adj = a.r * std::sqrt(1.0 - std::pow(static_cast<double>(beta_), td)) /
              (1.0 - std::pow(static_cast<double>(alpha_), td));
    }
    for (size_t i = 0; i < a.n; ++i) {
      const Tensor& x = ctx.input(2 + i);
      DispatchOptimizerType(x.dtype(), ctx, [&]<typename T>() {
        const T* xp = x.data<T>();
        const T* gp = ctx.input(2 + a.n + i).data<T>();
        const T* vp = ctx.input(2 + 2 * a.n + i).data<T>();
        const T* hp = ctx.input(2 + 3 * a.n + i).data<T>();
        T* xo = OutputOrNull<T>(ctx, i, x);
        T* vo = OutputOrNull<T>(ctx, a.n + i, x);
        T* ho = OutputOrNull<T>(ctx, 2 * a.n + i, x);
        const T alpha = static_cast<T>(alpha_), beta = static_cast<T>(beta_), eps = static_cast<T>(epsilon_);
        const T norm = static_cast<T>(norm_), post = static_cast<T>(norm_post_), rr = static_cast<T>(r_adj);
        for (int64_t k = 0; k < x.numel(); ++k) {
          T g = norm * xp[k] + gp[k];
          T v = alpha * vp[k] + (T(1) - alpha) * g;
          T h = beta * hp[k] + (T(1) - beta) * g * g;
          T xn = xp[k] - rr * v / (std::sqrt(h) + eps);
          if (xo) xo[k] = (T(1) - post) * xn;
          if (vo) vo[k] = v;
          if (ho) ho[k] = h;
        }
      });
    }
  }

 private:
  float alpha_, beta_, epsilon_, norm_, norm_post_;
};

class Momentum final : public OpKernel {
 public:
  explicit Momentum(const KernelInfo& info)
      : alpha_(info.attr_float("alpha")), beta_(info.attr_float("beta")), norm_(info.attr_float("norm_coefficient")) {
    std::string mode = info.attr_string("mode");
    if (mode == "nesterov")
      nesterov_ = true;
    else if (mode != "standard")
      info.Fail("mode must be 'standard' or 'nesterov', got '", mode, "'");
  }

  void Compute(KernelContext& ctx) const override {
    OptimizerArgs a = ReadOptimizerArgs(ctx, 3, 2);
    const double beta_adj = a.t > 0 ? beta_ : 1.0;
    for (size_t i = 0; i < a.n; ++i) {
      const Tensor& x = ctx.input(2 + i);
      DispatchOptimizerType(x.dtype(), ctx, [&]<typename T>() {
        const T* xp = x.data<T>();
        const T* gp = ctx.input(2 + a.n + i).data<T>();
        const T* vp = ctx.input(2 + 2 * a.n + i).data<T>();
        T* xo = OutputOrNull<T>(ctx, i, x);
        T* vo = OutputOrNull<T>(ctx, a.n + i, x);
        const T alpha = static_cast<T>(alpha_), beta = static_cast<T>(beta_adj), norm = static_cast<T>(norm_);
        const T rr = static_cast<T>(a.r);
        for (int64_t k = 0; k < x.numel(); ++k) {
          T g = norm * xp[k] + gp[k];
          T v = alpha * vp[k] + beta * g;
          T xn = nesterov_ ? xp[k] - rr * (g + alpha * v) : xp[k] - rr * v;
          if (xo) xo[k] = xn;
          if (vo) vo[k] = v;
        }
      });
    }
  }

 private:
  float alpha_, beta_, norm_;
  bool nesterov_ = false;
};

}  // namespace

std::vector<KernelRow> TrainingKernels() {
  const std::vector<DataType> r_types = {DataType::kFloat, DataType::kDouble};
  return {
      {kTrainingDomain, "Adagrad", 1, 1, r_types, Make<Adagrad>()},
      {kTrainingDomain, "Adam", 1, 1, r_types, Make<Adam>()},
      {kTrainingDomain, "Momentum", 1, 1, r_types, Make<Momentum>()},
  };
}

}  // namespace tessera::cpu
