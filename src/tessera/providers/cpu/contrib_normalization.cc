// com.microsoft normalizations, as ONNX Runtime's transformer optimizer and
// LLM builders write them (its ContribOperators reference):
//   SkipLayerNormalization(input, skip, gamma [, beta] [, bias])
//   SkipSimplifiedLayerNormalization(input, skip, gamma [, bias])
//     -> output [, mean] [, inv_std_var] [, input_skip_bias_sum]
//   BiasSoftmax(data, bias): Softmax(data + bias) over the axes from `axis`
//     on, flattened as opset-11 Softmax does.
//   EmbedLayerNormalization(input_ids, segment_ids, word, position, segment
//     embeddings, gamma, beta [, mask] [, position_ids]): BERT's embeddings,
//     summed and normalized -> output, mask_index (tokens per row; zeros
//     without a mask, as ORT writes), sum.
// The sum input + skip (+ bias) is rounded to the element type before the
// statistics, as the unfused Add would store it; statistics accumulate in
// double (float rows use the vectorized LayerNormalization row).
#include <algorithm>
#include <cmath>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

template <bool kSimplified>
class SkipNormalization final : public OpKernel {
 public:
  explicit SkipNormalization(const KernelInfo& info) : epsilon_(info.attr_float("epsilon", 1e-12f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& skip = ctx.input(1);
    const Tensor& gamma = ctx.input(2);
    // SkipLayerNormalization: beta at 3, bias at 4; the simplified form has
    // no beta and its bias at 3.
    const Tensor* beta = kSimplified ? nullptr : ctx.optional_input(3);
    const size_t bias_index = kSimplified ? 3 : 4;
    const Tensor* bias = ctx.optional_input(bias_index);
    if (x.rank() < 1) ctx.Fail("input must have rank >= 1, got a scalar");
    const int64_t d = x.shape().back();
    for (const Tensor* t : {&skip, &gamma, beta, bias})
      if (t && t->dtype() != x.dtype())
        ctx.Fail("inputs must share the input's element type ", DataTypeName(x.dtype()), ", got ", t->Describe());
    for (const Tensor* t : {&gamma, beta, bias})
      if (t && (t->rank() != 1 || t->shape()[0] != d))
        ctx.Fail("gamma, beta and bias must be vectors of the hidden size ", d, ", got ", t->Describe());
    // skip is the input's shape, or its trailing dimensions ((1, S, H) or
    // (S, H) against (B, S, H)): broadcast over the leading ones.
    const Shape& xs = x.shape();
    Shape trimmed = skip.shape();
    while (trimmed.size() > 1 && trimmed.front() == 1 && trimmed.size() >= xs.size()) trimmed.erase(trimmed.begin());
    if (trimmed.empty() || trimmed.size() > xs.size() || !std::equal(trimmed.rbegin(), trimmed.rend(), xs.rbegin()))
      ctx.Fail("skip ", skip.Describe(), " must have the input's shape ", ShapeToString(xs),
               " or its trailing dimensions");
    const int64_t rows = d > 0 ? x.numel() / d : 0;
    const int64_t skip_rows = d > 0 ? skip.numel() / d : 0;
    Tensor& y = ctx.allocate_output(0, x.dtype(), xs);
    Shape stat_shape = xs;
    stat_shape.back() = 1;
    const DataType stat_type = DataType::kFloat;  // the schema's U: float whatever T is
    Tensor* mean_t = Optional(ctx, 1, stat_type, stat_shape);
    Tensor* inv_t = Optional(ctx, 2, stat_type, stat_shape);
    Tensor* sum_t = Optional(ctx, 3, x.dtype(), xs);
    if (rows == 0) return;
    std::vector<double> means(static_cast<size_t>(rows)), invs(static_cast<size_t>(rows));
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      const T* sp = skip.data<T>();
      const T* gp = gamma.data<T>();
      const T* bp = beta ? beta->data<T>() : nullptr;
      const T* biasp = bias ? bias->data<T>() : nullptr;
      T* yp = y.data<T>();
      T* sump = sum_t ? sum_t->data<T>() : nullptr;
      const double eps = static_cast<double>(epsilon_);
      ParallelFor(ctx.thread_pool(), rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(d, 1)),
                  [&](int64_t lo, int64_t hi) {
                    std::vector<T> scratch(sump ? 0 : static_cast<size_t>(d));
                    for (int64_t r = lo; r < hi; ++r) {
                      T* s = sump ? sump + r * d : scratch.data();
                      const T* xr = xp + r * d;
                      const T* kr = sp + (r % skip_rows) * d;
                      for (int64_t j = 0; j < d; ++j) {
                        auto v = Load(xr[j]) + Load(kr[j]);
                        if (biasp) v += Load(biasp[j]);
                        s[j] = StoreAs<T>(v);
                      }
                      T* yr = yp + r * d;
                      if constexpr (!kSimplified && std::is_same_v<T, float>) {
                        float mean, inv;
                        LayerNormRowF32(s, d, gp, bp, eps, yr, &mean, &inv);
                        means[static_cast<size_t>(r)] = mean;
                        invs[static_cast<size_t>(r)] = inv;
                        continue;
                      }
                      double mean = 0;
                      if (!kSimplified) {
                        for (int64_t j = 0; j < d; ++j) mean += static_cast<double>(Load(s[j]));
                        mean /= static_cast<double>(d);
                      }
                      double sq = 0;
                      for (int64_t j = 0; j < d; ++j) {
                        double c = static_cast<double>(Load(s[j])) - mean;
                        sq += c * c;
                      }
                      double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
                      means[static_cast<size_t>(r)] = mean;
                      invs[static_cast<size_t>(r)] = inv;
                      using C = typename cpu::Compute<T>::type;
                      for (int64_t j = 0; j < d; ++j) {
                        double v = (static_cast<double>(Load(s[j])) - mean) * inv * static_cast<double>(Load(gp[j]));
                        if (bp) v += static_cast<double>(Load(bp[j]));
                        yr[j] = StoreAs<T>(static_cast<C>(v));
                      }
                    }
                  });
    });
    WriteStats(mean_t, means);
    WriteStats(inv_t, invs);
  }

 private:
  static Tensor* Optional(KernelContext& ctx, size_t i, DataType dt, const Shape& shape) {
    return ctx.num_outputs() > i && ctx.output_requested(i) ? &ctx.allocate_output(i, dt, shape) : nullptr;
  }
  static void WriteStats(Tensor* t, const std::vector<double>& v) {
    if (!t) return;
    std::transform(v.begin(), v.end(), t->data<float>(), [](double a) { return static_cast<float>(a); });
  }

  float epsilon_;
};

