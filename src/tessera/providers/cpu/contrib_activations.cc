// com.microsoft activations with a bias folded in, as ONNX Runtime's
// transformer optimizer writes them (its ContribOperators reference):
//   Gelu(X)                  erf form
//   BiasGelu(A, B)           Gelu(A + B)
//   FastGelu(X [, bias])     tanh form of Gelu(X + bias)
//   QuickGelu(X)             X * sigmoid(alpha X), alpha = 1.702 by default
//   BiasAdd(X, bias, skip)   X + bias + skip
//   BiasSplitGelu(X, bias)   left * Gelu(right), the halves of X + bias
// A bias is a vector over the last axis. The sum is rounded to the element
// type before the activation, as the unfused Add would store it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/activation_impl.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/vector_math.h"

namespace tessera::cpu {
namespace {

// Checks that `bias` is a vector of X's last dimension and X's element type.
void CheckLastAxisBias(const Tensor& x, const Tensor& bias, const KernelContext& ctx, const char* what) {
  if (x.rank() == 0) ctx.Fail("the input must have rank >= 1, got a scalar");
  if (bias.dtype() != x.dtype())
    ctx.Fail(what, " must have the input's element type ", DataTypeName(x.dtype()), ", got ", bias.Describe());
  if (bias.rank() != 1 || bias.shape()[0] != x.shape().back())
    ctx.Fail(what, " must be a vector of the input's last dimension ", x.shape().back(), ", got ", bias.Describe());
}

enum class GeluForm { kErf, kTanh, kQuick };

// One class for the Gelu family: they differ in the formula and in whether
// a bias input exists (kBiasInput: 0 none, 1 optional, 2 required).
template <GeluForm kForm, int kBiasInput>
class BiasedGelu final : public OpKernel {
 public:
  explicit BiasedGelu(const KernelInfo& info) {
    if constexpr (kForm == GeluForm::kQuick) alpha_ = info.attr_float("alpha", 1.702f);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor* bias = nullptr;
    if constexpr (kBiasInput > 0) {
      if (ctx.has_input(1)) bias = &ctx.input(1);
      else if (kBiasInput == 2) ctx.Fail("input B (the bias) is required");
    }
    if (bias) CheckLastAxisBias(x, *bias, ctx, "the bias");
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.numel() == 0) return;
    const int64_t d = x.shape().empty() ? 1 : x.shape().back();
    if (x.dtype() == DataType::kFloat) {
      RunFloat(x.data<float>(), bias ? bias->data<float>() : nullptr, d, x.numel(), y.data<float>(), ctx);
      return;
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      const T* bp = bias ? bias->data<T>() : nullptr;
      T* yp = y.data<T>();
      using C = typename cpu::Compute<T>::type;
      const float alpha = alpha_;
      ParallelFor(ctx.thread_pool(), x.numel(), 1 << 13, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          C v = Load(xp[i]);
          if (bp) v = Load(StoreAs<T>(v + Load(bp[i % d])));
          C r;
          if constexpr (kForm == GeluForm::kErf) r = GeluErf(v);
          else if constexpr (kForm == GeluForm::kTanh) r = GeluTanh(v);
          else r = v * Logistic(static_cast<C>(alpha) * v);
          yp[i] = StoreAs<T>(r);
        }
      });
    });
  }

 private:
  void RunFloat(const float* x, const float* bias, int64_t d, int64_t n, float* y, KernelContext& ctx) const {
    // Rows of the last axis, so the bias lines up with each block.
    const int64_t rows = n / d;
    const float alpha = alpha_;
    ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(d, 1)),
                [&](int64_t lo, int64_t hi) {
                  std::vector<float> t(kForm == GeluForm::kQuick ? static_cast<size_t>(d) : 0);
                  for (int64_t r = lo; r < hi; ++r) {
                    const float* xr = x + r * d;
                    float* yr = y + r * d;
                    if (bias) {
                      for (int64_t j = 0; j < d; ++j) yr[j] = xr[j] + bias[j];
                    } else {
                      std::copy(xr, xr + d, yr);
                    }
                    if constexpr (kForm == GeluForm::kErf) {
                      GeluErfInPlace(yr, d);
                    } else if constexpr (kForm == GeluForm::kTanh) {
                      GeluTanhInPlace(yr, d);
                    } else {
                      for (int64_t j = 0; j < d; ++j) t[static_cast<size_t>(j)] = alpha * yr[j];
                      SigmoidInPlace(t.data(), d);
                      for (int64_t j = 0; j < d; ++j) yr[j] *= t[static_cast<size_t>(j)];
                    }
                  }
                });
  }

  float alpha_ = 1.702f;
};

