// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//
// Both view the scores as [N, C, D] (D = d1*...*dk, 1 without extra dims) and
// the targets as [N, D]. SoftmaxCrossEntropyLoss is log-softmax over C followed
// by the same weighted gather and reduction as NegativeLogLikelihoodLoss.
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

enum class LossReduction { kNone, kSum, kMean };

LossReduction ParseReduction(const KernelInfo& info) {
  std::string r = info.attr_string("reduction", "mean");
  if (r == "none") return LossReduction::kNone;
  if (r == "sum") return LossReduction::kSum;
  if (r == "mean") return LossReduction::kMean;
  info.Fail("reduction must be 'none', 'sum' or 'mean', got '", r, "'");
}

struct LossGeometry {
  int64_t n = 0, c = 0, d = 1;
  Shape loss_shape;  // [N, d1, ..., dk]
};

LossGeometry CheckShapes(const KernelContext& ctx, const Tensor& scores, const Tensor& target,
                         const Tensor* weight) {
  if (scores.rank() < 2) ctx.Fail("input must have shape [N, C, d1, ...], got ", ShapeToString(scores.shape()));
  LossGeometry g;
  g.n = scores.dim(0);
  g.c = scores.dim(1);
  g.d = SizeFromDim(scores.shape(), 2);
  g.loss_shape.push_back(g.n);
  for (int64_t i = 2; i < scores.rank(); ++i) g.loss_shape.push_back(scores.dim(i));
  if (target.shape() != g.loss_shape)
    ctx.Fail("target shape ", ShapeToString(target.shape()), " does not match input shape ",
             ShapeToString(scores.shape()), " (expected ", ShapeToString(g.loss_shape), ")");
  if (target.dtype() != DataType::kInt32 && target.dtype() != DataType::kInt64)
    ctx.Fail("target must be int32 or int64, got ", DataTypeName(target.dtype()));
  if (weight) {
    if (weight->rank() != 1 || weight->dim(0) != g.c)
      ctx.Fail("weight must have shape [", g.c, "], got ", ShapeToString(weight->shape()));
    if (weight->dtype() != scores.dtype()) ctx.Fail("weight type must match the input type");
  }
  return g;
}

// Inputs 0-2 of both losses: the scores, the class targets and the
// optional per-class weights, checked against each other.
struct LossInputs {
  const Tensor& scores;
  const Tensor& target;
  const Tensor* weight;
  LossGeometry g;
};

LossInputs ReadInputs(const KernelContext& ctx) {
  const Tensor& scores = ctx.input(0);
  const Tensor& target = ctx.input(1);
  const Tensor* weight = ctx.optional_input(2);
  return {scores, target, weight, CheckShapes(ctx, scores, target, weight)};
}

// The shared tail: gathers -logp[n, t, d] * w[t], then reduces into output 0.
// logp(n, c, d) yields the log-probability as double.
template <typename T, typename LogP>
void NllCore(KernelContext& ctx, const LossInputs& in, std::optional<int64_t> ignore_index, LossReduction reduction,
             LogP&& logp) {
  const LossGeometry& g = in.g;
  const Tensor& target = in.target;
  int64_t count = g.n * g.d;
  std::vector<double> loss(static_cast<size_t>(count));
  double weight_sum = 0;
  const T* w = in.weight ? in.weight->data<T>() : nullptr;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t d = 0; d < g.d; ++d) {
      int64_t i = n * g.d + d;
      int64_t t = target.GetAsInt64(i);
      if (ignore_index && t == *ignore_index) {
        loss[i] = 0;
        continue;
      }
      if (t < 0 || t >= g.c) ctx.Fail("target value ", t, " is out of range [0, ", g.c, ")");
      double wt = w ? static_cast<double>(Load(w[t])) : 1.0;
      loss[i] = -logp(n, t, d) * wt;
      weight_sum += wt;
    }
  }
  if (reduction == LossReduction::kNone) {
    Tensor& out = ctx.allocate_output(0, DataTypeOf<T>::value, g.loss_shape);
    T* o = out.data<T>();
    for (int64_t i = 0; i < count; ++i) o[i] = StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(loss[i]));
    return;
  }
  double sum = 0;
  for (double v : loss) sum += v;
  double result = reduction == LossReduction::kSum ? sum : sum / weight_sum;
  Tensor& out = ctx.allocate_output(0, DataTypeOf<T>::value, {});
  out.data<T>()[0] = StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(result));
}

