// com.microsoft Attention and MultiHeadAttention (below), as ONNX Runtime's
// transformer optimizer writes them. Attention: a
// BERT or GPT-2 layer's attention, the Q/K/V projection (one merged weight)
// and the attention itself in one node.
//   input (B, S, Din) x weights (Din, Hq + Hk + Hv) [+ bias] -> Q, K, V
//   mask_index (int32), optional, in ORT's forms:
//     (B)            right padding: keys at or past mask_index[b] are masked
//     (2B)           left padding: [end_b ..., start_b ...], keys outside
//                    [start_b, end_b) masked
//     (B, T)         raw 0/1 over the keys; (B, S, T) per query row;
//     (B, 1, M, M)   the top-left (S, T) corner of a raw (M, M) mask
//   past (2, B, N, P, Dh), optional; present (2, B, N, P + S, Dh)
//   attention_bias (B or 1, N or 1, S, T), optional, added to the scores
//   unidirectional: query i (position P + i) sees keys j <= P + i
// A masked score gets mask_filter_value (default -10000) added, as ORT
// does, so a fully masked row averages V instead of producing NaN.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {
namespace {

// The shape of one attention: B x N heads, S queries over T keys of which
// the first P are the past, head sizes dh (Q, K) and dv (V).
struct HeadGeometry {
  int64_t B, N, S, T, P, dh, dv;
};

// A key mask in any of ORT's forms (null: none), as (B, S, T) bytes, 1 =
// attend. `what` names the input in errors.
std::vector<uint8_t> KeyMask(const KernelContext& ctx, const Tensor* mask, int64_t B, int64_t S, int64_t T,
                             const char* what) {
    std::vector<uint8_t> keep(static_cast<size_t>(B * S * T), 1);
    if (!mask) return keep;
    const Tensor& m = *mask;
    if (m.dtype() != DataType::kInt32) ctx.Fail(what, " must be int32, got ", m.Describe());
    const int32_t* mp = m.data<int32_t>();
    auto set_row = [&](int64_t b, int64_t i, auto attend) {
      uint8_t* row = keep.data() + (b * S + i) * T;
      for (int64_t j = 0; j < T; ++j) row[j] = attend(j) ? 1 : 0;
    };
    if (m.rank() == 1 && m.dim(0) == B) {
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i) set_row(b, i, [&](int64_t j) { return j < mp[b]; });
    } else if (m.rank() == 1 && m.dim(0) == 2 * B) {
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i) set_row(b, i, [&](int64_t j) { return j < mp[b] && j >= mp[B + b]; });
    } else if (m.rank() == 2 && m.dim(0) == B && m.dim(1) == T) {
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i) set_row(b, i, [&](int64_t j) { return mp[b * T + j] != 0; });
    } else if (m.rank() == 3 && m.dim(0) == B && m.dim(1) == S && m.dim(2) == T) {
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i) set_row(b, i, [&](int64_t j) { return mp[(b * S + i) * T + j] != 0; });
    } else if (m.rank() == 4 && m.dim(0) == B && m.dim(1) == 1 && m.dim(2) >= T && m.dim(3) >= T) {
      const int64_t M = m.dim(3);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < S; ++i)
          set_row(b, i, [&](int64_t j) { return mp[(b * m.dim(2) + (T - S + i)) * M + j] != 0; });
    } else {
      ctx.Fail(what, " ", m.Describe(), " is none of (", B, "), (", 2 * B, "), (", B, ", ", T, "), (", B, ", ", S,
               ", ", T, ") or (", B, ", 1, max, max) with max >= ", T);
    }
    return keep;
  }