// ---- BiasAdd: X + bias + skip ------------------------------------------------

class BiasAdd final : public OpKernel {
 public:
  explicit BiasAdd(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    const Tensor& skip = ctx.input(2);
    CheckLastAxisBias(x, bias, ctx, "bias");
    if (skip.dtype() != x.dtype() || skip.shape() != x.shape())
      ctx.Fail("skip must have the input's type and shape ", x.Describe(), ", got ", skip.Describe());
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    if (x.numel() == 0) return;
    const int64_t d = x.shape().back();
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      const T* bp = bias.data<T>();
      const T* sp = skip.data<T>();
      T* yp = y.data<T>();
      ParallelFor(ctx.thread_pool(), x.numel(), 1 << 14, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          // (X + bias) rounded, then + skip: the order of the unfused graph.
          auto xb = Load(StoreAs<T>(Load(xp[i]) + Load(bp[i % d])));
          yp[i] = StoreAs<T>(xb + Load(sp[i]));
        }
      });
    });
  }
};

// ---- BiasSplitGelu: (X + bias) split in halves along the last axis -------------

class BiasSplitGelu final : public OpKernel {
 public:
  explicit BiasSplitGelu(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    CheckLastAxisBias(x, bias, ctx, "bias");
    const int64_t d = x.shape().back();
    if (d % 2 != 0) ctx.Fail("the last dimension of X must be even to split in halves, got ", x.Describe());
    Shape ys = x.shape();
    ys.back() = d / 2;
    Tensor& y = ctx.allocate_output(0, x.dtype(), ys);
    if (y.numel() == 0) return;
    const int64_t half = d / 2;
    const int64_t rows = x.numel() / d;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      const T* bp = bias.data<T>();
      T* yp = y.data<T>();
      using C = typename cpu::Compute<T>::type;
      ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / d), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          const T* xr = xp + r * d;
          T* yr = yp + r * half;
          for (int64_t j = 0; j < half; ++j) {
            C left = Load(StoreAs<T>(Load(xr[j]) + Load(bp[j])));
            C right = Load(StoreAs<T>(Load(xr[half + j]) + Load(bp[half + j])));
            yr[j] = StoreAs<T>(left * Load(StoreAs<T>(GeluErf(right))));
          }
        }
      });
    });
  }
};

}  // namespace

std::vector<KernelRow> MicrosoftActivationKernels() {
  const std::vector<DataType> floats = types::Floats();
  return {
      {kMicrosoftDomain, "Gelu", 1, 1, floats, Make<BiasedGelu<GeluForm::kErf, 0>>()},
      {kMicrosoftDomain, "BiasGelu", 1, 1, floats, Make<BiasedGelu<GeluForm::kErf, 2>>()},
      {kMicrosoftDomain, "FastGelu", 1, 1, floats, Make<BiasedGelu<GeluForm::kTanh, 1>>()},
      {kMicrosoftDomain, "QuickGelu", 1, 1, floats, Make<BiasedGelu<GeluForm::kQuick, 0>>()},
      {kMicrosoftDomain, "BiasAdd", 1, 1, floats, Make<BiasAdd>()},
      {kMicrosoftDomain, "BiasSplitGelu", 1, 1, floats, Make<BiasSplitGelu>()},
  };
}

}  // namespace tessera::cpu