// The attributes both class-index losses read: reduction and ignore_index.
class ClassLossKernel : public OpKernel {
 public:
  explicit ClassLossKernel(const KernelInfo& info) : reduction_(ParseReduction(info)) {
    if (info.has_attr("ignore_index")) ignore_index_ = info.attr_int("ignore_index");
  }

 protected:
  template <typename T, typename LogP>
  void Reduce(KernelContext& ctx, const LossInputs& in, LogP&& logp) const {
    NllCore<T>(ctx, in, ignore_index_, reduction_, std::forward<LogP>(logp));
  }

 private:
  LossReduction reduction_;
  std::optional<int64_t> ignore_index_;
};

class NegativeLogLikelihoodLoss final : public ClassLossKernel {
 public:
  using ClassLossKernel::ClassLossKernel;

  void Compute(KernelContext& ctx) const override {
    const LossInputs in = ReadInputs(ctx);
    DispatchFloat(in.scores.dtype(), ctx, [&]<typename T>() {
      const T* x = in.scores.data<T>();
      Reduce<T>(ctx, in, [&](int64_t n, int64_t c, int64_t d) {
        return static_cast<double>(Load(x[(n * in.g.c + c) * in.g.d + d]));
      });
    });
  }
};

class SoftmaxCrossEntropyLoss final : public ClassLossKernel {
 public:
  using ClassLossKernel::ClassLossKernel;

  void Compute(KernelContext& ctx) const override {
    const LossInputs in = ReadInputs(ctx);
    const Tensor& scores = in.scores;
    const LossGeometry& g = in.g;
    DispatchFloat(scores.dtype(), ctx, [&]<typename T>() {
      const T* x = scores.data<T>();
      // log_softmax over the class axis, kept in double.
      std::vector<double> lp(static_cast<size_t>(scores.numel()));
      for (int64_t n = 0; n < g.n; ++n) {
        for (int64_t d = 0; d < g.d; ++d) {
          int64_t base = n * g.c * g.d + d;
          double mx = -std::numeric_limits<double>::infinity();
          for (int64_t c = 0; c < g.c; ++c) mx = std::max(mx, static_cast<double>(Load(x[base + c * g.d])));
          double sum = 0;
          for (int64_t c = 0; c < g.c; ++c) sum += std::exp(static_cast<double>(Load(x[base + c * g.d])) - mx);
          double lse = mx + std::log(sum);
          for (int64_t c = 0; c < g.c; ++c)
            lp[base + c * g.d] = static_cast<double>(Load(x[base + c * g.d])) - lse;
        }
      }
      Reduce<T>(ctx, in, [&](int64_t n, int64_t c, int64_t d) { return lp[(n * g.c + c) * g.d + d]; });
      if (ctx.output_requested(1)) {
        Tensor& out = ctx.allocate_output(1, scores.dtype(), scores.shape());
        T* o = out.data<T>();
        for (size_t i = 0; i < lp.size(); ++i) o[i] = StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(lp[i]));
      }
    });
  }
};

}  // namespace

std::vector<KernelRow> LossKernels() {
  return {
      {"ai.onnx", "NegativeLogLikelihoodLoss", 12, 12, types::Floats(), Make<NegativeLogLikelihoodLoss>()},
      {"ai.onnx", "NegativeLogLikelihoodLoss", 13, 21, types::Floats(), Make<NegativeLogLikelihoodLoss>()},
      {"ai.onnx", "NegativeLogLikelihoodLoss", 22, kMaxOnnxOpset, types::Floats(),
       Make<NegativeLogLikelihoodLoss>()},
      {"ai.onnx", "SoftmaxCrossEntropyLoss", 12, 12, types::Floats(), Make<SoftmaxCrossEntropyLoss>()},
      {"ai.onnx", "SoftmaxCrossEntropyLoss", 13, kMaxOnnxOpset, types::Floats(), Make<SoftmaxCrossEntropyLoss>()},
  };
}

}  // namespace tessera::cpu
