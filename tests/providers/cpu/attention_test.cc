// Attention and RotaryEmbedding against naive references written here.
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "support/op_test.h"

namespace tessera::test {
namespace {

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

struct AttnCase {
  int64_t B = 2, Hq = 4, Hkv = 2, Sq = 3, Skv = 5, Dh = 4, Dv = 3, P = 0;
  bool causal = false;
  float softcap = 0.f;
  std::optional<float> scale;
  // Bool mask [Sq, mask_len] (mask_len may be < P+Skv: padded as masked).
  bool bool_mask = false;
  int64_t mask_len = 0;
  std::vector<int64_t> nonpad;
  int64_t mode = -1;  // qk_matmul_output_mode; -1 = not requested
};

// Q [B,Hq,Sq,Dh], K [B,Hkv,T,Dh], V [B,Hkv,T,Dv] (K/V already include the past).
void Reference(const AttnCase& c, const std::vector<float>& q, const std::vector<float>& k,
               const std::vector<float>& v, const std::vector<uint8_t>& mask, std::vector<float>* y,
               std::vector<float>* qk) {
  const int64_t T = c.P + c.Skv, group = c.Hq / c.Hkv;
  const double scale = c.scale ? *c.scale : 1.0 / std::sqrt(double(c.Dh));
  const double ninf = -std::numeric_limits<double>::infinity();
  y->assign(static_cast<size_t>(c.B * c.Hq * c.Sq * c.Dv), 0.f);
  qk->assign(static_cast<size_t>(c.B * c.Hq * c.Sq * T), 0.f);
  for (int64_t b = 0; b < c.B; ++b)
    for (int64_t h = 0; h < c.Hq; ++h)
      for (int64_t i = 0; i < c.Sq; ++i) {
        std::vector<double> s(T);
        int64_t kvh = h / group;
        int64_t offset = c.P > 0 ? c.P : (!c.nonpad.empty() ? c.nonpad[b] - c.Sq : 0);
        for (int64_t j = 0; j < T; ++j) {
          double a = 0;
          for (int64_t d = 0; d < c.Dh; ++d)
            a += q[((b * c.Hq + h) * c.Sq + i) * c.Dh + d] * k[((b * c.Hkv + kvh) * T + j) * c.Dh + d];
          a *= scale;
          if (c.mode == 0) (*qk)[((b * c.Hq + h) * c.Sq + i) * T + j] = float(a);
          if (c.softcap > 0) a = c.softcap * std::tanh(a / c.softcap);
          if (c.mode == 1) (*qk)[((b * c.Hq + h) * c.Sq + i) * T + j] = float(a);
          bool ok = true;
          if (c.bool_mask) ok = j < c.mask_len && mask[i * c.mask_len + j];
          if (c.causal && j > i + offset) ok = false;
          if (!c.nonpad.empty() && j >= c.nonpad[b]) ok = false;
          s[j] = ok ? a : ninf;
          if (c.mode == 2) (*qk)[((b * c.Hq + h) * c.Sq + i) * T + j] = float(s[j]);
        }
        double mx = ninf;
        for (double x : s) mx = std::max(mx, x);
        if (mx == ninf) continue;  // zero row
        double sum = 0;
        for (auto& x : s) sum += (x = std::exp(x - mx));
        for (auto& x : s) x /= sum;
        for (int64_t j = 0; j < T; ++j)
          if (c.mode == 3) (*qk)[((b * c.Hq + h) * c.Sq + i) * T + j] = float(s[j]);
        for (int64_t d = 0; d < c.Dv; ++d) {
          double a = 0;
          for (int64_t j = 0; j < T; ++j) a += s[j] * v[((b * c.Hkv + kvh) * T + j) * c.Dv + d];
          (*y)[((b * c.Hq + h) * c.Sq + i) * c.Dv + d] = float(a);
        }
      }
}

// [B, H, S, D] -> [B, S, H*D]
std::vector<float> To3d(const std::vector<float>& x, int64_t B, int64_t H, int64_t S, int64_t D) {
  std::vector<float> o(x.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < D; ++d) o[((b * S + s) * H + h) * D + d] = x[((b * H + h) * S + s) * D + d];
  return o;
}

void RunAttention(const AttnCase& c, bool three_d, int64_t opset = 23) {
  std::mt19937 rng(7);
  const int64_t T = c.P + c.Skv;
  auto q = Random(static_cast<size_t>(c.B * c.Hq * c.Sq * c.Dh), rng);
  auto k_new = Random(static_cast<size_t>(c.B * c.Hkv * c.Skv * c.Dh), rng);
  auto v_new = Random(static_cast<size_t>(c.B * c.Hkv * c.Skv * c.Dv), rng);
  auto pk = Random(static_cast<size_t>(c.B * c.Hkv * c.P * c.Dh), rng);
  auto pv = Random(static_cast<size_t>(c.B * c.Hkv * c.P * c.Dv), rng);
  std::vector<float> k(static_cast<size_t>(c.B * c.Hkv * T * c.Dh)), v(static_cast<size_t>(c.B * c.Hkv * T * c.Dv));
  for (int64_t bh = 0; bh < c.B * c.Hkv; ++bh) {
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t d = 0; d < c.Dh; ++d)
        k[(bh * T + t) * c.Dh + d] = t < c.P ? pk[(bh * c.P + t) * c.Dh + d] : k_new[(bh * c.Skv + t - c.P) * c.Dh + d];
      for (int64_t d = 0; d < c.Dv; ++d)
        v[(bh * T + t) * c.Dv + d] = t < c.P ? pv[(bh * c.P + t) * c.Dv + d] : v_new[(bh * c.Skv + t - c.P) * c.Dv + d];
    }
  }
  std::vector<uint8_t> mask;
  std::vector<bool> mask_b;
  if (c.bool_mask) {
    std::uniform_int_distribution<int> coin(0, 3);
    for (int64_t i = 0; i < c.Sq * c.mask_len; ++i) {
      mask.push_back(coin(rng) != 0);
      mask_b.push_back(mask.back());
    }
    // Row 0 fully masked: must give zeros.
    for (int64_t j = 0; j < c.mask_len; ++j) mask[j] = 0, mask_b[j] = false;
  }
  std::vector<float> y, qk;
  Reference(c, q, k, v, mask, &y, &qk);

