// com.microsoft GroupQueryAttention, as ONNX Runtime's LLM builders write a
// decoder's attention: Q with num_heads heads, K and V with kv_num_heads
// (each shared by num_heads / kv_num_heads query heads), a KV cache in BNSH
// (past_key/past_value in, present_key/present_value out), optional rotary
// embeddings applied inside, causal with an optional local window.
//
// For batch entry b, seqlens_k[b] + 1 = T_b tokens exist after this step, so
// the S new tokens sit at positions [T_b - S, T_b) (a first prompt padded on
// the right has T_b < S: its tokens start at 0 and the rows past T_b are
// padding, output as zeros). present holds past's rows with the new keys
// and values written at their positions; its length is the larger of
// past's and total_sequence_length, so a caller that passes one buffer as
// past and present of its capacity keeps that capacity. When the present
// is bound to the past's own memory (ORT's past_present_share_buffer; see
// runtime/kv_cache.h), the past rows are already in place and only this
// step's rows are written: a decode step touches no other row of the cache.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

class GroupQueryAttention final : public OpKernel {
 public:
  explicit GroupQueryAttention(const KernelInfo& info)
      : heads_(info.attr_int("num_heads")),
        kv_heads_(info.attr_int("kv_num_heads")),
        scale_(info.attr_float("scale", 0.f)),
        softcap_(info.attr_float("softcap", 0.f)),
        window_(info.attr_int("local_window_size", -1)),
        rotary_(info.attr_int("do_rotary", 0) != 0),
        interleaved_(info.attr_int("rotary_interleaved", 0) != 0),
        smooth_(info.attr_int("smooth_softmax", 0) != 0),
        causal_(info.attr_int("causal", 1) != 0) {
    if (heads_ <= 0 || kv_heads_ <= 0 || heads_ % kv_heads_ != 0)
      info.Fail("num_heads (", heads_, ") must be a positive multiple of kv_num_heads (", kv_heads_, ")");
    if (softcap_ < 0.f) info.Fail("softcap must be >= 0, got ", softcap_);
    if (!causal_ && window_ != -1) info.Fail("local_window_size must be -1 when causal is 0");
    if (info.attr_int("qk_output", 0) != 0) info.Fail("qk_output=", info.attr_int("qk_output", 0), " is not supported");
    if (info.attr_int("sliding_window_cache", 0) != 0) info.Fail("sliding_window_cache=1 is not supported");
    const std::string kq = info.attr_string("k_quant_type", "NONE"), vq = info.attr_string("v_quant_type", "NONE");
    if (kq != "NONE" || vq != "NONE") info.Fail("a quantized KV cache (k_quant_type ", kq, ") is not supported");
    for (size_t i : {12, 13, 14, 15})
      if (info.has_input(i)) info.Fail("input ", i, " (KV-cache scales, Q/K norm weights) is not supported");
    if (info.has_input(3) != info.has_input(4)) info.Fail("past_key and past_value must be given together");
    if (rotary_ && (!info.has_input(7) || !info.has_input(8)))
      info.Fail("do_rotary=1 needs cos_cache and sin_cache");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    if (q.dtype() != DataType::kFloat && q.dtype() != DataType::kFloat16 && q.dtype() != DataType::kBFloat16)
      ctx.Fail("query must be float, float16 or bfloat16, got ", q.Describe());
    DispatchFloat(q.dtype(), ctx, [&]<typename T>() { Run<T>(ctx); });
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx) const {
    const Tensor& q = ctx.input(0);
    if (q.rank() != 3) ctx.Fail("query must be (batch, sequence, hidden), got ", q.Describe());
    const int64_t B = q.dim(0), S = q.dim(1);
    const bool packed = !ctx.has_input(1);
    const int64_t heads_total = packed ? heads_ + 2 * kv_heads_ : heads_;
    if (q.dim(2) % heads_total != 0)
      ctx.Fail("query's hidden size ", q.dim(2), " is not a multiple of ", heads_total, packed ? " (packed QKV heads)" : " heads");
    const int64_t D = q.dim(2) / heads_total;
    const Tensor* k = packed ? nullptr : &ctx.input(1);
    const Tensor* v = packed ? nullptr : ctx.optional_input(2);
    if (!packed) {
      if (!v) ctx.Fail("key is given without value");
      for (const Tensor* t : {k, v})
        if (t->dtype() != q.dtype() || t->rank() != 3 || t->dim(0) != B || t->dim(1) != S || t->dim(2) != kv_heads_ * D)
          ctx.Fail("key and value must be (", B, ", ", S, ", ", kv_heads_ * D, ") of query's type, got ", t->Describe());
    }
    int64_t P = 0;
    const Tensor* pk = ctx.optional_input(3);
    const Tensor* pv = ctx.optional_input(4);
    if (pk) {
      for (const Tensor* t : {pk, pv})
        if (t->dtype() != q.dtype() || t->rank() != 4 || t->dim(0) != B || t->dim(1) != kv_heads_ || t->dim(3) != D)
          ctx.Fail("past_key and past_value must be (", B, ", ", kv_heads_, ", past, ", D, ") of query's type, got ",
                   t->Describe());
      P = pk->dim(2);
      if (pv->dim(2) != P) ctx.Fail("past_key and past_value lengths differ: ", pk->Describe(), ", ", pv->Describe());
    }
    const Tensor& seqlens = ctx.input(5);
    const Tensor& total_t = ctx.input(6);
    if (seqlens.dtype() != DataType::kInt32 || seqlens.numel() != B)
      ctx.Fail("seqlens_k must be int32 with one value per batch entry (", B, "), got ", seqlens.Describe());
    if (total_t.dtype() != DataType::kInt32 || total_t.numel() != 1)
      ctx.Fail("total_sequence_length must be one int32, got ", total_t.Describe());
    const int64_t total = total_t.data<int32_t>()[0];
    const int64_t present_len = std::max(P, total);
    std::vector<int64_t> past_len(static_cast<size_t>(B)), valid(static_cast<size_t>(B));
    for (int64_t b = 0; b < B; ++b) {
      const int64_t t_b = int64_t{seqlens.data<int32_t>()[b]} + 1;
      if (t_b < 1 || t_b > total)
        ctx.Fail("seqlens_k[", b, "] + 1 = ", t_b, " must be in [1, total_sequence_length = ", total, "]");
      const int64_t start = std::max<int64_t>(0, t_b - S);
      if (start > P)
        ctx.Fail("batch entry ", b, " has ", start, " past tokens (seqlens_k + 1 - sequence_length) but the KV cache ",
                 pk ? "holds " : "is absent: ", P, pk ? "" : " rows");
      past_len[static_cast<size_t>(b)] = start;
      valid[static_cast<size_t>(b)] = std::min(S, t_b - start);
    }
    // Rotary caches: (max_position, rot / 2), rot <= D.
    int64_t half = 0;
    const Tensor* cosc = rotary_ ? &ctx.input(7) : nullptr;
    const Tensor* sinc = rotary_ ? &ctx.input(8) : nullptr;
    const Tensor* pos_ids = ctx.optional_input(9);
    if (rotary_) {
      if (cosc->rank() != 2 || sinc->shape() != cosc->shape() || cosc->dtype() != q.dtype() ||
          2 * cosc->dim(1) > D)
        ctx.Fail("cos_cache and sin_cache must be (max_position, <= head size / 2) of query's type, got ",
                 cosc->Describe(), " and ", sinc->Describe());
      half = cosc->dim(1);
      if (pos_ids && (pos_ids->dtype() != DataType::kInt64 || pos_ids->numel() != B * S))
        ctx.Fail("position_ids must be int64 (", B, ", ", S, "), got ", pos_ids->Describe());
    }
    const Tensor* bias = ctx.optional_input(10);
    if (bias && (bias->dtype() != q.dtype() || bias->rank() != 4 || (bias->dim(0) != 1 && bias->dim(0) != B) ||
                 (bias->dim(1) != 1 && bias->dim(1) != heads_) || bias->dim(2) != S || bias->dim(3) != total))
      ctx.Fail("attention_bias must be (", B, " or 1, ", heads_, " or 1, ", S, ", ", total, "), got ", bias->Describe());
    const Tensor* sink = ctx.optional_input(11);
    if (sink && (sink->dtype() != q.dtype() || sink->numel() != heads_))
      ctx.Fail("head_sink must hold num_heads (", heads_, ") values of query's type, got ", sink->Describe());

    using C = float;
    const int64_t q_stride = q.dim(2);  // per token
    const int64_t kv_stride = packed ? q_stride : kv_heads_ * D;
    const T* qp = q.data<T>();
    const T* kp = packed ? qp + heads_ * D : k->data<T>();
    const T* vp = packed ? qp + (heads_ + kv_heads_) * D : v->data<T>();

    Tensor& out = ctx.allocate_output(0, q.dtype(), {B, S, heads_ * D});
    // present: past's rows, then this step's keys and values at their
    // positions. A float cache is built in the output itself when it is
    // requested (one pass over the cache a step, not a second copy out).
    const Shape present_shape = {B, kv_heads_, present_len, D};
    std::vector<C> local_k, local_v;
    auto cache_at = [&](size_t o, std::vector<C>& local) -> C* {
      if constexpr (std::is_same_v<T, float>)
        if (ctx.num_outputs() > o && ctx.output_requested(o))
          return ctx.allocate_output(o, q.dtype(), present_shape).template data<float>();
      local.resize(static_cast<size_t>(B * kv_heads_ * present_len * D));
      return local.data();
    };
    C* pres_k = cache_at(1, local_k);
    C* pres_v = cache_at(2, local_v);
    auto rotate = [&](C* x, int64_t position) {
      if (!rotary_) return;
      if (position < 0 || position >= cosc->dim(0))
        ctx.Fail("position ", position, " is outside the rotary caches' ", cosc->dim(0), " rows");
      const T* c = cosc->data<T>() + position * half;
      const T* s = sinc->data<T>() + position * half;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t i1 = interleaved_ ? 2 * i : i, i2 = interleaved_ ? 2 * i + 1 : i + half;
        const C x1 = x[i1], x2 = x[i2], cv = static_cast<C>(Load(c[i])), sv = static_cast<C>(Load(s[i]));
        x[i1] = cv * x1 - sv * x2;
        x[i2] = sv * x1 + cv * x2;
      }
    };
    auto position_of = [&](int64_t b, int64_t i) {
      return pos_ids ? pos_ids->data<int64_t>()[b * S + i] : past_len[static_cast<size_t>(b)] + i;
    };
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < kv_heads_; ++h) {
        C* dk = pres_k + (b * kv_heads_ + h) * present_len * D;
        C* dv = pres_v + (b * kv_heads_ + h) * present_len * D;
        // Rows past the past's: zero until this step's tokens land.
        std::fill(dk + P * D, dk + present_len * D, C(0));
        std::fill(dv + P * D, dv + present_len * D, C(0));
        if (pk) {
          const T* sk = pk->data<T>() + (b * kv_heads_ + h) * P * D;
          const T* sv = pv->data<T>() + (b * kv_heads_ + h) * P * D;
          if (static_cast<const void*>(sk) != dk)
            for (int64_t i = 0; i < P * D; ++i) dk[i] = static_cast<C>(Load(sk[i]));
          if (static_cast<const void*>(sv) != dv)
            for (int64_t i = 0; i < P * D; ++i) dv[i] = static_cast<C>(Load(sv[i]));
        }
        for (int64_t i = 0; i < valid[static_cast<size_t>(b)]; ++i) {
          const int64_t row = past_len[static_cast<size_t>(b)] + i;
          C* rk = dk + row * D;
          C* rv = dv + row * D;
          const T* nk = kp + (b * S + i) * kv_stride + h * D;
          const T* nv = vp + (b * S + i) * kv_stride + h * D;
          for (int64_t d = 0; d < D; ++d) {
            rk[d] = static_cast<C>(Load(nk[d]));
            rv[d] = static_cast<C>(Load(nv[d]));
          }
          rotate(rk, position_of(b, i));
          for (int64_t d = 0; d < D; ++d) rk[d] = static_cast<C>(Load(StoreAs<T>(rk[d])));  // as the cache stores it
        }
      }

    const C scale = scale_ != 0.f ? scale_ : static_cast<C>(1.0 / std::sqrt(static_cast<double>(D)));
    const int64_t group = heads_ / kv_heads_;
    T* op = out.data<T>();
    ParallelFor(ctx.thread_pool(), B * heads_, 1, [&](int64_t lo, int64_t hi) {
      std::vector<C> qrow(static_cast<size_t>(D)), score(static_cast<size_t>(present_len)), acc(static_cast<size_t>(D));
      for (int64_t bh = lo; bh < hi; ++bh) {
        const int64_t b = bh / heads_, h = bh % heads_, kvh = h / group;
        const C* ck = pres_k + (b * kv_heads_ + kvh) * present_len * D;
        const C* cv = pres_v + (b * kv_heads_ + kvh) * present_len * D;
        const int64_t start = past_len[static_cast<size_t>(b)];
        for (int64_t i = 0; i < S; ++i) {
          T* orow = op + (b * S + i) * heads_ * D + h * D;
          if (i >= valid[static_cast<size_t>(b)]) {  // right padding of a first prompt
            for (int64_t d = 0; d < D; ++d) orow[d] = StoreAs<T>(C(0));
            continue;
          }
          const T* qi = qp + (b * S + i) * q_stride + h * D;
          for (int64_t d = 0; d < D; ++d) qrow[static_cast<size_t>(d)] = static_cast<C>(Load(qi[d]));
          rotate(qrow.data(), position_of(b, i));
          const int64_t qpos = start + i;
          const int64_t last = causal_ ? qpos : start + valid[static_cast<size_t>(b)] - 1;
          const int64_t first = window_ > 0 ? std::max<int64_t>(0, qpos - window_ + 1) : 0;
          C mx = -std::numeric_limits<C>::infinity();
          for (int64_t j = first; j <= last; ++j) {
            C dot = 0;
            for (int64_t d = 0; d < D; ++d) dot += qrow[static_cast<size_t>(d)] * ck[j * D + d];
            C s = dot * scale;
            if (softcap_ > 0.f) s = softcap_ * std::tanh(s / softcap_);
            if (bias) {
              const int64_t bb = bias->dim(0) == 1 ? 0 : b, hb = bias->dim(1) == 1 ? 0 : h;
              s += static_cast<C>(Load(bias->data<T>()[((bb * bias->dim(1) + hb) * S + i) * total + j]));
            }
            score[static_cast<size_t>(j)] = s;
            mx = std::max(mx, s);
          }
          // smooth_softmax adds e^(0 - max) to the denominator, a head sink
          // e^(sink - max), the max taken with them.
          const C sink_logit = sink ? static_cast<C>(Load(sink->data<T>()[h])) : C(0);
          if (smooth_ || sink) mx = std::max(mx, sink_logit);
          C denom = (smooth_ || sink) ? std::exp(sink_logit - mx) : C(0);
          for (int64_t j = first; j <= last; ++j) denom += (score[static_cast<size_t>(j)] = std::exp(score[static_cast<size_t>(j)] - mx));
          std::fill(acc.begin(), acc.end(), C(0));
          for (int64_t j = first; j <= last; ++j) {
            const C p = score[static_cast<size_t>(j)] / denom;
            for (int64_t d = 0; d < D; ++d) acc[static_cast<size_t>(d)] += p * cv[j * D + d];
          }
          for (int64_t d = 0; d < D; ++d) orow[d] = StoreAs<T>(acc[static_cast<size_t>(d)]);
        }
      }
    });
    if constexpr (!std::is_same_v<T, float>) {  // 16-bit caches: rounded once, into the outputs
      for (size_t o : {size_t{1}, size_t{2}}) {
        if (ctx.num_outputs() <= o || !ctx.output_requested(o)) continue;
        const std::vector<C>& src = o == 1 ? local_k : local_v;
        T* dst = ctx.allocate_output(o, q.dtype(), present_shape).template data<T>();
        for (size_t i = 0; i < src.size(); ++i) dst[i] = StoreAs<T>(src[i]);
      }
    }
  }

  int64_t heads_, kv_heads_;
  float scale_, softcap_;
  int64_t window_;
  bool rotary_, interleaved_, smooth_, causal_;
};

}  // namespace

std::vector<KernelRow> MicrosoftAttentionKernels() {
  return {{kMicrosoftDomain, "GroupQueryAttention", 1, 1, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16},
           Make<GroupQueryAttention>()}};
}

}  // namespace tessera::cpu
