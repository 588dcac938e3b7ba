// Attention (opsets 23, 24+) and RotaryEmbedding (opset 23+).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"

namespace tessera::cpu {

namespace {

// Through the pooled GEMM: inside a (batch, head) chunk it is one
// single-threaded BLAS call; at top level it may split over the pool.
inline void GemmNT(int m, int n, int k, float alpha, const float* a, const float* b, float* c) {
  GemmF32(false, true, m, n, k, alpha, a, k, b, k, 0.0f, c, n);
}
inline void GemmNT(int m, int n, int k, double alpha, const double* a, const double* b, double* c) {
  GemmF64(false, true, m, n, k, alpha, a, k, b, k, 0.0, c, n);
}
inline void GemmNN(int m, int n, int k, const float* a, const float* b, float* c) {
  GemmF32(false, false, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}
inline void GemmNN(int m, int n, int k, const double* a, const double* b, double* c) {
  GemmF64(false, false, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

// Reads a mask element as an additive bias (bool: 0 or -inf).
template <typename M, typename C>
C MaskBias(const M& v) {
  if constexpr (std::is_same_v<M, bool>) {
    return v ? C(0) : -std::numeric_limits<C>::infinity();
  } else {
    return static_cast<C>(Load(v));
  }
}

class Attention final : public OpKernel {
 public:
  explicit Attention(const KernelInfo& info) : opset_(info.opset()) {
    is_causal_ = info.attr_int("is_causal", 0) != 0;
    q_heads_ = info.attr_int("q_num_heads", 0);
    kv_heads_ = info.attr_int("kv_num_heads", 0);
    if (q_heads_ < 0 || kv_heads_ < 0) info.Fail("q_num_heads and kv_num_heads must be positive");
    mode_ = info.attr_int("qk_matmul_output_mode", 0);
    if (mode_ < 0 || mode_ > 3) info.Fail("qk_matmul_output_mode must be 0..3, got ", mode_);
    has_scale_ = info.has_attr("scale");
    scale_ = info.attr_float("scale", 0.f);
    softcap_ = info.attr_float("softcap", 0.f);
    if (softcap_ < 0.f) info.Fail("softcap must be >= 0, got ", softcap_);
    if (info.has_attr("softmax_precision")) {
      int64_t p = info.attr_int("softmax_precision");
      if (p != 1 && p != 10 && p != 11 && p != 16)
        info.Fail("softmax_precision must be 1, 10, 11 or 16, got ", p);
      softmax_double_ = p == 11;
    }
    left_window_ = info.attr_int("left_window_size", -1);
    right_window_ = info.attr_int("right_window_size", -1);
    if (info.has_input(4) != info.has_input(5)) info.Fail("past_key and past_value must be given together");
  }

  void Compute(KernelContext& ctx) const override {
    ThreadPool::CurrentScope threads(ctx.thread_pool());  // GEMMs outside the head loop split over it
    const Tensor& q = ctx.input(0);
    DispatchFloat(q.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_same_v<T, double>)
        Run<T, double>(ctx);
      else
        Run<T, float>(ctx);
    });
  }

 private:
  template <typename E, typename C>
  void Run(KernelContext& ctx) const {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const DataType dt = q.dtype();
    if (k.dtype() != dt || v.dtype() != dt) ctx.Fail("Q, K and V must have the same element type");
    if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4))
      ctx.Fail("Q, K and V must all be 3-D or all 4-D, got ", q.Describe(), ", ", k.Describe(), ", ", v.Describe());
    const bool is3d = q.rank() == 3;
    const int64_t B = q.dim(0);
    int64_t Hq, Hkv, Sq, Skv, Dh, Dv;
    if (is3d) {
      if (q_heads_ <= 0 || kv_heads_ <= 0) ctx.Fail("3-D inputs need the q_num_heads and kv_num_heads attributes");
      Hq = q_heads_;
      Hkv = kv_heads_;
      Sq = q.dim(1);
      Skv = k.dim(1);
      if (q.dim(2) % Hq || k.dim(2) % Hkv || v.dim(2) % Hkv)
        ctx.Fail("hidden sizes ", q.dim(2), "/", k.dim(2), "/", v.dim(2), " are not multiples of the head counts ",
                 Hq, "/", Hkv);
      Dh = q.dim(2) / Hq;
      if (k.dim(2) / Hkv != Dh) ctx.Fail("Q and K head sizes differ");
      Dv = v.dim(2) / Hkv;
      if (v.dim(1) != Skv) ctx.Fail("K and V sequence lengths differ");
    } else {
      Hq = q.dim(1);
      Hkv = k.dim(1);
      Sq = q.dim(2);
      Skv = k.dim(2);
      Dh = q.dim(3);
      if (k.dim(3) != Dh) ctx.Fail("Q and K head sizes differ: ", q.Describe(), " vs ", k.Describe());
      if (v.dim(1) != Hkv || v.dim(2) != Skv) ctx.Fail("V shape ", v.Describe(), " does not match K ", k.Describe());
      Dv = v.dim(3);
    }
    if (k.dim(0) != B || v.dim(0) != B) ctx.Fail("Q, K and V batch sizes differ");
    if (Hkv <= 0 || Hq % Hkv != 0) ctx.Fail("q_num_heads (", Hq, ") must be a multiple of kv_num_heads (", Hkv, ")");
    const int64_t group = Hq / Hkv;

    // Past cache.
    int64_t P = 0;
    const Tensor* pk = nullptr;
    const Tensor* pv = nullptr;
    if (ctx.has_input(4) || ctx.has_input(5)) {
      if (!ctx.has_input(4) || !ctx.has_input(5)) ctx.Fail("past_key and past_value must be given together");
      pk = &ctx.input(4);
      pv = &ctx.input(5);
      if (pk->dtype() != dt || pv->dtype() != dt) ctx.Fail("past_key/past_value must match Q's element type");
      if (pk->rank() != 4 || pk->dim(0) != B || pk->dim(1) != Hkv || pk->dim(3) != Dh)
        ctx.Fail("past_key has shape ", ShapeToString(pk->shape()), ", expected [", B, ",", Hkv, ",past,", Dh, "]");
      P = pk->dim(2);
      if (pv->rank() != 4 || pv->dim(0) != B || pv->dim(1) != Hkv || pv->dim(2) != P || pv->dim(3) != Dv)
        ctx.Fail("past_value has shape ", ShapeToString(pv->shape()), ", expected [", B, ",", Hkv, ",", P, ",", Dv,
                 "]");
    }
    const int64_t T = P + Skv;

    std::vector<int64_t> nonpad;
    if (ctx.has_input(6)) {
      const Tensor& np = ctx.input(6);
      if (!IsInteger(np.dtype()) || np.numel() != B)
        ctx.Fail("nonpad_kv_seqlen must be an integer tensor of ", B, " elements, got ", np.Describe());
      for (int64_t b = 0; b < B; ++b) {
        int64_t n = np.GetAsInt64(b);
        if (n < 0 || n > T) ctx.Fail("nonpad_kv_seqlen[", b, "] = ", n, " is outside [0, ", T, "]");
        nonpad.push_back(n);
      }
    }

    // Mask: broadcast to [B, Hq, Sq, T], last dim may be shorter (padded masked).
    const Tensor* mask = ctx.optional_input(3);
    int64_t mstride[4] = {0, 0, 0, 0};
    int64_t mlast = 0;
    if (mask) {
      if (mask->rank() < 1 || mask->rank() > 4) ctx.Fail("attn_mask must have rank 1..4, got ", mask->Describe());
      if (mask->dtype() != DataType::kBool && !IsInteger(mask->dtype()) && mask->dtype() != dt)
        ctx.Fail("a float attn_mask must have Q's element type, got ", mask->Describe());
      const int64_t target[4] = {B, Hq, Sq, T};
      const int64_t mr = mask->rank();
      std::vector<int64_t> ms = StridesOf(mask->shape());
      for (int64_t i = 0; i < mr; ++i) {
        int64_t td = 4 - mr + i;
        int64_t md = mask->dim(i);
        if (td == 3) {
          if (md > T) ctx.Fail("attn_mask's last dimension ", md, " exceeds the total sequence length ", T);
          mlast = md;
          mstride[3] = ms[static_cast<size_t>(i)];
        } else if (md == target[td]) {
          mstride[td] = ms[static_cast<size_t>(i)];
        } else if (md != 1) {
          ctx.Fail("attn_mask shape ", ShapeToString(mask->shape()), " does not broadcast to [", B, ",", Hq, ",", Sq,
                   ",", T, "]");
        }
      }
    }

    // Contiguous compute copies: Q [B,Hq,Sq,Dh], K [B,Hkv,T,Dh], V [B,Hkv,T,Dv].
    std::vector<C> qc(static_cast<size_t>(B * Hq * Sq * Dh));
    std::vector<C> kc(static_cast<size_t>(B * Hkv * T * Dh));
    std::vector<C> vc(static_cast<size_t>(B * Hkv * T * Dv));
    auto load_heads = [&](const Tensor& src, int64_t H, int64_t S, int64_t D, std::vector<C>& dst, int64_t dst_len,
                          int64_t dst_off) {
      const E* p = src.data<E>();
      for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t s = 0; s < S; ++s) {
            int64_t so = is3d ? (b * S + s) * H * D + h * D : ((b * H + h) * S + s) * D;
            int64_t d0 = ((b * H + h) * dst_len + dst_off + s) * D;
            for (int64_t d = 0; d < D; ++d) dst[static_cast<size_t>(d0 + d)] = static_cast<C>(Load(p[so + d]));
          }
    };
    load_heads(q, Hq, Sq, Dh, qc, Sq, 0);
    load_heads(k, Hkv, Skv, Dh, kc, T, P);
    load_heads(v, Hkv, Skv, Dv, vc, T, P);
    if (pk) {
      const E* a = pk->data<E>();
      const E* bb = pv->data<E>();
      for (int64_t bh = 0; bh < B * Hkv; ++bh) {
        for (int64_t i = 0; i < P * Dh; ++i) kc[static_cast<size_t>(bh * T * Dh + i)] = static_cast<C>(Load(a[bh * P * Dh + i]));
        for (int64_t i = 0; i < P * Dv; ++i) vc[static_cast<size_t>(bh * T * Dv + i)] = static_cast<C>(Load(bb[bh * P * Dv + i]));
      }
    }

