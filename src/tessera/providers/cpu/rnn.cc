// Recurrent kernels: LSTM, GRU and RNN (ai.onnx, opsets 1..28).
//
// All three share one driver: the input projection X*W^T for every time step
// and direction is one GEMM, then each step runs one (GRU: two) recurrent GEMM
// over the whole batch followed by the per-unit gate arithmetic. float16 and
// bfloat16 compute in float, double in double.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/sgemm.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/lstm_step.h"
#include "tessera/providers/cpu/matmul_gemm.h"
#include "tessera/providers/cpu/vector_math.h"

namespace tessera::cpu {

namespace {

// ---- GEMM wrappers (row-major, C = A*op(B) + beta*C) ---------------------
// The pooled GEMM splits the step's GEMM over the session's threads (the
// kernel makes its pool current) and keeps OpenBLAS on one thread.
inline void Gemm(bool trans_b, int m, int n, int k, const float* a, int lda, const float* b, int ldb, float beta,
                 float* c, int ldc) {
  GemmF32(false, trans_b, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}
inline void Gemm(bool trans_b, int m, int n, int k, const double* a, int lda, const double* b, int ldb, double beta,
                 double* c, int ldc) {
  GemmF64(false, trans_b, m, n, k, 1.0, a, lda, b, ldb, beta, c, ldc);
}

// ---- activations -------------------------------------------------------------
enum class ActKind {
  kSigmoid,
  kTanh,
  kRelu,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};


struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0.f;
  float beta = 0.f;

  // In-place over n values.
  template <typename C>
  void Apply(C* x, int64_t n) const {
    const C a = static_cast<C>(alpha), b = static_cast<C>(beta);
    switch (kind) {
      case ActKind::kSigmoid:
        if constexpr (std::is_same_v<C, float>) {
          SigmoidInPlace(x, n);
          break;
        }
        for (int64_t i = 0; i < n; ++i) {
          // Stable for large |x|.
          C v = x[i];
          if (v >= 0) {
            x[i] = C(1) / (C(1) + std::exp(-v));
          } else {
            C e = std::exp(v);
            x[i] = e / (C(1) + e);
          }
        }
        break;
      case ActKind::kTanh:
        if constexpr (std::is_same_v<C, float>) {
          TanhInPlace(x, n);
          break;
        }
        for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
        break;
      case ActKind::kRelu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] > C(0) ? x[i] : C(0);
        break;
      case ActKind::kAffine:
        for (int64_t i = 0; i < n; ++i) x[i] = a * x[i] + b;
        break;
      case ActKind::kLeakyRelu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= C(0) ? x[i] : a * x[i];
        break;
      case ActKind::kThresholdedRelu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] > a ? x[i] : C(0);
        break;
      case ActKind::kScaledTanh:
        for (int64_t i = 0; i < n; ++i) x[i] = a * std::tanh(b * x[i]);
        break;
      case ActKind::kHardSigmoid:
        for (int64_t i = 0; i < n; ++i) x[i] = std::min(C(1), std::max(C(0), a * x[i] + b));
        break;
      case ActKind::kElu:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] >= C(0) ? x[i] : a * (std::exp(x[i]) - C(1));
        break;
      case ActKind::kSoftsign:
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] / (C(1) + std::abs(x[i]));
        break;
      case ActKind::kSoftplus:
        for (int64_t i = 0; i < n; ++i) {
          C v = x[i];
          // log(1 + e^v) without overflow.
          x[i] = v > C(0) ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
        }
        break;
    }
  }
};

