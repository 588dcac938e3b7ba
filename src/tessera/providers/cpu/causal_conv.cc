// CausalConvWithState (opset 27): a depthwise causal 1-D convolution that
// carries its last k-1 inputs from one call to the next (a decoder's
// streaming convolution).
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

// Depthwise causal 1-D convolution over concat(past_state or zeros, input),
// with an optional fused SiLU; also returns the last k-1 values of that
// concatenated sequence as the next state.
class CausalConvWithState final : public OpKernel {
 public:
  explicit CausalConvWithState(const KernelInfo& info) {
    std::string act = info.attr_string("activation", "none");
    if (act == "silu" || act == "swish") silu_ = true;
    else if (act != "none" && !act.empty()) info.Fail("unknown activation '", act, "' (expected silu, swish or none)");
  }
  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor* b = ctx.optional_input(2);
    const Tensor* past = ctx.optional_input(3);
    if (x.rank() != 3) ctx.Fail("input must have shape (batch, channels, length), got ", x.Describe());
    int64_t nb = x.dim(0), ch = x.dim(1), len = x.dim(2);
    if (w.rank() != 3 || w.dim(0) != ch || w.dim(1) != 1 || w.dim(2) < 1)
      ctx.Fail("weight must have shape (", ch, ", 1, k) with k >= 1, got ", w.Describe());
    CheckSameType(x, w, "weight", ctx);
    int64_t k = w.dim(2), keep = k - 1;
    if (b) {
      CheckSameType(x, *b, "bias", ctx);
      CheckBias(*b, ch, ctx);
    }
    if (past) {
      CheckSameType(x, *past, "past_state", ctx);
      if (past->shape() != Shape{nb, ch, keep})
        ctx.Fail("past_state must have shape ", ShapeToString({nb, ch, keep}), ", got ", past->Describe());
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    bool want_state = ctx.output_requested(1);
    Tensor* st = want_state ? &ctx.allocate_output(1, x.dtype(), {nb, ch, keep}) : nullptr;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* xp = x.data<T>();
      const T* wp = w.data<T>();
      const T* pp = past ? past->data<T>() : nullptr;
      T* yp = y.data<T>();
      T* sp = st ? st->data<T>() : nullptr;
      ParallelFor(ctx.thread_pool(), nb * ch, 4, [&](int64_t r0, int64_t r1) {
        std::vector<F> seq(static_cast<size_t>(keep + len));
        for (int64_t r = r0; r < r1; ++r) {
          int64_t c = r % ch;
          for (int64_t i = 0; i < keep; ++i) seq[static_cast<size_t>(i)] = pp ? static_cast<F>(Load(pp[r * keep + i])) : F{};
          for (int64_t i = 0; i < len; ++i) seq[static_cast<size_t>(keep + i)] = static_cast<F>(Load(xp[r * len + i]));
          F bias = b ? static_cast<F>(Load(b->data<T>()[c])) : F{};
          for (int64_t t = 0; t < len; ++t) {
            F acc = bias;
            for (int64_t j = 0; j < k; ++j) acc += static_cast<F>(Load(wp[c * k + j])) * seq[static_cast<size_t>(t + j)];
            if (silu_) acc = acc / (F{1} + std::exp(-acc));
            yp[r * len + t] = StoreAs<T>(acc);
          }
          if (sp)
            for (int64_t i = 0; i < keep; ++i) sp[r * keep + i] = StoreAs<T>(seq[static_cast<size_t>(len + i)]);
        }
      });
    });
  }

 private:
  bool silu_ = false;
};

}  // namespace

std::vector<KernelRow> CausalConvKernels() {
  return {
      {"ai.onnx", "CausalConvWithState", 27, kMaxOnnxOpset,
       {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}, Make<CausalConvWithState>()},
  };
}

}  // namespace tessera::cpu