    if (ctx.output_requested(1)) {
      Tensor& o = ctx.allocate_output(1, dt, {B, Hkv, T, Dh});
      E* p = o.data<E>();
      for (int64_t i = 0; i < o.numel(); ++i) p[i] = StoreAs<E>(kc[static_cast<size_t>(i)]);
    }
    if (ctx.output_requested(2)) {
      Tensor& o = ctx.allocate_output(2, dt, {B, Hkv, T, Dv});
      E* p = o.data<E>();
      for (int64_t i = 0; i < o.numel(); ++i) p[i] = StoreAs<E>(vc[static_cast<size_t>(i)]);
    }

    Tensor& y = ctx.allocate_output(0, dt, is3d ? Shape{B, Sq, Hq * Dv} : Shape{B, Hq, Sq, Dv});
    E* yp = y.data<E>();
    const bool want_qk = ctx.output_requested(3);
    E* qkp = want_qk ? ctx.allocate_output(3, dt, {B, Hq, Sq, T}).data<E>() : nullptr;
    if (B * Hq * Sq == 0) return;
    if (T == 0) {
      for (int64_t i = 0; i < y.numel(); ++i) yp[i] = StoreAs<E>(C(0));
      return;
    }
    const int64_t kIntMax = std::numeric_limits<int>::max();
    if (Sq > kIntMax || T > kIntMax || Dh > kIntMax || Dv > kIntMax || Sq * T > kIntMax)
      ctx.Fail("dimensions are too large");