std::string Lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Parses one activation name; alpha/beta are drawn in order from the
// attribute lists by the functions that take them, defaults otherwise.
Activation ParseActivation(const KernelInfo& info, const std::string& name, const std::vector<float>& alphas,
                           size_t* alpha_pos, const std::vector<float>& betas, size_t* beta_pos) {
  std::string n = Lower(name);
  Activation act;
  bool wants_alpha = false, wants_beta = false;
  float def_alpha = 0.f, def_beta = 0.f;
  if (n == "sigmoid") {
    act.kind = ActKind::kSigmoid;
  } else if (n == "tanh") {
    act.kind = ActKind::kTanh;
  } else if (n == "relu") {
    act.kind = ActKind::kRelu;
  } else if (n == "affine") {
    act.kind = ActKind::kAffine;
    wants_alpha = wants_beta = true;
    def_alpha = 1.f;
    def_beta = 0.f;
  } else if (n == "leakyrelu") {
    act.kind = ActKind::kLeakyRelu;
    wants_alpha = true;
    def_alpha = 0.01f;
  } else if (n == "thresholdedrelu") {
    act.kind = ActKind::kThresholdedRelu;
    wants_alpha = true;
    def_alpha = 1.f;
  } else if (n == "scaledtanh") {
    act.kind = ActKind::kScaledTanh;
    wants_alpha = wants_beta = true;
    def_alpha = 1.f;
    def_beta = 1.f;
  } else if (n == "hardsigmoid") {
    act.kind = ActKind::kHardSigmoid;
    wants_alpha = wants_beta = true;
    def_alpha = 0.2f;
    def_beta = 0.5f;
  } else if (n == "elu") {
    act.kind = ActKind::kElu;
    wants_alpha = true;
    def_alpha = 1.f;
  } else if (n == "softsign") {
    act.kind = ActKind::kSoftsign;
  } else if (n == "softplus") {
    act.kind = ActKind::kSoftplus;
  } else {
    info.Fail("unsupported activation function '", name, "'");
  }
  act.alpha = def_alpha;
  act.beta = def_beta;
  if (wants_alpha && *alpha_pos < alphas.size()) act.alpha = alphas[(*alpha_pos)++];
  if (wants_beta && *beta_pos < betas.size()) act.beta = betas[(*beta_pos)++];
  return act;
}

enum class CellKind { kRnn, kGru, kLstm };

int GatesOf(CellKind k) { return k == CellKind::kRnn ? 1 : k == CellKind::kGru ? 3 : 4; }
int ActsPerDirection(CellKind k) { return k == CellKind::kRnn ? 1 : k == CellKind::kGru ? 2 : 3; }

// A contiguous copy of a tensor in the compute type.
template <typename T, typename C>
std::vector<C> ToCompute(const Tensor& t) {
  std::vector<C> out(static_cast<size_t>(t.numel()));
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) out[static_cast<size_t>(i)] = static_cast<C>(Load(p[i]));
  return out;
}