  OpTest t("Attention", opset);
  if (c.causal) t.Attr("is_causal", int64_t{1});
  if (c.softcap > 0) t.Attr("softcap", c.softcap);
  if (c.scale) t.Attr("scale", *c.scale);
  if (c.mode >= 0) t.Attr("qk_matmul_output_mode", c.mode);
  if (three_d) {
    t.Attr("q_num_heads", c.Hq).Attr("kv_num_heads", c.Hkv);
    t.Input("Q", T_<float>(To3d(q, c.B, c.Hq, c.Sq, c.Dh), {c.B, c.Sq, c.Hq * c.Dh}));
    t.Input("K", T_<float>(To3d(k_new, c.B, c.Hkv, c.Skv, c.Dh), {c.B, c.Skv, c.Hkv * c.Dh}));
    t.Input("V", T_<float>(To3d(v_new, c.B, c.Hkv, c.Skv, c.Dv), {c.B, c.Skv, c.Hkv * c.Dv}));
  } else {
    t.Input("Q", T_<float>(q, {c.B, c.Hq, c.Sq, c.Dh}));
    t.Input("K", T_<float>(k_new, {c.B, c.Hkv, c.Skv, c.Dh}));
    t.Input("V", T_<float>(v_new, {c.B, c.Hkv, c.Skv, c.Dv}));
  }
  bool more = c.P > 0 || !c.nonpad.empty();
  if (c.bool_mask) {
    Tensor m(DataType::kBool, {c.Sq, c.mask_len});
    for (size_t i = 0; i < mask_b.size(); ++i) m.data<bool>()[i] = mask_b[i];
    t.Input("attn_mask", m);
  } else if (more) {
    t.OmittedInput();
  }
  if (c.P > 0) {
    t.Input("past_key", T_<float>(pk, {c.B, c.Hkv, c.P, c.Dh}));
    t.Input("past_value", T_<float>(pv, {c.B, c.Hkv, c.P, c.Dv}));
  } else if (!c.nonpad.empty()) {
    t.OmittedInput().OmittedInput();
  }
  if (!c.nonpad.empty()) t.Input("nonpad_kv_seqlen", T_<int64_t>(c.nonpad, {c.B}));
  if (three_d)
    t.Output("Y", T_<float>(To3d(y, c.B, c.Hq, c.Sq, c.Dv), {c.B, c.Sq, c.Hq * c.Dv}));
  else
    t.Output("Y", T_<float>(y, {c.B, c.Hq, c.Sq, c.Dv}));
  if (c.P > 0) {
    t.Output("present_key", T_<float>(k, {c.B, c.Hkv, T, c.Dh}));
    t.Output("present_value", T_<float>(v, {c.B, c.Hkv, T, c.Dv}));
  } else if (c.mode >= 0) {
    t.OmittedOutput().OmittedOutput();
  }
  if (c.mode >= 0) t.Output("qk", T_<float>(qk, {c.B, c.Hq, c.Sq, T}));
  t.Tolerance(1e-4, 1e-5);
  t.Run();
}

TEST(AttentionTest, Gqa4d) { RunAttention(AttnCase{}, false); }
TEST(AttentionTest, Gqa3d) { RunAttention(AttnCase{}, true); }

TEST(AttentionTest, CausalWithPastAndShortBoolMask) {
  AttnCase c;
  c.P = 2;
  c.causal = true;
  c.bool_mask = true;
  c.mask_len = 6;  // shorter than T = 7: last key masked
  RunAttention(c, false);
  RunAttention(c, true);
}