    const C scale = has_scale_ ? static_cast<C>(scale_) : C(1) / std::sqrt(static_cast<C>(Dh));
    const C neg_inf = -std::numeric_limits<C>::infinity();
    const C cap = static_cast<C>(softcap_);
    auto work = [&](int64_t begin, int64_t end) {
      std::vector<C> scores(static_cast<size_t>(Sq * T));
      std::vector<C> out(static_cast<size_t>(Sq * Dv));
      for (int64_t bh = begin; bh < end; ++bh) {
        const int64_t b = bh / Hq, h = bh % Hq;
        const int64_t kvh = h / group;
        const C* qm = qc.data() + bh * Sq * Dh;
        const C* km = kc.data() + (b * Hkv + kvh) * T * Dh;
        const C* vm = vc.data() + (b * Hkv + kvh) * T * Dv;
        if (Dh > 0) {
          GemmNT(static_cast<int>(Sq), static_cast<int>(T), static_cast<int>(Dh), scale, qm, km, scores.data());
        } else {
          std::fill(scores.begin(), scores.end(), C(0));
        }
        E* qk_out = qkp ? qkp + bh * Sq * T : nullptr;
        if (qk_out && mode_ == 0)
          for (int64_t i = 0; i < Sq * T; ++i) qk_out[i] = StoreAs<E>(scores[static_cast<size_t>(i)]);
        if (cap > C(0))
          for (auto& s : scores) s = cap * std::tanh(s / cap);
        if (qk_out && mode_ == 1)
          for (int64_t i = 0; i < Sq * T; ++i) qk_out[i] = StoreAs<E>(scores[static_cast<size_t>(i)]);

        // Bias: mask, causal frontier, padding, windows.
        int64_t offset = 0;
        if (pk)
          offset = P;
        else if (!nonpad.empty())
          offset = nonpad[static_cast<size_t>(b)] - Sq;
        const int64_t valid = nonpad.empty() ? T : nonpad[static_cast<size_t>(b)];
        for (int64_t i = 0; i < Sq; ++i) {
          C* row = scores.data() + i * T;
          if (mask) {
            const int64_t base = b * mstride[0] + h * mstride[1] + i * mstride[2];
            DispatchAllMask(*mask, ctx, [&]<typename M>(const M* mp) {
              for (int64_t j = 0; j < T; ++j)
                row[j] += j < mlast ? MaskBias<M, C>(mp[base + j * mstride[3]]) : neg_inf;
            });
          }
          const int64_t pos = i + offset;
          for (int64_t j = 0; j < T; ++j) {
            bool allowed = j < valid;
            if (is_causal_ && j > pos) allowed = false;
            if (left_window_ >= 0 && j < pos - left_window_) allowed = false;
            if (right_window_ >= 0 && j > pos + right_window_) allowed = false;
            if (!allowed) row[j] = neg_inf;
          }
        }
        if (qk_out && mode_ == 2)
          for (int64_t i = 0; i < Sq * T; ++i) qk_out[i] = StoreAs<E>(scores[static_cast<size_t>(i)]);

        // Softmax per row; rows with no attended key become zero.
        for (int64_t i = 0; i < Sq; ++i) {
          C* row = scores.data() + i * T;
          C mx = neg_inf;
          for (int64_t j = 0; j < T; ++j) mx = std::max(mx, row[j]);
          if (!(mx > neg_inf)) {
            std::fill(row, row + T, C(0));
            continue;
          }
          if (softmax_double_) {
            double sum = 0;
            std::vector<double> e(static_cast<size_t>(T));
            for (int64_t j = 0; j < T; ++j) sum += (e[static_cast<size_t>(j)] = std::exp(double(row[j]) - double(mx)));
            for (int64_t j = 0; j < T; ++j) row[j] = static_cast<C>(e[static_cast<size_t>(j)] / sum);
          } else {
            C sum = 0;
            for (int64_t j = 0; j < T; ++j) sum += (row[j] = std::exp(row[j] - mx));
            const C inv = C(1) / sum;
            for (int64_t j = 0; j < T; ++j) row[j] *= inv;
          }
        }
        if (qk_out && mode_ == 3)
          for (int64_t i = 0; i < Sq * T; ++i) qk_out[i] = StoreAs<E>(scores[static_cast<size_t>(i)]);

        if (Dv > 0) GemmNN(static_cast<int>(Sq), static_cast<int>(Dv), static_cast<int>(T), scores.data(), vm,
                           out.data());
        for (int64_t i = 0; i < Sq; ++i) {
          int64_t dst = is3d ? (b * Sq + i) * Hq * Dv + h * Dv : (bh * Sq + i) * Dv;
          for (int64_t d = 0; d < Dv; ++d) yp[dst + d] = StoreAs<E>(out[static_cast<size_t>(i * Dv + d)]);
        }
      }
    };
    const int64_t per = std::max<int64_t>(1, Sq * T * (Dh + Dv));
    ParallelFor(ctx.thread_pool(), B * Hq, std::max<int64_t>(1, 65536 / per), work);
  }

