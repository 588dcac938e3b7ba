// Newer attention-like ops: SwiGLU (opset 28), LinearAttention (opset 27) and
// the experimental ai.onnx.preview FlexAttention with score/prob modifier
// subgraphs.
#include <cmath>
#include <limits>
#include <memory>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// A float-typed tensor viewed as `Acc` values: borrows the data when the
// element type already is Acc, otherwise converts once.
template <typename Acc>
class AccView {
 public:
  AccView(const Tensor& t, const KernelContext& ctx, const char* what) {
    if (t.dtype() == DataTypeOf<Acc>::value) {
      ptr_ = t.data<Acc>();
      return;
    }
    copy_.resize(static_cast<size_t>(t.numel()));
    switch (t.dtype()) {
      case DataType::kFloat: Convert(t.data<float>(), t.numel()); break;
      case DataType::kDouble: Convert(t.data<double>(), t.numel()); break;
      case DataType::kFloat16: Convert(t.data<Float16>(), t.numel()); break;
      case DataType::kBFloat16: Convert(t.data<BFloat16>(), t.numel()); break;
      default: ctx.Fail(what, " must be a float tensor, got ", t.Describe());
    }
    ptr_ = copy_.data();
  }
  const Acc* data() const { return ptr_; }
  Acc operator[](int64_t i) const { return ptr_[i]; }

 private:
  template <typename T>
  void Convert(const T* src, int64_t n) {
    for (int64_t i = 0; i < n; ++i) copy_[static_cast<size_t>(i)] = static_cast<Acc>(Load(src[i]));
  }
  const Acc* ptr_ = nullptr;
  std::vector<Acc> copy_;
};

// Writes Acc values into a float tensor of any float element type.
template <typename Acc>
void StoreFloats(const std::vector<Acc>& src, Tensor& dst, const KernelContext& ctx) {
  DispatchFloat(dst.dtype(), ctx, [&]<typename T>() {
    T* out = dst.data<T>();
    for (int64_t i = 0; i < dst.numel(); ++i) out[i] = StoreAs<T>(src[static_cast<size_t>(i)]);
  });
}

bool IsFloatKind(DataType dt) {
  return dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kFloat16 || dt == DataType::kBFloat16;
}

// ---- SwiGLU ---------------------------------------------------------------------
// Y = A * sigmoid(alpha * A) * B, shapes identical (no broadcasting).
class SwiGLU final : public OpKernel {
 public:
  explicit SwiGLU(const KernelInfo& info) : alpha_(info.attr_float("alpha", 1.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype())
      ctx.Fail("A and B must have the same element type, got ", DataTypeName(a.dtype()), " and ",
               DataTypeName(b.dtype()));
    if (a.shape() != b.shape())
      ctx.Fail("A and B must have identical shapes (no broadcasting), got ", ShapeToString(a.shape()), " and ",
               ShapeToString(b.shape()));
    Tensor& y = ctx.allocate_output(0, a.dtype(), a.shape());
    DispatchFloat(a.dtype(), ctx, [&]<typename T>() {
      using C = typename cpu::Compute<T>::type;
      const T* ap = a.data<T>();
      const T* bp = b.data<T>();
      T* yp = y.data<T>();
      const C alpha = static_cast<C>(alpha_);
      ParallelFor(ctx.thread_pool(), a.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          C x = Load(ap[i]);
          C sig = C(1) / (C(1) + std::exp(-alpha * x));
          yp[i] = StoreAs<T>(x * sig * static_cast<C>(Load(bp[i])));
        }
      });
    });
  }

 private:
  float alpha_;
};

// ---- LinearAttention --------------------------------------------------------------
enum class UpdateRule { kLinear, kGated, kDelta, kGatedDelta };