TEST(AttentionTest, SoftcapScaleAndQkModes) {
  AttnCase c;
  c.softcap = 0.7f;
  c.scale = 0.3f;
  c.bool_mask = true;
  c.mask_len = 5;
  for (int64_t mode : {0, 1, 2, 3}) {
    c.mode = mode;
    if (mode == 2) continue;  // -inf entries compare poorly; covered by the conformance data
    RunAttention(c, false);
  }
}

TEST(AttentionTest, NonpadKvSeqlenCausal) {
  AttnCase c;
  c.causal = true;
  c.nonpad = {5, 2};  // batch 1: offset -1, first query row fully masked
  RunAttention(c, false, 24);
}

TEST(AttentionTest, MismatchedHeadsFail) {
  OpTest t("Attention", 23);
  t.Input("Q", T_<float>(std::vector<float>(3 * 2, 0.f), {1, 3, 1, 2}));
  t.Input("K", T_<float>(std::vector<float>(2 * 2, 0.f), {1, 2, 1, 2}));
  t.Input("V", T_<float>(std::vector<float>(2 * 2, 0.f), {1, 2, 1, 2}));
  t.Output("Y", T_<float>(std::vector<float>(6, 0.f), {1, 3, 1, 2}));
  t.ExpectFailure("multiple of kv_num_heads");
}

TEST(AttentionTest, ThreeDWithoutHeadsFails) {
  OpTest t("Attention", 23);
  t.Input("Q", T_<float>(std::vector<float>(4, 0.f), {1, 1, 4}));
  t.Input("K", T_<float>(std::vector<float>(4, 0.f), {1, 1, 4}));
  t.Input("V", T_<float>(std::vector<float>(4, 0.f), {1, 1, 4}));
  t.Output("Y", T_<float>(std::vector<float>(4, 0.f), {1, 1, 4}));
  t.ExpectFailure("q_num_heads");
}

TEST(AttentionTest, BadMaskShapeFails) {
  OpTest t("Attention", 23);
  t.Input("Q", T_<float>(std::vector<float>(4, 0.f), {1, 1, 2, 2}));
  t.Input("K", T_<float>(std::vector<float>(4, 0.f), {1, 1, 2, 2}));
  t.Input("V", T_<float>(std::vector<float>(4, 0.f), {1, 1, 2, 2}));
  t.Input("attn_mask", T_<float>(std::vector<float>(6, 0.f), {3, 2}));
  t.Output("Y", T_<float>(std::vector<float>(4, 0.f), {1, 1, 2, 2}));
  t.ExpectFailure("attn_mask");
}

// ---- RotaryEmbedding ------------------------------------------------------------

TEST(RotaryEmbeddingTest, HalvesWithPositionIds) {
  // X [1, 1, 2, 4] (B, N, S, D); positions [1, 0]; cos/sin caches [2, 2].
  OpTest t("RotaryEmbedding", 23);
  t.Input("X", T_<float>({1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 2, 4}));
  t.Input("cos_cache", T_<float>({1, 1, 0, 0.5f}, {2, 2}));
  t.Input("sin_cache", T_<float>({0, 0, 1, 0.5f}, {2, 2}));
  t.Input("position_ids", T_<int64_t>({1, 0}, {1, 2}));
  // s=0 uses row 1: c=(0,.5) s=(1,.5): x1=(1,2) x2=(3,4) -> real=(0-3, 1-2)=(-3,-1), imag=(1+0, 1+2)=(1,3)
  // s=1 uses row 0: identity.
  t.Output("Y", T_<float>({-3, -1, 1, 3, 5, 6, 7, 8}, {1, 1, 2, 4}));
  t.Run();
}

TEST(RotaryEmbeddingTest, Interleaved3dPartial) {
  // X [1, 1, 6] with num_heads 1, rotary dim 4, caches [1, 1, 2] without position ids.
  OpTest t("RotaryEmbedding", 23);
  t.Attr("interleaved", int64_t{1}).Attr("num_heads", int64_t{1}).Attr("rotary_embedding_dim", int64_t{4});
  t.Input("X", T_<float>({1, 2, 3, 4, 5, 6}, {1, 1, 6}));
  t.Input("cos_cache", T_<float>({0, 1}, {1, 1, 2}));
  t.Input("sin_cache", T_<float>({1, 0}, {1, 1, 2}));
  // pair (1,2) rotated by 90 degrees -> (-2, 1); pair (3,4) unchanged; tail copied.
  t.Output("Y", T_<float>({-2, 1, 3, 4, 5, 6}, {1, 1, 6}));
  t.Run();
}

TEST(RotaryEmbeddingTest, PositionOutOfRangeFails) {
  OpTest t("RotaryEmbedding", 23);
  t.Input("X", T_<float>({1, 2}, {1, 1, 1, 2}));
  t.Input("cos_cache", T_<float>({1}, {1, 1}));
  t.Input("sin_cache", T_<float>({0}, {1, 1}));
  t.Input("position_ids", T_<int64_t>({3}, {1, 1}));
  t.Output("Y", T_<float>({1, 2}, {1, 1, 1, 2}));
  t.ExpectFailure("position id");
}

}  // namespace
}  // namespace tessera::test