// Every (batch, head): softmax(scale Q K^T + masks + bias) V into
// out[b, s, n * dv ...] (row stride out_ld). q_at(b, n) is the head's first
// query row (row stride q_ld); k_at / v_at its keys and values, T rows of
// dh / dv contiguous. A masked score gets `filter` added, as ORT does.
template <typename QAt, typename KAt, typename VAt>
void AttendHeads(KernelContext& ctx, const HeadGeometry& g, QAt q_at, int64_t q_ld, KAt k_at, VAt v_at,
                 const std::vector<uint8_t>& keep, const Tensor* ab, bool unidirectional, float scale, float filter,
                 float* out, int64_t out_ld) {
  if (ab && (ab->dtype() != DataType::kFloat || ab->rank() != 4 || (ab->dim(0) != 1 && ab->dim(0) != g.B) ||
             (ab->dim(1) != 1 && ab->dim(1) != g.N) || ab->dim(2) != g.S || ab->dim(3) != g.T))
    ctx.Fail("attention_bias must be (", g.B, " or 1, ", g.N, " or 1, ", g.S, ", ", g.T, ") floats, got ", ab->Describe());
  ParallelFor(ctx.thread_pool(), g.B * g.N, 1, [&](int64_t lo, int64_t hi) {
    std::vector<float> scores(static_cast<size_t>(g.S * g.T));
    for (int64_t bn = lo; bn < hi; ++bn) {
      const int64_t b = bn / g.N, n = bn % g.N;
      GemmF32(false, true, g.S, g.T, g.dh, scale, q_at(b, n), q_ld, k_at(b, n), g.dh, 0.0f, scores.data(), g.T);
      for (int64_t i = 0; i < g.S; ++i) {
        float* row = scores.data() + i * g.T;
        const uint8_t* kr = keep.data() + (b * g.S + i) * g.T;
        for (int64_t j = 0; j < g.T; ++j) {
          if (!kr[j] || (unidirectional && j > g.P + i)) row[j] += filter;
          if (ab) {
            const int64_t bb = ab->dim(0) == 1 ? 0 : b, nb = ab->dim(1) == 1 ? 0 : n;
            row[j] += ab->data<float>()[((bb * ab->dim(1) + nb) * g.S + i) * g.T + j];
          }
        }
        const float mx = *std::max_element(row, row + g.T);
        double sum = 0;
        for (int64_t j = 0; j < g.T; ++j) sum += (row[j] = std::exp(row[j] - mx));
        const float inv = static_cast<float>(1.0 / sum);
        for (int64_t j = 0; j < g.T; ++j) row[j] *= inv;
      }
      GemmF32(false, false, g.S, g.dv, g.T, 1.0f, scores.data(), g.T, v_at(b, n), g.dv, 0.0f,
              out + b * g.S * out_ld + n * g.dv, out_ld);
    }
  });
}

class MsAttention final : public OpKernel {
 public:
  explicit MsAttention(const KernelInfo& info)
      : heads_(info.attr_int("num_heads")),
        unidirectional_(info.attr_int("unidirectional", 0) != 0),
        scale_(info.attr_float("scale", 0.f)),
        filter_(info.attr_float("mask_filter_value", -10000.f)),
        qkv_sizes_(info.attr_ints("qkv_hidden_sizes", {})) {
    if (heads_ <= 0) info.Fail("num_heads must be positive, got ", heads_);
    if (info.attr_int("do_rotary", 0) != 0) info.Fail("do_rotary=1 is not supported");
    if (info.attr_int("past_present_share_buffer", 0) != 0)
      info.Fail("past_present_share_buffer=1 is not supported; export past and present as separate tensors");
    if (!qkv_sizes_.empty() && qkv_sizes_.size() != 3)
      info.Fail("qkv_hidden_sizes must have 3 values, got ", qkv_sizes_.size());
    for (int64_t v : qkv_sizes_)
      if (v <= 0 || v % heads_ != 0) info.Fail("qkv_hidden_sizes ", v, " is not a positive multiple of num_heads ", heads_);
    if (!qkv_sizes_.empty() && qkv_sizes_[0] != qkv_sizes_[1])
      info.Fail("Q and K hidden sizes differ (", qkv_sizes_[0], " and ", qkv_sizes_[1], ")");
  }