// ---- BiasSoftmax ----------------------------------------------------------------
// bias broadcasts to data's shape (numpy rules; is_inner_broadcast names
// which of data's axes it repeats over, which the shapes already say).

class BiasSoftmax final : public OpKernel {
 public:
  explicit BiasSoftmax(const KernelInfo& info) : axis_(info.attr_int("axis", 1)) {
    info.attr_int("is_inner_broadcast");  // required by the schema
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    if (bias.dtype() != x.dtype())
      ctx.Fail("bias must have data's element type ", DataTypeName(x.dtype()), ", got ", bias.Describe());
    const Shape& xs = x.shape();
    const int64_t r = x.rank();
    if (bias.rank() > r) ctx.Fail("bias ", bias.Describe(), " has a higher rank than data ", x.Describe());
    // Element strides of bias over data's axes (0 where it repeats).
    std::vector<int64_t> bstride(static_cast<size_t>(r), 0);
    int64_t stride = 1;
    for (int64_t k = bias.rank() - 1; k >= 0; --k) {
      const int64_t axis = r - bias.rank() + k;
      const int64_t bd = bias.shape()[static_cast<size_t>(k)];
      const int64_t xd = xs[static_cast<size_t>(axis)];
      if (bd != xd && bd != 1)
        ctx.Fail("bias ", bias.Describe(), " does not broadcast to data ", x.Describe(), " (axis ", axis, ")");
      bstride[static_cast<size_t>(axis)] = bd == 1 ? 0 : stride;
      stride *= bd;
    }
    const int64_t axis = r == 0 ? 0 : NormalizeAxis(axis_, r, ctx);
    const int64_t inner = SizeFromDim(xs, static_cast<size_t>(axis));
    const int64_t outer = SizeToDim(xs, static_cast<size_t>(axis));
    Tensor& y = ctx.allocate_output(0, x.dtype(), xs);
    if (x.numel() == 0) return;
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      const T* xp = x.data<T>();
      const T* bp = bias.data<T>();
      T* yp = y.data<T>();
      using C = typename cpu::Compute<T>::type;
      ParallelFor(ctx.thread_pool(), outer, std::max<int64_t>(1, 4096 / std::max<int64_t>(inner, 1)),
                  [&](int64_t lo, int64_t hi) {
                    std::vector<int64_t> idx(static_cast<size_t>(r));
                    std::vector<double> row(static_cast<size_t>(inner));
                    for (int64_t o = lo; o < hi; ++o) {
                      // The bias offset of the row's first element, then an
                      // odometer over the row's own axes.
                      int64_t rem = o * inner;
                      for (int64_t k = r - 1; k >= 0; --k) {
                        idx[static_cast<size_t>(k)] = rem % xs[static_cast<size_t>(k)];
                        rem /= xs[static_cast<size_t>(k)];
                      }
                      int64_t boff = 0;
                      for (int64_t k = 0; k < r; ++k) boff += idx[static_cast<size_t>(k)] * bstride[static_cast<size_t>(k)];
                      double mx = -INFINITY;
                      for (int64_t j = 0; j < inner; ++j) {
                        double v = static_cast<double>(Load(StoreAs<T>(Load(xp[o * inner + j]) + Load(bp[boff]))));
                        row[static_cast<size_t>(j)] = v;
                        mx = std::max(mx, v);
                        for (int64_t k = r - 1; k >= axis; --k) {
                          const size_t ku = static_cast<size_t>(k);
                          boff += bstride[ku];
                          if (++idx[ku] < xs[ku]) break;
                          boff -= bstride[ku] * xs[ku];
                          idx[ku] = 0;
                        }
                      }
                      double sum = 0;
                      for (double& v : row) sum += (v = std::exp(v - mx));
                      for (int64_t j = 0; j < inner; ++j)
                        yp[o * inner + j] = StoreAs<T>(static_cast<C>(row[static_cast<size_t>(j)] / sum));
                    }
                  });
    });
  }

 private:
  int64_t axis_;
};