class LinearAttention final : public OpKernel {
 public:
  explicit LinearAttention(const KernelInfo& info) {
    q_heads_ = info.attr_int("q_num_heads");
    kv_heads_ = info.attr_int("kv_num_heads");
    if (q_heads_ <= 0 || kv_heads_ <= 0)
      info.Fail("q_num_heads and kv_num_heads must be positive, got ", q_heads_, " and ", kv_heads_);
    if (q_heads_ % kv_heads_ != 0)
      info.Fail("q_num_heads (", q_heads_, ") must be a multiple of kv_num_heads (", kv_heads_, ")");
    scale_ = info.attr_float("scale", 0.0f);
    std::string rule = info.attr_string("update_rule", "gated_delta");
    if (rule == "linear")
      rule_ = UpdateRule::kLinear;
    else if (rule == "gated")
      rule_ = UpdateRule::kGated;
    else if (rule == "delta")
      rule_ = UpdateRule::kDelta;
    else if (rule == "gated_delta")
      rule_ = UpdateRule::kGatedDelta;
    else
      info.Fail("update_rule must be one of linear, gated, delta, gated_delta; got '", rule, "'");
    int64_t chunk = info.attr_int("chunk_size", 64);
    if (chunk <= 0) info.Fail("chunk_size must be positive, got ", chunk);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const bool gated = rule_ == UpdateRule::kGated || rule_ == UpdateRule::kGatedDelta;
    const bool delta = rule_ == UpdateRule::kDelta || rule_ == UpdateRule::kGatedDelta;
    for (const Tensor* t : {&q, &k, &v}) {
      if (t->rank() != 3) ctx.Fail("query, key and value must be 3D (B, T, H*D), got ", t->Describe());
      if (!IsFloatKind(t->dtype())) ctx.Fail("query, key and value must be float tensors, got ", t->Describe());
    }
    if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
      ctx.Fail("query, key and value must share an element type, got ", q.Describe(), ", ", k.Describe(), ", ",
               v.Describe());
    const int64_t B = q.dim(0), T = q.dim(1);
    if (k.dim(0) != B || v.dim(0) != B || k.dim(1) != T || v.dim(1) != T)
      ctx.Fail("query ", q.Describe(), ", key ", k.Describe(), " and value ", v.Describe(),
               " must agree on batch and sequence length");
    if (q.dim(2) % q_heads_ != 0)
      ctx.Fail("query's last dim ", q.dim(2), " is not divisible by q_num_heads ", q_heads_);
    const int64_t dk = q.dim(2) / q_heads_;
    if (k.dim(2) != kv_heads_ * dk)
      ctx.Fail("key's last dim must be kv_num_heads * d_k = ", kv_heads_ * dk, ", got ", k.dim(2));
    if (v.dim(2) % kv_heads_ != 0)
      ctx.Fail("value's last dim ", v.dim(2), " is not divisible by kv_num_heads ", kv_heads_);
    const int64_t dv = v.dim(2) / kv_heads_;

    const Tensor* past = ctx.optional_input(3);
    if (past) {
      Shape want = {B, kv_heads_, dk, dv};
      if (past->shape() != want)
        ctx.Fail("past_state must have shape ", ShapeToString(want), ", got ", past->Describe());
      if (!IsFloatKind(past->dtype())) ctx.Fail("past_state must be a float tensor, got ", past->Describe());
    }
    const Tensor* decay = ctx.optional_input(4);
    bool per_key_decay = false;  // (B, T, H_kv * d_k) rather than (B, T, H_kv)
    if (gated) {
      if (!decay) ctx.Fail("update_rule ", RuleName(), " requires the decay input");
      if (decay->rank() != 3 || decay->dim(0) != B || decay->dim(1) != T ||
          (decay->dim(2) != kv_heads_ * dk && decay->dim(2) != kv_heads_))
        ctx.Fail("decay must have shape (B, T, kv_num_heads * d_k) = ", ShapeToString({B, T, kv_heads_ * dk}),
                 " or (B, T, kv_num_heads) = ", ShapeToString({B, T, kv_heads_}), ", got ", decay->Describe());
      per_key_decay = decay->dim(2) == kv_heads_ * dk;
    }
    const Tensor* beta = ctx.optional_input(5);
    int64_t beta_heads = 0;  // kv_num_heads or 1
    if (delta) {
      if (!beta) ctx.Fail("update_rule ", RuleName(), " requires the beta input");
      if (beta->rank() != 3 || beta->dim(0) != B || beta->dim(1) != T ||
          (beta->dim(2) != kv_heads_ && beta->dim(2) != 1))
        ctx.Fail("beta must have shape (B, T, kv_num_heads) = ", ShapeToString({B, T, kv_heads_}),
                 " or (B, T, 1), got ", beta->Describe());
      beta_heads = beta->dim(2);
    }

    AccView<float> qv(q, ctx, "query"), kvw(k, ctx, "key"), vv(v, ctx, "value");
    std::unique_ptr<AccView<float>> pv, dv_view, bv;
    if (past) pv = std::make_unique<AccView<float>>(*past, ctx, "past_state");
    if (gated) dv_view = std::make_unique<AccView<float>>(*decay, ctx, "decay");
    if (delta) bv = std::make_unique<AccView<float>>(*beta, ctx, "beta");

    const float scale = scale_ != 0.0f ? scale_ : dk > 0 ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
    const int64_t group = q_heads_ / kv_heads_;
    std::vector<float> out(static_cast<size_t>(B * T * q_heads_ * dv));
    std::vector<float> state(static_cast<size_t>(B * kv_heads_ * dk * dv), 0.0f);
    if (pv) std::copy(pv->data(), pv->data() + state.size(), state.begin());

    ParallelFor(ctx.thread_pool(), B * kv_heads_, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> retrieved(static_cast<size_t>(dv));
      for (int64_t bh = begin; bh < end; ++bh) {
        const int64_t b = bh / kv_heads_, h = bh % kv_heads_;
        float* S = state.data() + bh * dk * dv;
        for (int64_t t = 0; t < T; ++t) {
          const int64_t bt = b * T + t;
          const float* kt = kvw.data() + bt * kv_heads_ * dk + h * dk;
          const float* vt = vv.data() + bt * kv_heads_ * dv + h * dv;
          if (gated) {
            const float* g = dv_view->data() + bt * decay->dim(2) + (per_key_decay ? h * dk : h);
            for (int64_t i = 0; i < dk; ++i) {
              float e = std::exp(per_key_decay ? g[i] : g[0]);
              float* row = S + i * dv;
              for (int64_t j = 0; j < dv; ++j) row[j] *= e;
            }
          }
          if (delta) {
            float bt_rate = (*bv)[bt * beta_heads + (beta_heads == 1 ? 0 : h)];
            std::fill(retrieved.begin(), retrieved.end(), 0.0f);
            for (int64_t i = 0; i < dk; ++i) {
              const float* row = S + i * dv;
              for (int64_t j = 0; j < dv; ++j) retrieved[static_cast<size_t>(j)] += row[j] * kt[i];
            }
            for (int64_t j = 0; j < dv; ++j)
              retrieved[static_cast<size_t>(j)] = bt_rate * (vt[j] - retrieved[static_cast<size_t>(j)]);
            for (int64_t i = 0; i < dk; ++i) {
              float* row = S + i * dv;
              for (int64_t j = 0; j < dv; ++j) row[j] += kt[i] * retrieved[static_cast<size_t>(j)];
            }
          } else {
            for (int64_t i = 0; i < dk; ++i) {
              float* row = S + i * dv;
              for (int64_t j = 0; j < dv; ++j) row[j] += kt[i] * vt[j];
            }
          }
          for (int64_t g = 0; g < group; ++g) {
            const int64_t hq = h * group + g;
            const float* qt = qv.data() + bt * q_heads_ * dk + hq * dk;
            float* o = out.data() + bt * q_heads_ * dv + hq * dv;
            for (int64_t j = 0; j < dv; ++j) o[j] = 0.0f;
            for (int64_t i = 0; i < dk; ++i) {
              const float* row = S + i * dv;
              for (int64_t j = 0; j < dv; ++j) o[j] += qt[i] * row[j];
            }
            for (int64_t j = 0; j < dv; ++j) o[j] *= scale;
          }
        }
      }
    });