  void Compute(KernelContext& ctx) const override {
    ThreadPool::CurrentScope threads(ctx.thread_pool());  // the projection GEMM splits over it
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    if (x.dtype() != DataType::kFloat || w.dtype() != DataType::kFloat)
      ctx.Fail("input and weights must be float, got ", x.Describe(), " and ", w.Describe());
    if (x.rank() != 3) ctx.Fail("input must be (batch, sequence, hidden), got ", x.Describe());
    const int64_t B = x.dim(0), S = x.dim(1), Din = x.dim(2);
    if (w.rank() != 2 || w.dim(0) != Din) ctx.Fail("weights must be (", Din, ", Q + K + V hidden), got ", w.Describe());
    const int64_t width = w.dim(1);
    int64_t hq = width / 3, hk = width / 3, hv = width / 3;
    if (!qkv_sizes_.empty()) {
      hq = qkv_sizes_[0];
      hk = qkv_sizes_[1];
      hv = qkv_sizes_[2];
    }
    if (hq + hk + hv != width || hq % heads_ != 0 || hv % heads_ != 0)
      ctx.Fail("weights' width ", width, " must be Q + K + V hidden sizes (", hq, " + ", hk, " + ", hv,
               "), each a multiple of num_heads ", heads_);
    const int64_t dh = hq / heads_, dv = hv / heads_;
    const Tensor* bias = ctx.optional_input(2);
    if (bias && (bias->dtype() != DataType::kFloat || bias->numel() != width))
      ctx.Fail("bias must hold ", width, " floats, got ", bias->Describe());
    const Tensor* past = ctx.optional_input(4);
    int64_t P = 0;
    if (past) {
      if (hq != hk || hk != hv) ctx.Fail("with a past, the Q, K and V hidden sizes must be equal");
      if (past->dtype() != DataType::kFloat || past->rank() != 5 || past->dim(0) != 2 || past->dim(1) != B ||
          past->dim(2) != heads_ || past->dim(4) != dh)
        ctx.Fail("past must be (2, ", B, ", ", heads_, ", past, ", dh, ") floats, got ", past->Describe());
      P = past->dim(3);
    }
    const int64_t T = P + S;

    // Q, K, V for every token: one GEMM, then the bias.
    std::vector<float> qkv(static_cast<size_t>(B * S * width));
    GemmF32(false, false, B * S, width, Din, 1.0f, x.data<float>(), Din, w.data<float>(), width, 0.0f, qkv.data(), width);
    if (bias)
      for (int64_t r = 0; r < B * S; ++r)
        for (int64_t c = 0; c < width; ++c) qkv[static_cast<size_t>(r * width + c)] += bias->data<float>()[c];

    // present: (2, B, N, T, Dh), past rows then this step's; built in the
    // output itself when it is requested.
    const bool want_present = ctx.num_outputs() > 1 && ctx.output_requested(1);
    if (want_present && dh != dv) ctx.Fail("present needs equal K and V head sizes");
    std::vector<float> local;
    float* kv = nullptr;
    if (want_present) {
      kv = ctx.allocate_output(1, DataType::kFloat, {2, B, heads_, T, dh}).data<float>();
    } else {
      local.resize(static_cast<size_t>(B * heads_ * T * (dh + dv)));
      kv = local.data();
    }
    auto k_at = [&](int64_t b, int64_t n) { return kv + (b * heads_ + n) * T * dh; };
    auto v_at = [&](int64_t b, int64_t n) { return kv + B * heads_ * T * dh + (b * heads_ + n) * T * dv; };
    for (int64_t b = 0; b < B; ++b)
      for (int64_t n = 0; n < heads_; ++n) {
        float* kd = k_at(b, n);
        float* vd = v_at(b, n);
        if (past) {
          std::copy_n(past->data<float>() + ((0 * B + b) * heads_ + n) * P * dh, P * dh, kd);
          std::copy_n(past->data<float>() + ((1 * B + b) * heads_ + n) * P * dh, P * dh, vd);
        }
        for (int64_t s = 0; s < S; ++s) {
          const float* row = qkv.data() + (b * S + s) * width;
          std::copy_n(row + hq + n * dh, dh, kd + (P + s) * dh);
          std::copy_n(row + hq + hk + n * dv, dv, vd + (P + s) * dv);
        }
      }

    const std::vector<uint8_t> keep = KeyMask(ctx, ctx.optional_input(3), B, S, T, "mask_index");
    const Tensor* ab = ctx.optional_input(5);
    const float scale = scale_ != 0.f ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));
    Tensor& out = ctx.allocate_output(0, DataType::kFloat, {B, S, hv});
    const HeadGeometry g{B, heads_, S, T, P, dh, dv};
    AttendHeads(ctx, g, [&](int64_t b, int64_t n) { return qkv.data() + b * S * width + n * dh; }, width, k_at, v_at,
                keep, ab, unidirectional_, scale, filter_, out.data<float>(), hv);
  }

 private:
  int64_t heads_;
  bool unidirectional_;
  float scale_, filter_;
  std::vector<int64_t> qkv_sizes_;
};