  // Calls fn(const M* data) with the mask's element type.
  template <typename Fn>
  static void DispatchAllMask(const Tensor& m, const KernelContext& ctx, Fn&& fn) {
    switch (m.dtype()) {
      case DataType::kBool: fn(m.data<bool>()); return;
      case DataType::kFloat: fn(m.data<float>()); return;
      case DataType::kDouble: fn(m.data<double>()); return;
      case DataType::kFloat16: fn(m.data<Float16>()); return;
      case DataType::kBFloat16: fn(m.data<BFloat16>()); return;
      case DataType::kInt8: fn(m.data<int8_t>()); return;
      case DataType::kInt16: fn(m.data<int16_t>()); return;
      case DataType::kInt32: fn(m.data<int32_t>()); return;
      case DataType::kInt64: fn(m.data<int64_t>()); return;
      case DataType::kUInt8: fn(m.data<uint8_t>()); return;
      case DataType::kUInt16: fn(m.data<uint16_t>()); return;
      case DataType::kUInt32: fn(m.data<uint32_t>()); return;
      case DataType::kUInt64: fn(m.data<uint64_t>()); return;
      default: ctx.Fail("unsupported attn_mask element type ", DataTypeName(m.dtype()));
    }
  }

  int64_t opset_;
  bool is_causal_ = false;
  int64_t q_heads_ = 0, kv_heads_ = 0;
  int64_t mode_ = 0;
  bool has_scale_ = false;
  float scale_ = 0.f;
  float softcap_ = 0.f;
  bool softmax_double_ = false;
  int64_t left_window_ = -1, right_window_ = -1;
};

