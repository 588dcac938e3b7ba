// com.microsoft Attention, as ONNX Runtime's transformer optimizer writes a
// BERT or GPT-2 layer's attention: the Q/K/V projection (one merged weight)
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

#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/kernel_util.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {
namespace {

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
    const Tensor* bias = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    if (bias && (bias->dtype() != DataType::kFloat || bias->numel() != width))
      ctx.Fail("bias must hold ", width, " floats, got ", bias->Describe());
    const Tensor* past = ctx.has_input(4) ? &ctx.input(4) : nullptr;
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

    // present: (2, B, N, T, Dh), past rows then this step's.
    std::vector<float> kv(static_cast<size_t>(2 * B * heads_ * T * std::max(dh, dv)));
    auto k_at = [&](int64_t b, int64_t n) { return kv.data() + ((0 * B + b) * heads_ + n) * T * dh; };
    auto v_at = [&](int64_t b, int64_t n) { return kv.data() + B * heads_ * T * dh + (b * heads_ + n) * T * dv; };
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

    const std::vector<uint8_t> keep = KeyMask(ctx, B, S, T);  // (B, S, T): 1 = attend
    const Tensor* ab = ctx.has_input(5) ? &ctx.input(5) : nullptr;
    if (ab && (ab->dtype() != DataType::kFloat || ab->rank() != 4 || (ab->dim(0) != 1 && ab->dim(0) != B) ||
               (ab->dim(1) != 1 && ab->dim(1) != heads_) || ab->dim(2) != S || ab->dim(3) != T))
      ctx.Fail("attention_bias must be (", B, " or 1, ", heads_, " or 1, ", S, ", ", T, ") floats, got ", ab->Describe());
    const float scale = scale_ != 0.f ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(dh)));
    Tensor& out = ctx.allocate_output(0, DataType::kFloat, {B, S, hv});
    float* op = out.data<float>();
    ParallelFor(ctx.thread_pool(), B * heads_, 1, [&](int64_t lo, int64_t hi) {
      std::vector<float> scores(static_cast<size_t>(S * T));
      for (int64_t bn = lo; bn < hi; ++bn) {
        const int64_t b = bn / heads_, n = bn % heads_;
        GemmF32(false, true, S, T, dh, scale, qkv.data() + b * S * width + n * dh, width, k_at(b, n), dh, 0.0f,
                scores.data(), T);
        for (int64_t i = 0; i < S; ++i) {
          float* row = scores.data() + i * T;
          const uint8_t* kr = keep.data() + (b * S + i) * T;
          for (int64_t j = 0; j < T; ++j) {
            if (!kr[j] || (unidirectional_ && j > P + i)) row[j] += filter_;
            if (ab) {
              const int64_t bb = ab->dim(0) == 1 ? 0 : b, nb = ab->dim(1) == 1 ? 0 : n;
              row[j] += ab->data<float>()[((bb * ab->dim(1) + nb) * S + i) * T + j];
            }
          }
          float mx = *std::max_element(row, row + T);
          double sum = 0;
          for (int64_t j = 0; j < T; ++j) sum += (row[j] = std::exp(row[j] - mx));
          const float inv = static_cast<float>(1.0 / sum);
          for (int64_t j = 0; j < T; ++j) row[j] *= inv;
        }
        GemmF32(false, false, S, dv, T, 1.0f, scores.data(), T, v_at(b, n), dv, 0.0f, op + b * S * hv + n * dv, hv);
      }
    });
    if (ctx.num_outputs() > 1 && ctx.output_requested(1)) {
      if (dh != dv) ctx.Fail("present needs equal K and V head sizes");
      Tensor& pres = ctx.allocate_output(1, DataType::kFloat, {2, B, heads_, T, dh});
      std::copy_n(kv.data(), 2 * B * heads_ * T * dh, pres.data<float>());
    }
  }

 private:
  // mask_index in any of its forms, as (B, S, T) bytes, 1 = attend.
  std::vector<uint8_t> KeyMask(const KernelContext& ctx, int64_t B, int64_t S, int64_t T) const {
    std::vector<uint8_t> keep(static_cast<size_t>(B * S * T), 1);
    if (!ctx.has_input(3)) return keep;
    const Tensor& m = ctx.input(3);
    if (m.dtype() != DataType::kInt32) ctx.Fail("mask_index must be int32, got ", m.Describe());
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
      ctx.Fail("mask_index ", m.Describe(), " is none of (", B, "), (", 2 * B, "), (", B, ", ", T, "), (", B, ", ", S,
               ", ", T, ") or (", B, ", 1, max, max) with max >= ", T);
    }
    return keep;
  }

  int64_t heads_;
  bool unidirectional_;
  float scale_, filter_;
  std::vector<int64_t> qkv_sizes_;
};

}  // namespace

std::vector<KernelRow> MicrosoftBertAttentionKernels() {
  return {{kMicrosoftDomain, "Attention", 1, 1, {DataType::kFloat}, Make<MsAttention>()}};
}

}  // namespace tessera::cpu