class RecurrentBase : public OpKernel {
 public:
  RecurrentBase(const KernelInfo& info, CellKind kind) : kind_(kind) {
    hidden_size_ = info.attr_int("hidden_size", -1);
    if (info.has_attr("hidden_size") && hidden_size_ <= 0)
      info.Fail("hidden_size must be positive, got ", hidden_size_);
    std::string dir = info.attr_string("direction", "forward");
    if (dir == "forward") {
      num_dirs_ = 1;
      reverse_only_ = false;
    } else if (dir == "reverse") {
      num_dirs_ = 1;
      reverse_only_ = true;
    } else if (dir == "bidirectional") {
      num_dirs_ = 2;
      reverse_only_ = false;
    } else {
      info.Fail("direction must be forward, reverse or bidirectional, got '", dir, "'");
    }
    if (info.has_attr("clip")) {
      clip_ = info.attr_float("clip");
      if (!(clip_ > 0.f)) info.Fail("clip must be positive, got ", clip_);
      has_clip_ = true;
    }
    layout_ = info.opset() >= 14 ? info.attr_int("layout", 0) : 0;
    if (layout_ != 0 && layout_ != 1) info.Fail("layout must be 0 or 1, got ", layout_);
    if (kind_ == CellKind::kLstm) input_forget_ = info.attr_int("input_forget", 0) != 0;
    if (kind_ == CellKind::kGru) linear_before_reset_ = info.attr_int("linear_before_reset", 0) != 0;

    std::vector<std::string> defaults;
    if (kind_ == CellKind::kRnn) defaults = {"Tanh"};
    if (kind_ == CellKind::kGru) defaults = {"Sigmoid", "Tanh"};
    if (kind_ == CellKind::kLstm) defaults = {"Sigmoid", "Tanh", "Tanh"};
    std::vector<std::string> names = info.attr_strings("activations", {});
    size_t per_dir = static_cast<size_t>(ActsPerDirection(kind_));
    if (names.empty()) {
      for (int d = 0; d < num_dirs_; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    } else if (names.size() == per_dir && num_dirs_ == 2) {
      // Some exporters give one set for both directions.
      std::vector<std::string> twice = names;
      twice.insert(twice.end(), names.begin(), names.end());
      names = twice;
    }
    if (names.size() != per_dir * static_cast<size_t>(num_dirs_))
      info.Fail("expected ", per_dir * static_cast<size_t>(num_dirs_), " activations, got ", names.size());
    std::vector<float> alphas = info.attr_floats("activation_alpha", {});
    std::vector<float> betas = info.attr_floats("activation_beta", {});
    size_t ap = 0, bp = 0;
    for (const auto& n : names) acts_.push_back(ParseActivation(info, n, alphas, &ap, betas, &bp));
    PackRecurrence(info);
  }

  // W and R, when packed for the fused recurrence, are not read again.
  bool ReadsInput(size_t input_index) const override {
    if (input_index == 1) return packed_w_.empty();
    if (input_index == 2) return packed_r_.empty();
    return true;
  }

  void Compute(KernelContext& ctx) const override {
    ThreadPool::CurrentScope threads(ctx.thread_pool());  // the per-step GEMMs split over it
    const Tensor& x = ctx.input(0);
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      if constexpr (std::is_same_v<T, double>)
        Run<T, double>(ctx);
      else
        Run<T, float>(ctx);
    });
  }

 private:
  // Float LSTMs with the default activations and a constant, well-formed R
  // run the fused recurrence of lstm_step.h; anything else keeps the GEMM
  // per step below (and reports a bad R or W when it runs).
  void PackRecurrence(const KernelInfo& info) {
    if (kind_ != CellKind::kLstm) return;
    for (size_t i = 0; i < acts_.size(); ++i)
      if (acts_[i].kind != (i % 3 == 0 ? ActKind::kSigmoid : ActKind::kTanh)) return;
    const Tensor* r = info.constant_input(2);
    if (r == nullptr || r->dtype() != DataType::kFloat || r->rank() != 3) return;
    const int64_t H = r->dim(2);
    if (H <= 0 || (hidden_size_ > 0 && hidden_size_ != H) || r->dim(0) != num_dirs_ || r->dim(1) != 4 * H) return;
    for (int64_t d = 0; d < num_dirs_; ++d)
      packed_r_.emplace_back(std::make_shared<const LstmPackedWeights>(r->data<float>() + d * 4 * H * H, H, H));
    // W too when constant: the input projection of every step at once is
    // then one product on the packed GEMM (compute-bound), not a pass over
    // W per step.
    const Tensor* w = info.constant_input(1);
    if (w == nullptr || w->dtype() != DataType::kFloat || w->rank() != 3 || w->dim(0) != num_dirs_ ||
        w->dim(1) != 4 * H || w->dim(2) <= 0)
      return;
    const int64_t I = w->dim(2);
    for (int64_t d = 0; d < num_dirs_; ++d)
      packed_w_.emplace_back(std::make_shared<const PackedB>(true, I, 4 * H, w->data<float>() + d * 4 * H * I, I));
  }

  template <typename C>
  void Clip(C* v, int64_t n) const {
    if (!has_clip_) return;
    const C c = static_cast<C>(clip_);
    for (int64_t i = 0; i < n; ++i) v[i] = std::min(c, std::max(-c, v[i]));
  }

  template <typename T, typename C>
  void Run(KernelContext& ctx) const {
    const Tensor& x = ctx.input(0);
    const bool packed_w = !packed_w_.empty();
    const Tensor* w = packed_w ? nullptr : &ctx.input(1);
    // A packed R was checked and converted at creation (and may be freed).
    const bool fused = !packed_r_.empty();
    const Tensor* r = fused ? nullptr : &ctx.input(2);
    const DataType dt = x.dtype();
    if ((packed_w ? dt != DataType::kFloat : w->dtype() != dt) || (fused ? dt != DataType::kFloat : r->dtype() != dt))
      ctx.Fail("W and R must have the same element type as X");
    if (x.rank() != 3) ctx.Fail("X must be 3-D, got ", x.Describe());
    if (!packed_w && w->rank() != 3) ctx.Fail("W must be 3-D, got ", w->Describe());
    if (!fused && r->rank() != 3) ctx.Fail("R must be 3-D, got ", r->Describe());
    const int64_t seq_len = layout_ == 0 ? x.dim(0) : x.dim(1);
    const int64_t batch = layout_ == 0 ? x.dim(1) : x.dim(0);
    const int64_t input_size = x.dim(2);
    const int64_t D = num_dirs_;
    const int64_t G = GatesOf(kind_);
    const int64_t H = fused ? packed_r_[0]->hidden() : hidden_size_ > 0 ? hidden_size_ : r->dim(2);
    if (H <= 0) ctx.Fail("hidden size must be positive");
    if (packed_w && packed_w_[0]->k() != input_size)
      ctx.Fail("X has input size ", input_size, " but W expects ", packed_w_[0]->k());
    if (!packed_w && (w->dim(0) != D || w->dim(1) != G * H || w->dim(2) != input_size))
      ctx.Fail("W has shape ", ShapeToString(w->shape()), ", expected ", ShapeToString({D, G * H, input_size}));
    if (!fused && (r->dim(0) != D || r->dim(1) != G * H || r->dim(2) != H))
      ctx.Fail("R has shape ", ShapeToString(r->shape()), ", expected ", ShapeToString({D, G * H, H}));
    const int64_t kIntMax = std::numeric_limits<int>::max();
    if (seq_len * batch > kIntMax || G * H > kIntMax || input_size > kIntMax)
      ctx.Fail("dimensions are too large");

    // Optional inputs.
    std::vector<C> bias(static_cast<size_t>(D * 2 * G * H), C(0));
    if (ctx.has_input(3)) {
      const Tensor& b = ctx.input(3);
      if (b.dtype() != dt) ctx.Fail("B must have the same element type as X");
      if (b.shape() != Shape{D, 2 * G * H})
        ctx.Fail("B has shape ", ShapeToString(b.shape()), ", expected ", ShapeToString({D, 2 * G * H}));
      bias = ToCompute<T, C>(b);
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), seq_len);
    if (ctx.has_input(4)) {
      const Tensor& sl = ctx.input(4);
      if (sl.dtype() != DataType::kInt32 && sl.dtype() != DataType::kInt64)
        ctx.Fail("sequence_lens must be int32, got ", DataTypeName(sl.dtype()));
      if (sl.numel() != batch) ctx.Fail("sequence_lens has ", sl.numel(), " elements, expected batch size ", batch);
      for (int64_t b = 0; b < batch; ++b) {
        int64_t v = sl.GetAsInt64(b);
        if (v < 0 || v > seq_len)
          ctx.Fail("sequence_lens[", b, "] = ", v, " is outside [0, ", seq_len, "]");
        lens[static_cast<size_t>(b)] = v;
      }
    }
    const Shape state_shape = layout_ == 0 ? Shape{D, batch, H} : Shape{batch, D, H};
    auto load_state = [&](size_t idx, const char* name) {
      std::vector<C> s(static_cast<size_t>(D * batch * H), C(0));
      if (!ctx.has_input(idx)) return s;
      const Tensor& t = ctx.input(idx);
      if (t.dtype() != dt) ctx.Fail(name, " must have the same element type as X");
      if (t.shape() != state_shape)
        ctx.Fail(name, " has shape ", ShapeToString(t.shape()), ", expected ", ShapeToString(state_shape));
      const T* p = t.data<T>();
      // Stored as [D, batch, H] internally.
      for (int64_t d = 0; d < D; ++d)
        for (int64_t b = 0; b < batch; ++b) {
          int64_t src = layout_ == 0 ? (d * batch + b) * H : (b * D + d) * H;
          int64_t dst = (d * batch + b) * H;
          for (int64_t j = 0; j < H; ++j) s[static_cast<size_t>(dst + j)] = static_cast<C>(Load(p[src + j]));
        }
      return s;
    };
    std::vector<C> h_state = load_state(5, "initial_h");
    std::vector<C> c_state;
    std::vector<C> peep;
    if (kind_ == CellKind::kLstm) {
      c_state = load_state(6, "initial_c");
      if (ctx.has_input(7)) {
        const Tensor& p = ctx.input(7);
        if (p.dtype() != dt) ctx.Fail("P must have the same element type as X");
        if (p.shape() != Shape{D, 3 * H})
          ctx.Fail("P has shape ", ShapeToString(p.shape()), ", expected ", ShapeToString({D, 3 * H}));
        peep = ToCompute<T, C>(p);
      }
    }

    // X as [seq, batch, input].
    std::vector<C> xc(static_cast<size_t>(seq_len * batch * input_size));
    {
      const T* p = x.data<T>();
      for (int64_t t = 0; t < seq_len; ++t)
        for (int64_t b = 0; b < batch; ++b) {
          int64_t src = layout_ == 0 ? (t * batch + b) * input_size : (b * seq_len + t) * input_size;
          int64_t dst = (t * batch + b) * input_size;
          for (int64_t i = 0; i < input_size; ++i)
            xc[static_cast<size_t>(dst + i)] = static_cast<C>(Load(p[src + i]));
        }
    }
    // Weights are read in place when already in the compute type.
    std::vector<C> w_store, r_store;
    const C* wc = nullptr;
    const C* rc = nullptr;
    if constexpr (std::is_same_v<T, C>) {
      if (!packed_w) wc = w->data<C>();
      if (!fused) rc = r->data<C>();
    } else {
      if (!packed_w) {
        w_store = ToCompute<T, C>(*w);
        wc = w_store.data();
      }
      if (!fused) {
        r_store = ToCompute<T, C>(*r);
        rc = r_store.data();
      }
    }

    const bool want_y = ctx.output_requested(0);
    std::vector<C> y;  // [seq, D, batch, H]
    if (want_y) y.assign(static_cast<size_t>(seq_len * D * batch * H), C(0));

    const int64_t GH = G * H;
    std::vector<C> xw(static_cast<size_t>(seq_len * batch * GH));
    std::vector<C> rec(static_cast<size_t>(batch * GH));
    std::vector<C> rh;  // GRU without linear_before_reset: r (.) h_prev
    if (kind_ == CellKind::kGru && !linear_before_reset_) rh.assign(static_cast<size_t>(batch * H), C(0));
    std::vector<C> tmp(static_cast<size_t>(GH));

    for (int64_t d = 0; d < D; ++d) {
      const bool reverse = reverse_only_ || d == 1;
      const C* wd = packed_w ? nullptr : wc + d * GH * input_size;
      const C* rd = fused ? nullptr : rc + d * GH * H;
      const C* wb = bias.data() + d * 2 * GH;
      const C* rb = wb + GH;
      const Activation* act = acts_.data() + d * ActsPerDirection(kind_);
      C* hs = h_state.data() + d * batch * H;
      C* cs = kind_ == CellKind::kLstm ? c_state.data() + d * batch * H : nullptr;
      const C* pd = peep.empty() ? nullptr : peep.data() + d * 3 * H;

      // Input projection for every step at once, plus the biases that are
      // plain additive terms.
      for (int64_t g = 0; g < GH; ++g) {
        bool fold_rb = !(kind_ == CellKind::kGru && linear_before_reset_ && g >= 2 * H);
        tmp[static_cast<size_t>(g)] = wb[g] + (fold_rb ? rb[g] : C(0));
      }
      // The biases first, then the products added to them (beta 1).
      for (int64_t row = 0; row < seq_len * batch; ++row)
        std::copy(tmp.begin(), tmp.end(), xw.begin() + row * GH);
      bool projected = false;
      if constexpr (std::is_same_v<C, float>) {
        if (packed_w) {
          GemmPackedF32(false, seq_len * batch, 1.f, xc.data(), input_size, *packed_w_[static_cast<size_t>(d)], 1.f,
                        xw.data(), GH);
          projected = true;
        }
      }
      if (seq_len * batch > 0 && input_size > 0 && !projected)
        Gemm(true, static_cast<int>(seq_len * batch), static_cast<int>(GH), static_cast<int>(input_size), xc.data(),
             static_cast<int>(input_size), wd, static_cast<int>(input_size), C(1), xw.data(), static_cast<int>(GH));
      if constexpr (std::is_same_v<C, float>) {
        if (fused) {
          LstmSequence seq;
          seq.r = packed_r_[static_cast<size_t>(d)].get();
          seq.gates_in = xw.data();
          seq.seq_len = seq_len;
          seq.batch = batch;
          seq.lens = lens.data();
          seq.reverse = reverse;
          seq.h = hs;
          seq.c = cs;
          seq.y = want_y ? y.data() + d * batch * H : nullptr;
          seq.y_time_stride = D * batch * H;
          seq.peephole = pd;
          seq.clip = has_clip_ ? clip_ : 0.f;
          seq.input_forget = input_forget_;
          RunLstmSequence(seq, ctx.thread_pool());
          continue;
        }
      }

      for (int64_t s = 0; s < seq_len; ++s) {
        // Recurrent projection h_prev * R^T (GRU without linear_before_reset:
        // only z and r here, the h gate follows once r is known).
        const int64_t n_rec = (kind_ == CellKind::kGru && !linear_before_reset_) ? 2 * H : GH;
        Gemm(true, static_cast<int>(batch), static_cast<int>(n_rec), static_cast<int>(H), hs, static_cast<int>(H), rd,
             static_cast<int>(H), C(0), rec.data(), static_cast<int>(GH));

        auto time_of = [&](int64_t b) -> int64_t {
          int64_t len = lens[static_cast<size_t>(b)];
          if (s >= len) return -1;
          return reverse ? len - 1 - s : s;
        };
        auto y_at = [&](int64_t t, int64_t b) -> C* {
          return want_y ? y.data() + ((t * D + d) * batch + b) * H : nullptr;
        };

        if (kind_ == CellKind::kRnn) {
          for (int64_t b = 0; b < batch; ++b) {
            int64_t t = time_of(b);
            if (t < 0) continue;
            const C* xr = xw.data() + (t * batch + b) * GH;
            C* g = rec.data() + b * GH;
            for (int64_t j = 0; j < H; ++j) g[j] += xr[j];
            Clip(g, H);
            act[0].Apply(g, H);
            std::copy(g, g + H, hs + b * H);
            if (C* yp = y_at(t, b)) std::copy(g, g + H, yp);
          }
        } else if (kind_ == CellKind::kGru) {
          // z and r.
          for (int64_t b = 0; b < batch; ++b) {
            int64_t t = time_of(b);
            if (t < 0) continue;
            const C* xr = xw.data() + (t * batch + b) * GH;
            C* g = rec.data() + b * GH;
            for (int64_t j = 0; j < 2 * H; ++j) g[j] += xr[j];
            Clip(g, 2 * H);
            act[0].Apply(g, 2 * H);
            if (!linear_before_reset_) {
              const C* hp = hs + b * H;
              C* o = rh.data() + b * H;
              for (int64_t j = 0; j < H; ++j) o[j] = g[H + j] * hp[j];
            }
          }
          if (!linear_before_reset_) {
            Gemm(true, static_cast<int>(batch), static_cast<int>(H), static_cast<int>(H), rh.data(),
                 static_cast<int>(H), rd + 2 * H * H, static_cast<int>(H), C(0), rec.data() + 2 * H,
                 static_cast<int>(GH));
          }
          for (int64_t b = 0; b < batch; ++b) {
            int64_t t = time_of(b);
            if (t < 0) continue;
            const C* xr = xw.data() + (t * batch + b) * GH;
            C* g = rec.data() + b * GH;
            C* hh = g + 2 * H;
            const C* z = g;
            const C* rr = g + H;
            if (linear_before_reset_) {
              const C* rbh = rb + 2 * H;
              for (int64_t j = 0; j < H; ++j) hh[j] = xr[2 * H + j] + rr[j] * (hh[j] + rbh[j]);
            } else {
              for (int64_t j = 0; j < H; ++j) hh[j] += xr[2 * H + j];
            }
            Clip(hh, H);
            act[1].Apply(hh, H);
            C* hp = hs + b * H;
            for (int64_t j = 0; j < H; ++j) hp[j] = (C(1) - z[j]) * hh[j] + z[j] * hp[j];
            if (C* yp = y_at(t, b)) std::copy(hp, hp + H, yp);
          }
        } else {  // LSTM, gates i o f c
          for (int64_t b = 0; b < batch; ++b) {
            int64_t t = time_of(b);
            if (t < 0) continue;
            const C* xr = xw.data() + (t * batch + b) * GH;
            C* g = rec.data() + b * GH;
            for (int64_t j = 0; j < GH; ++j) g[j] += xr[j];
            C* gi = g;
            C* go = g + H;
            C* gf = g + 2 * H;
            C* gc = g + 3 * H;
            C* cp = cs + b * H;
            C* hp = hs + b * H;
            if (pd) {
              for (int64_t j = 0; j < H; ++j) {
                gi[j] += pd[j] * cp[j];
                gf[j] += pd[2 * H + j] * cp[j];
              }
            }
            Clip(gi, H);
            act[0].Apply(gi, H);
            if (input_forget_) {
              for (int64_t j = 0; j < H; ++j) gf[j] = C(1) - gi[j];
            } else {
              Clip(gf, H);
              act[0].Apply(gf, H);
            }
            Clip(gc, H);
            act[1].Apply(gc, H);
            for (int64_t j = 0; j < H; ++j) cp[j] = gf[j] * cp[j] + gi[j] * gc[j];
            if (pd)
              for (int64_t j = 0; j < H; ++j) go[j] += pd[H + j] * cp[j];
            Clip(go, H);
            act[0].Apply(go, H);
            // h(C) into gc (no longer needed).
            std::copy(cp, cp + H, gc);
            act[2].Apply(gc, H);
            for (int64_t j = 0; j < H; ++j) hp[j] = go[j] * gc[j];
            if (C* yp = y_at(t, b)) std::copy(hp, hp + H, yp);
          }
        }
      }
    }

    // Outputs in the requested layout.
    if (want_y) {
      Shape ys = layout_ == 0 ? Shape{seq_len, D, batch, H} : Shape{batch, seq_len, D, H};
      Tensor& out = ctx.allocate_output(0, dt, ys);
      T* o = out.data<T>();
      for (int64_t t = 0; t < seq_len; ++t)
        for (int64_t d = 0; d < D; ++d)
          for (int64_t b = 0; b < batch; ++b) {
            const C* src = y.data() + ((t * D + d) * batch + b) * H;
            int64_t dst = layout_ == 0 ? ((t * D + d) * batch + b) * H : ((b * seq_len + t) * D + d) * H;
            for (int64_t j = 0; j < H; ++j) o[dst + j] = StoreAs<T>(src[j]);
          }
    }
    auto write_state = [&](size_t idx, const std::vector<C>& s) {
      Tensor& out = ctx.allocate_output(idx, dt, state_shape);
      T* o = out.data<T>();
      for (int64_t d = 0; d < D; ++d)
        for (int64_t b = 0; b < batch; ++b) {
          int64_t src = (d * batch + b) * H;
          int64_t dst = layout_ == 0 ? src : (b * D + d) * H;
          for (int64_t j = 0; j < H; ++j) o[dst + j] = StoreAs<T>(s[static_cast<size_t>(src + j)]);
        }
    };
    if (ctx.output_requested(1)) write_state(1, h_state);
    if (kind_ == CellKind::kLstm && ctx.output_requested(2)) write_state(2, c_state);
  }

  CellKind kind_;
  int64_t hidden_size_ = -1;
  int num_dirs_ = 1;
  bool reverse_only_ = false;
  float clip_ = 0.f;
  bool has_clip_ = false;
  int64_t layout_ = 0;
  bool input_forget_ = false;
  bool linear_before_reset_ = false;
  std::vector<Activation> acts_;
  std::vector<std::shared_ptr<const LstmPackedWeights>> packed_r_;  // one per direction
  std::vector<std::shared_ptr<const PackedB>> packed_w_;  // W^T, for the input projection
};