// ---- MultiHeadAttention: the attention alone, Q, K and V already projected ----
// query (B, S, D); key/value (B, L, D) / (B, L, Dv), or already in the
// cache's layout (B, N, L, H) for cross attention; packed forms: QKV as
// query (B, S, N, 3, H) without key and value, KV as key (B, L, N, 2, H)
// without value. bias (D + D + Dv) is added to 3-D Q, K, V. past_key /
// past_value (B, N, P, H) come before the new keys; present_key /
// present_value (B, N, P + L, H) are the keys and values attended.
class MultiHeadAttention final : public OpKernel {
 public:
  explicit MultiHeadAttention(const KernelInfo& info)
      : heads_(info.attr_int("num_heads")),
        unidirectional_(info.attr_int("unidirectional", 0) != 0),
        scale_(info.attr_float("scale", 0.f)),
        filter_(info.attr_float("mask_filter_value", -10000.f)) {
    if (heads_ <= 0) info.Fail("num_heads must be positive, got ", heads_);
    for (size_t i : {8, 9})
      if (info.has_input(i)) info.Fail("input ", i, " (past_sequence_length, cache_indirection: a shared or beam-search cache) is not supported");
    if (info.has_input(6) != info.has_input(7)) info.Fail("past_key and past_value must be given together");
    if (info.attr_int("output_qk", 0) != 0 || info.has_output(3)) info.Fail("the qk output is not supported");
  }