    Tensor& y = ctx.allocate_output(0, q.dtype(), {B, T, q_heads_ * dv});
    StoreFloats(out, y, ctx);
    if (ctx.output_requested(1)) {
      Tensor& ps = ctx.allocate_output(1, past ? past->dtype() : q.dtype(), {B, kv_heads_, dk, dv});
      StoreFloats(state, ps, ctx);
    }
  }

 private:
  const char* RuleName() const {
    switch (rule_) {
      case UpdateRule::kLinear: return "'linear'";
      case UpdateRule::kGated: return "'gated'";
      case UpdateRule::kDelta: return "'delta'";
      default: return "'gated_delta'";
    }
  }
  int64_t q_heads_ = 0, kv_heads_ = 0;
  float scale_ = 0.0f;
  UpdateRule rule_ = UpdateRule::kGatedDelta;
};

// ---- FlexAttention (ai.onnx.preview) ---------------------------------------------
class FlexAttention final : public OpKernel {
 public:
  explicit FlexAttention(const KernelInfo& info) {
    if (info.has_attr("score_mod")) score_mod_ = info.attr_graph("score_mod");
    if (info.has_attr("prob_mod")) prob_mod_ = info.attr_graph("prob_mod");
    for (const auto& g : {score_mod_, prob_mod_}) {
      if (g && (g->inputs.size() != 1 || g->outputs.size() != 1))
        info.Fail("modifier subgraph '", g->name, "' must have exactly one input and one output, got ",
                  g->inputs.size(), " and ", g->outputs.size());
    }
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.0f);
    if (info.has_attr("softmax_precision")) {
      int64_t p = info.attr_int("softmax_precision");
      precision_ = static_cast<DataType>(p);
      if (!IsKnownDataType(static_cast<int32_t>(p)) || !IsFloatKind(precision_))
        info.Fail("softmax_precision must be float, double, float16 or bfloat16, got ", p);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    for (const Tensor* t : {&q, &k, &v}) {
      if (t->rank() != 4) ctx.Fail("Q, K and V must be rank-4, got ", t->Describe());
      if (!IsFloatKind(t->dtype())) ctx.Fail("Q, K and V must be float tensors, got ", t->Describe());
    }
    if (k.dtype() != q.dtype() || v.dtype() != q.dtype())
      ctx.Fail("Q, K and V must share an element type, got ", q.Describe(), ", ", k.Describe(), ", ", v.Describe());
    DataType prec = precision_;
    if (prec == DataType::kUndefined) prec = q.dtype() == DataType::kDouble ? DataType::kDouble : DataType::kFloat;
    if (prec == DataType::kDouble)
      Run<double>(ctx, q, k, v, prec);
    else
      Run<float>(ctx, q, k, v, prec);
  }