class Lstm final : public RecurrentBase {
 public:
  explicit Lstm(const KernelInfo& info) : RecurrentBase(info, CellKind::kLstm) {}
};
class Gru final : public RecurrentBase {
 public:
  explicit Gru(const KernelInfo& info) : RecurrentBase(info, CellKind::kGru) {}
};
class Rnn final : public RecurrentBase {
 public:
  explicit Rnn(const KernelInfo& info) : RecurrentBase(info, CellKind::kRnn) {}
};

std::vector<DataType> OldFloats() { return {DataType::kFloat, DataType::kDouble, DataType::kFloat16}; }

}  // namespace

std::vector<KernelRow> RecurrentKernels() {
  return {
      // 1..13: time-major only (opset 1's output_sequence only gated Y, which
      // the node's output list already expresses).
      {"ai.onnx", "LSTM", 1, 13, OldFloats(), Make<Lstm>()},
      {"ai.onnx", "LSTM", 14, 21, OldFloats(), Make<Lstm>()},  // + layout
      {"ai.onnx", "LSTM", 22, kMaxOnnxOpset, types::Floats(), Make<Lstm>()},
      {"ai.onnx", "GRU", 1, 2, OldFloats(), Make<Gru>()},
      {"ai.onnx", "GRU", 3, 13, OldFloats(), Make<Gru>()},  // + linear_before_reset
      {"ai.onnx", "GRU", 14, 21, OldFloats(), Make<Gru>()},
      {"ai.onnx", "GRU", 22, kMaxOnnxOpset, types::Floats(), Make<Gru>()},
      {"ai.onnx", "RNN", 1, 13, OldFloats(), Make<Rnn>()},
      {"ai.onnx", "RNN", 14, 21, OldFloats(), Make<Rnn>()},
      {"ai.onnx", "RNN", 22, kMaxOnnxOpset, types::Floats(), Make<Rnn>()},
  };
}

}  // namespace tessera::cpu