// ---- EmbedLayerNormalization ----------------------------------------------------

class EmbedLayerNormalization final : public OpKernel {
 public:
  explicit EmbedLayerNormalization(const KernelInfo& info)
      : epsilon_(info.attr_float("epsilon", 1e-12f)), mask_index_type_(info.attr_int("mask_index_type", 1)) {
    if (mask_index_type_ != 0 && mask_index_type_ != 1)
      info.Fail("mask_index_type must be 0 or 1, got ", mask_index_type_);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& ids = ctx.input(0);
    const Tensor* seg_ids = ctx.optional_input(1);
    const Tensor& word = ctx.input(2);
    const Tensor& pos = ctx.input(3);
    const Tensor* seg = ctx.optional_input(4);
    const Tensor& gamma = ctx.input(5);
    const Tensor& beta = ctx.input(6);
    const Tensor* mask = ctx.optional_input(7);
    const Tensor* pos_ids = ctx.optional_input(8);
    if (ids.dtype() != DataType::kInt32 || ids.rank() != 2) ctx.Fail("input_ids must be int32 (batch, sequence), got ", ids.Describe());
    const int64_t B = ids.dim(0), S = ids.dim(1);
    if (word.rank() != 2 || word.dtype() != DataType::kFloat)
      ctx.Fail("word_embedding must be float (vocabulary, hidden), got ", word.Describe());
    const int64_t H = word.dim(1);
    auto table = [&](const Tensor* t, const char* what) {
      if (t && (t->dtype() != DataType::kFloat || t->rank() != 2 || t->dim(1) != H))
        ctx.Fail(what, " must be float (rows, ", H, "), got ", t->Describe());
    };
    table(&pos, "position_embedding");
    table(seg, "segment_embedding");
    for (const Tensor* t : {&gamma, &beta})
      if (t->dtype() != DataType::kFloat || t->numel() != H) ctx.Fail("gamma and beta must hold ", H, " floats, got ", t->Describe());
    auto same_ids = [&](const Tensor* t, const char* what, bool row_broadcast) {
      if (!t) return;
      const bool ok = t->dtype() == DataType::kInt32 && t->rank() == 2 && t->dim(1) == S &&
                      (t->dim(0) == B || (row_broadcast && t->dim(0) == 1));
      if (!ok) ctx.Fail(what, " must be int32 (", B, ", ", S, ")", row_broadcast ? " or (1, S)" : "", ", got ", t->Describe());
    };
    same_ids(seg_ids, "segment_ids", false);
    same_ids(mask, "mask", false);
    same_ids(pos_ids, "position_ids", true);
    if (seg_ids && !seg) ctx.Fail("segment_ids are given without segment_embedding");
    auto lookup = [&](const Tensor& t, int32_t id, const char* what) {
      if (id < 0 || id >= t.dim(0)) ctx.Fail(what, " ", id, " is outside the table's ", t.dim(0), " rows");
      return t.data<float>() + int64_t{id} * H;
    };
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, {B, S, H});
    Tensor* sum_t = ctx.num_outputs() > 2 && ctx.output_requested(2) ? &ctx.allocate_output(2, DataType::kFloat, {B, S, H})
                                                                      : nullptr;
    std::vector<float> sum(static_cast<size_t>(H));
    for (int64_t b = 0; b < B; ++b)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t t = b * S + s;
        const float* w = lookup(word, ids.data<int32_t>()[t], "input id");
        const int32_t p = pos_ids ? pos_ids->data<int32_t>()[(pos_ids->dim(0) == 1 ? 0 : b) * S + s] : static_cast<int32_t>(s);
        const float* pe = lookup(pos, p, "position");
        const float* se = seg_ids ? lookup(*seg, seg_ids->data<int32_t>()[t], "segment id") : nullptr;
        float* dst = sum_t ? sum_t->data<float>() + t * H : sum.data();
        for (int64_t j = 0; j < H; ++j) dst[j] = w[j] + pe[j] + (se ? se[j] : 0.f);
        float mean, inv;
        LayerNormRowF32(dst, H, gamma.data<float>(), beta.data<float>(), epsilon_, y.data<float>() + t * H, &mean, &inv);
      }
    if (mask_index_type_ == 1 && ctx.num_outputs() > 1 && ctx.output_requested(1)) {
      // Tokens per row: the right-padding lengths Attention's (B) mask takes.
      // Without a mask ONNX Runtime writes zeros; so does Tessera.
      Tensor& mi = ctx.allocate_output(1, DataType::kInt32, {B});
      for (int64_t b = 0; b < B; ++b) {
        int32_t n = 0;
        if (mask) {
          n = 0;
          for (int64_t s = 0; s < S; ++s) n += mask->data<int32_t>()[b * S + s] != 0 ? 1 : 0;
        }
        mi.data<int32_t>()[b] = n;
      }
    }
  }

 private:
  float epsilon_;
  int64_t mask_index_type_;
};

}  // namespace

std::vector<KernelRow> MicrosoftNormalizationKernels() {
  const std::vector<DataType> floats = types::Floats();
  return {
      {kMicrosoftDomain, "SkipLayerNormalization", 1, 1, floats, Make<SkipNormalization<false>>()},
      {kMicrosoftDomain, "SkipSimplifiedLayerNormalization", 1, 1, floats, Make<SkipNormalization<true>>()},
      {kMicrosoftDomain, "BiasSoftmax", 1, 1, floats, Make<BiasSoftmax>()},
      {kMicrosoftDomain, "EmbedLayerNormalization", 1, 1, {DataType::kInt32}, Make<EmbedLayerNormalization>()},
  };
}

}  // namespace tessera::cpu