// ---- RotaryEmbedding ----------------------------------------------------------
// ai.onnx (23+): X, cos_cache, sin_cache [, position_ids (B, S)]; without
// position ids the caches are per token, (B, S, rot / 2).
// com.microsoft (ONNX Runtime's): input, position_ids, cos_cache, sin_cache,
// with position_ids (B, S) or one offset (1,) for positions offset + s, and
// a 3-D input's head size read from the cache when num_heads is not given.

template <bool kMicrosoft>
class RotaryEmbedding final : public OpKernel {
 public:
  explicit RotaryEmbedding(const KernelInfo& info) {
    interleaved_ = info.attr_int("interleaved", 0) != 0;
    num_heads_ = info.attr_int("num_heads", 0);
    rot_dim_ = info.attr_int("rotary_embedding_dim", 0);
    if (num_heads_ < 0) info.Fail("num_heads must be positive, got ", num_heads_);
    if (rot_dim_ < 0) info.Fail("rotary_embedding_dim must be >= 0, got ", rot_dim_);
    if constexpr (kMicrosoft) {
      if (info.attr_int("is_packed_batching", 0) != 0)
        info.Fail("is_packed_batching=1 (ragged batches) is not supported");
      if (rot_dim_ > 0 && num_heads_ == 0) info.Fail("rotary_embedding_dim needs the num_heads attribute");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() { Run<T>(ctx); });
  }

 private:
  static constexpr size_t kCos = kMicrosoft ? 2 : 1;
  static constexpr size_t kSin = kMicrosoft ? 3 : 2;
  static constexpr size_t kPos = kMicrosoft ? 1 : 3;