 private:
  template <typename Acc>
  void Run(KernelContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v, DataType prec) const {
    const int64_t B = q.dim(0), Hq = q.dim(1), L = q.dim(2), E = q.dim(3);
    const int64_t Hkv = k.dim(1), S = k.dim(2), Ev = v.dim(3);
    if (k.dim(0) != B || v.dim(0) != B) ctx.Fail("Q, K and V must share the batch size");
    if (k.dim(3) != E) ctx.Fail("K's head size ", k.dim(3), " differs from Q's ", E);
    if (v.dim(1) != Hkv || v.dim(2) != S)
      ctx.Fail("V ", v.Describe(), " must match K ", k.Describe(), " in heads and sequence length");
    if (Hkv <= 0 || Hq % Hkv != 0)
      ctx.Fail("Q's head count ", Hq, " must be a multiple of K/V's head count ", Hkv);
    const int64_t group = Hq / Hkv;
    const Acc scale = has_scale_ ? static_cast<Acc>(scale_)
                                 : static_cast<Acc>(1.0 / std::sqrt(static_cast<double>(E > 0 ? E : 1)));
    AccView<Acc> qv(q, ctx, "Q"), kv(k, ctx, "K"), vv(v, ctx, "V");
    const Shape score_shape = {B, Hq, L, S};
    std::vector<Acc> scores(static_cast<size_t>(B * Hq * L * S));
    // Runs head(bh, kvh) for each (batch, query head) bh over the pool; kvh
    // is the (batch, K/V head) that query head reads.
    auto for_each_head = [&](auto&& head) {
      ParallelFor(ctx.thread_pool(), B * Hq, 1, [&](int64_t begin, int64_t end) {
        for (int64_t bh = begin; bh < end; ++bh) head(bh, (bh / Hq) * Hkv + (bh % Hq) / group);
      });
    };

    for_each_head([&](int64_t bh, int64_t kvh) {
      const Acc* qp = qv.data() + bh * L * E;
      const Acc* kp = kv.data() + kvh * S * E;
      Acc* sp = scores.data() + bh * L * S;
      for (int64_t l = 0; l < L; ++l)
        for (int64_t s = 0; s < S; ++s) {
          Acc acc = 0;
          for (int64_t e = 0; e < E; ++e) acc += qp[l * E + e] * kp[s * E + e];
          sp[l * S + s] = acc * scale;
        }
    });
    if (score_mod_) ApplyModifier(ctx, *score_mod_, "score_mod", scores, score_shape, prec);
    else RoundTo(scores, prec);

    // Softmax over the last axis; a fully masked row (all -inf) yields zeros.
    const int64_t rows = B * Hq * L;
    ParallelFor(ctx.thread_pool(), rows, 64, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        Acc* row = scores.data() + r * S;
        Acc mx = -std::numeric_limits<Acc>::infinity();
        for (int64_t s = 0; s < S; ++s) mx = std::max(mx, row[s]);
        if (std::isinf(mx) && mx < 0) {
          std::fill(row, row + S, Acc(0));
          continue;
        }
        Acc sum = 0;
        for (int64_t s = 0; s < S; ++s) {
          row[s] = std::exp(row[s] - mx);
          sum += row[s];
        }
        for (int64_t s = 0; s < S; ++s) row[s] /= sum;
      }
    });
    if (prob_mod_) ApplyModifier(ctx, *prob_mod_, "prob_mod", scores, score_shape, prec);
    else RoundTo(scores, prec);

    std::vector<Acc> out(static_cast<size_t>(B * Hq * L * Ev));
    for_each_head([&](int64_t bh, int64_t kvh) {
      const Acc* pp = scores.data() + bh * L * S;
      const Acc* vp = vv.data() + kvh * S * Ev;
      Acc* op = out.data() + bh * L * Ev;
      for (int64_t l = 0; l < L; ++l) {
        Acc* o = op + l * Ev;
        std::fill(o, o + Ev, Acc(0));
        for (int64_t s = 0; s < S; ++s) {
          Acc p = pp[l * S + s];
          if (p == Acc(0)) continue;
          const Acc* vr = vp + s * Ev;
          for (int64_t e = 0; e < Ev; ++e) o[e] += p * vr[e];
        }
      }
    });
    Tensor& y = ctx.allocate_output(0, q.dtype(), {B, Hq, L, Ev});
    StoreFloats(out, y, ctx);
  }

  // Values pass through the precision type: 16-bit precisions round.
  template <typename Acc>
  static void RoundTo(std::vector<Acc>& vals, DataType prec) {
    if (prec == DataType::kFloat16)
      for (Acc& x : vals) x = HalfToFloat(FloatToHalf(static_cast<float>(x)));
    else if (prec == DataType::kBFloat16)
      for (Acc& x : vals) x = BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x)));
  }

  template <typename Acc>
  void ApplyModifier(KernelContext& ctx, const Graph& g, const char* what, std::vector<Acc>& vals,
                     const Shape& shape, DataType prec) const {
    Tensor in(prec, shape);
    StoreFloats(vals, in, ctx);
    std::vector<Value> outs = ctx.RunSubgraph(g, {Value(in)});
    if (outs.size() != 1 || !outs[0].is_tensor()) ctx.Fail(what, " must produce exactly one tensor");
    const Tensor& t = outs[0].tensor();
    if (t.shape() != shape)
      ctx.Fail(what, " must preserve the shape ", ShapeToString(shape), ", got ", t.Describe());
    if (!IsFloatKind(t.dtype())) ctx.Fail(what, " must produce a float tensor, got ", t.Describe());
    AccView<Acc> view(t, ctx, what);
    std::copy(view.data(), view.data() + t.numel(), vals.begin());
  }

  std::shared_ptr<Graph> score_mod_, prob_mod_;
  bool has_scale_ = false;
  float scale_ = 0.0f;
  DataType precision_ = DataType::kUndefined;
};

}  // namespace

std::vector<KernelRow> AttentionVariantKernels() {
  const std::vector<DataType> la_types = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};
  return {
      {kOnnxDomain, "SwiGLU", 28, kMaxOnnxOpset, types::Floats(), Make<SwiGLU>()},
      {kOnnxDomain, "LinearAttention", 27, kMaxOnnxOpset, la_types, Make<LinearAttention>()},
      {"ai.onnx.preview", "FlexAttention", 1, 1, types::Floats(), Make<FlexAttention>()},
  };
}

}  // namespace tessera::cpu