  void Compute(KernelContext& ctx) const override {
    ThreadPool::CurrentScope threads(ctx.thread_pool());
    const Tensor& q = ctx.input(0);
    if (q.dtype() != DataType::kFloat || (q.rank() != 3 && q.rank() != 5))
      ctx.Fail("query must be float (B, S, hidden) or packed QKV (B, S, N, 3, H), got ", q.Describe());
    const int64_t B = q.dim(0), S = q.dim(1), N = heads_;
    const Tensor* k = ctx.optional_input(1);
    const Tensor* v = ctx.optional_input(2);
    for (const Tensor* t : {k, v})
      if (t && t->dtype() != DataType::kFloat) ctx.Fail("key and value must be float, got ", t->Describe());
    // Q, K and V as (B, N, rows, H) float buffers; from 3-D inputs with the bias.
    int64_t dh = 0, dv = 0, L = 0;
    std::vector<float> qb, kb, vb;
    const Tensor* bias = ctx.optional_input(3);
    auto heads_of = [&](const float* src, int64_t rows, int64_t row_stride, int64_t offset, int64_t h, const float* add,
                        std::vector<float>& dst) {
      dst.resize(static_cast<size_t>(B * N * rows * h));
      for (int64_t b = 0; b < B; ++b)
        for (int64_t n = 0; n < N; ++n)
          for (int64_t r = 0; r < rows; ++r) {
            const float* in = src + (b * rows + r) * row_stride + offset + n * h;
            float* o = dst.data() + ((b * N + n) * rows + r) * h;
            for (int64_t d = 0; d < h; ++d) o[d] = in[d] + (add ? add[n * h + d] : 0.f);
          }
    };
    if (!k && q.rank() == 5) {  // packed QKV (B, S, N, 3, H)
      if (q.dim(2) != N || q.dim(3) != 3) ctx.Fail("packed QKV must be (B, S, ", N, ", 3, H), got ", q.Describe());
      dh = dv = q.dim(4);
      L = S;
      const int64_t stride = N * 3 * dh;
      for (int which = 0; which < 3; ++which) {
        std::vector<float>& dst = which == 0 ? qb : which == 1 ? kb : vb;
        dst.resize(static_cast<size_t>(B * N * S * dh));
        for (int64_t b = 0; b < B; ++b)
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < S; ++r)
              std::copy_n(q.data<float>() + (b * S + r) * stride + (n * 3 + which) * dh, dh,
                          dst.data() + ((b * N + n) * S + r) * dh);
      }
    } else {
      if (q.rank() != 3 || q.dim(2) % N != 0) ctx.Fail("query must be (B, S, num_heads * H), got ", q.Describe());
      dh = q.dim(2) / N;
      if (!k) ctx.Fail("key is required unless query packs Q, K and V");
      if (k->rank() == 5) {  // packed KV (B, L, N, 2, H)
        if (v || k->dim(0) != B || k->dim(2) != N || k->dim(3) != 2 || k->dim(4) != dh)
          ctx.Fail("packed KV must be (", B, ", L, ", N, ", 2, ", dh, ") with no value input, got ", k->Describe());
        L = k->dim(1);
        dv = dh;
        kb.resize(static_cast<size_t>(B * N * L * dh));
        vb.resize(kb.size());
        for (int64_t b = 0; b < B; ++b)
          for (int64_t n = 0; n < N; ++n)
            for (int64_t r = 0; r < L; ++r) {
              const float* in = k->data<float>() + ((b * L + r) * N + n) * 2 * dh;
              std::copy_n(in, dh, kb.data() + ((b * N + n) * L + r) * dh);
              std::copy_n(in + dh, dh, vb.data() + ((b * N + n) * L + r) * dh);
            }
      } else if (k->rank() == 4) {  // already (B, N, L, H): cross attention's cache
        if (!v || v->rank() != 4 || k->dim(0) != B || k->dim(1) != N || k->dim(3) != dh || v->dim(0) != B ||
            v->dim(1) != N || v->dim(2) != k->dim(2))
          ctx.Fail("key and value in the cache layout must be (", B, ", ", N, ", L, H), got ", k->Describe(), " and ",
                   v ? v->Describe() : std::string("none"));
        L = k->dim(2);
        dv = v->dim(3);
        kb.assign(k->data<float>(), k->data<float>() + k->numel());
        vb.assign(v->data<float>(), v->data<float>() + v->numel());
      } else {
        if (!v || k->rank() != 3 || v->rank() != 3 || k->dim(0) != B || v->dim(0) != B || k->dim(1) != v->dim(1) ||
            k->dim(2) != q.dim(2) || v->dim(2) % N != 0)
          ctx.Fail("key and value must be (", B, ", L, ", q.dim(2), ") and (", B, ", L, num_heads * Hv), got ",
                   k->Describe(), " and ", v ? v->Describe() : std::string("none"));
        L = k->dim(1);
        dv = v->dim(2) / N;
      }
      const int64_t width = N * dh * 2 + N * dv;
      if (bias && (bias->dtype() != DataType::kFloat || bias->numel() != width))
        ctx.Fail("bias must hold ", width, " floats (Q, K and V hidden sizes), got ", bias->Describe());
      const float* bq = bias ? bias->data<float>() : nullptr;
      heads_of(q.data<float>(), S, q.dim(2), 0, dh, bq, qb);
      if (k->rank() == 3) {
        heads_of(k->data<float>(), L, k->dim(2), 0, dh, bq ? bq + N * dh : nullptr, kb);
        heads_of(v->data<float>(), L, v->dim(2), 0, dv, bq ? bq + 2 * N * dh : nullptr, vb);
      }
    }
    // The past before the new keys and values.
    const Tensor* pk = ctx.optional_input(6);
    const Tensor* pv = ctx.optional_input(7);
    int64_t P = 0;
    if (pk) {
      if (pk->dtype() != DataType::kFloat || pk->rank() != 4 || pk->dim(0) != B || pk->dim(1) != N || pk->dim(3) != dh ||
          pv->dtype() != DataType::kFloat || pv->rank() != 4 || pv->dim(2) != pk->dim(2) || pv->dim(3) != dv)
        ctx.Fail("past_key and past_value must be (", B, ", ", N, ", P, ", dh, ") and (", B, ", ", N, ", P, ", dv,
                 ") floats, got ", pk->Describe(), " and ", pv->Describe());
      P = pk->dim(2);
      auto prepend = [&](const Tensor& past, std::vector<float>& cur, int64_t h) {
        std::vector<float> all(static_cast<size_t>(B * N * (P + L) * h));
        for (int64_t bn = 0; bn < B * N; ++bn) {
          std::copy_n(past.data<float>() + bn * P * h, P * h, all.data() + bn * (P + L) * h);
          std::copy_n(cur.data() + bn * L * h, L * h, all.data() + bn * (P + L) * h + P * h);
        }
        cur.swap(all);
      };
      prepend(*pk, kb, dh);
      prepend(*pv, vb, dv);
    }
    const int64_t T = P + L;
    const std::vector<uint8_t> keep =
        KeyMask(ctx, ctx.optional_input(4), B, S, T, "key_padding_mask");
    const Tensor* ab = ctx.optional_input(5);
    const float scale = scale_ != 0.f ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));
    Tensor& out = ctx.allocate_output(0, DataType::kFloat, {B, S, N * dv});
    const HeadGeometry g{B, N, S, T, P, dh, dv};
    AttendHeads(ctx, g, [&](int64_t b, int64_t n) { return qb.data() + (b * N + n) * S * dh; }, dh,
                [&](int64_t b, int64_t n) { return kb.data() + (b * N + n) * T * dh; },
                [&](int64_t b, int64_t n) { return vb.data() + (b * N + n) * T * dv; }, keep, ab, unidirectional_,
                scale, filter_, out.data<float>(), N * dv);
    if (ctx.num_outputs() > 1 && ctx.output_requested(1))
      std::copy(kb.begin(), kb.end(), ctx.allocate_output(1, DataType::kFloat, {B, N, T, dh}).data<float>());
    if (ctx.num_outputs() > 2 && ctx.output_requested(2))
      std::copy(vb.begin(), vb.end(), ctx.allocate_output(2, DataType::kFloat, {B, N, T, dv}).data<float>());
  }

 private:
  int64_t heads_;
  bool unidirectional_;
  float scale_, filter_;
};

}  // namespace

std::vector<KernelRow> MicrosoftBertAttentionKernels() {
  return {{kMicrosoftDomain, "Attention", 1, 1, {DataType::kFloat}, Make<MsAttention>()},
          {kMicrosoftDomain, "MultiHeadAttention", 1, 1, {DataType::kFloat}, Make<MultiHeadAttention>()}};
}

}  // namespace tessera::cpu