  template <typename T>
  void Run(KernelContext& ctx) const {
    using C = typename cpu::Compute<T>::type;
    const Tensor& x = ctx.input(0);
    const Tensor& cosc = ctx.input(kCos);
    const Tensor& sinc = ctx.input(kSin);
    if (cosc.dtype() != x.dtype() || sinc.dtype() != x.dtype())
      ctx.Fail("cos_cache and sin_cache must have X's element type");
    int64_t B, S, N, Hd;
    const bool is3d = x.rank() == 3;
    if (is3d) {
      int64_t heads = num_heads_;
      if (heads <= 0 && kMicrosoft && cosc.rank() == 2 && cosc.dim(1) > 0 && x.dim(2) % (2 * cosc.dim(1)) == 0)
        heads = x.dim(2) / (2 * cosc.dim(1));  // the cache spans the whole head
      if (heads <= 0) ctx.Fail("3-D input needs the num_heads attribute");
      B = x.dim(0);
      S = x.dim(1);
      N = heads;
      if (x.dim(2) % N) ctx.Fail("hidden size ", x.dim(2), " is not a multiple of num_heads ", N);
      Hd = x.dim(2) / N;
    } else if (x.rank() == 4) {
      B = x.dim(0);
      N = x.dim(1);
      S = x.dim(2);
      Hd = x.dim(3);
    } else {
      ctx.Fail("X must be 3-D or 4-D, got ", x.Describe());
    }
    const int64_t rot = rot_dim_ > 0 ? rot_dim_ : Hd;
    if (rot > Hd || rot % 2) ctx.Fail("rotary dimension ", rot, " must be even and <= head size ", Hd);
    const int64_t half = rot / 2;

    const bool has_pos = kMicrosoft || ctx.has_input(kPos);
    std::vector<int64_t> pos;
    if (has_pos) {
      const Tensor& p = ctx.input(kPos);
      const bool offset_form = kMicrosoft && p.numel() == 1 && p.rank() <= 1;
      if (!IsInteger(p.dtype()) || (!offset_form && (p.rank() != 2 || p.dim(0) != B || p.dim(1) != S)))
        ctx.Fail("position_ids must be an integer [", B, ",", S, "] tensor", kMicrosoft ? " or one offset" : "",
                 ", got ", p.Describe());
      if (cosc.rank() != 2 || sinc.shape() != cosc.shape() || cosc.dim(1) != half)
        ctx.Fail("with position_ids, cos_cache/sin_cache must be [max_position, ", half, "], got ", cosc.Describe(),
                 " and ", sinc.Describe());
      pos = p.ToInt64Vector();
      if (offset_form) {
        const int64_t start = pos[0];
        pos.resize(static_cast<size_t>(B * S));
        for (int64_t bs = 0; bs < B * S; ++bs) pos[static_cast<size_t>(bs)] = start + bs % S;
      }
      for (int64_t v : pos)
        if (v < 0 || v >= cosc.dim(0)) ctx.Fail("position id ", v, " is outside the caches' [0, ", cosc.dim(0), ")");
    } else {
      if (cosc.rank() != 3 || sinc.shape() != cosc.shape() || cosc.dim(0) != B || cosc.dim(1) != S ||
          cosc.dim(2) != half)
        ctx.Fail("without position_ids, cos_cache/sin_cache must be [", B, ",", S, ",", half, "], got ",
                 cosc.Describe(), " and ", sinc.Describe());
    }

    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    const T* xp = x.data<T>();
    const T* cp = cosc.data<T>();
    const T* sp = sinc.data<T>();
    T* yp = y.data<T>();
    const bool inter = interleaved_;
    auto work = [&](int64_t begin, int64_t end) {
      for (int64_t bs = begin; bs < end; ++bs) {
        const int64_t b = bs / S, s = bs % S;
        const int64_t row = has_pos ? pos[static_cast<size_t>(bs)] : bs;
        const T* c = cp + row * half;
        const T* sn = sp + row * half;
        for (int64_t n = 0; n < N; ++n) {
          const int64_t off = is3d ? (b * S + s) * N * Hd + n * Hd : ((b * N + n) * S + s) * Hd;
          const T* xi = xp + off;
          T* yo = yp + off;
          for (int64_t i = 0; i < half; ++i) {
            const int64_t i1 = inter ? 2 * i : i;
            const int64_t i2 = inter ? 2 * i + 1 : i + half;
            const C x1 = Load(xi[i1]), x2 = Load(xi[i2]);
            const C cv = Load(c[i]), sv = Load(sn[i]);
            yo[i1] = StoreAs<T>(static_cast<C>(cv * x1 - sv * x2));
            yo[i2] = StoreAs<T>(static_cast<C>(sv * x1 + cv * x2));
          }
          for (int64_t i = rot; i < Hd; ++i) yo[i] = xi[i];
        }
      }
    };
    ParallelFor(ctx.thread_pool(), B * S, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, N * Hd)), work);
  }

  bool interleaved_ = false;
  int64_t num_heads_ = 0;
  int64_t rot_dim_ = 0;
};

}  // namespace

std::vector<KernelRow> AttentionKernels() {
  return {
      {"ai.onnx", "Attention", 23, 23, types::Floats(), Make<Attention>()},
      // 24 adds nonpad_kv_seqlen; 25's window attributes are honoured when present.
      {"ai.onnx", "Attention", 24, kMaxOnnxOpset, types::Floats(), Make<Attention>()},
      {"ai.onnx", "RotaryEmbedding", 23, kMaxOnnxOpset,
       {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}, Make<RotaryEmbedding<false>>()},
      {kMicrosoftDomain, "RotaryEmbedding", 1, 1, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16},
       Make<RotaryEmbedding<true>>()},
  };
}

}  // namespace tessera::cpu
