// Kernels of simd_nbits_int8.h, compiled once per target by Highway. The
// byte pairs are x86's vpmaddubsw (SSSE3 and up): u8 x s8 products summed in
// pairs into int16, then in pairs again into int32 by vpmaddwd against ones.
// A nibble is at most 15 and a quantized value at most 127 in magnitude, so
// a pair (at most 3810) never saturates: the sums are exact. Other targets
// take the same sums in scalar code.
#include "tessera/providers/cpu/simd_nbits_int8.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_nbits_int8.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::nbits_int8_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kWide = true;  // 32 nibbles (16 packed bytes) in one 256-bit vector
#else
constexpr bool kWide = false;
#endif

// sum_k q_k a_k over one block, in the layout of QuantizeBlockS8.
int32_t BlockDotScalar(const uint8_t* q, const int8_t* a, int64_t bytes) {
  const int64_t c = std::min<int64_t>(16, bytes);
  int32_t s = 0;
  for (int64_t j0 = 0; j0 < bytes; j0 += c)
    for (int64_t i = 0; i < c; ++i) {
      const int32_t byte = q[j0 + i];
      s += (byte & 15) * a[2 * j0 + i] + (byte >> 4) * a[2 * j0 + c + i];
    }
  return s;
}

// The zero-point term of row r: sum_b z_b * w_scale[b] * scaled_sum[b].
float ZeroTerm(const float* w_scale, const float* zero, float uniform_zero, const float* scaled_sum, int64_t blocks) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto acc = hn::Zero(d);
  int64_t b = 0;
  for (; b + lanes <= blocks; b += lanes) {
    auto ws = hn::LoadU(d, w_scale + b);
    if (zero != nullptr) ws = hn::Mul(ws, hn::LoadU(d, zero + b));
    acc = hn::MulAdd(ws, hn::LoadU(d, scaled_sum + b), acc);
  }
  float s = hn::GetLane(hn::SumOfLanes(d, acc));
  if (zero == nullptr) s *= uniform_zero;
  for (; b < blocks; ++b) s += (zero != nullptr ? zero[b] : uniform_zero) * w_scale[b] * scaled_sum[b];
  return s;
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
// Adds sum over pairs of u8 x s8 products to the int32 lanes of acc.
HWY_INLINE __m128i PairSums(__m128i acc, __m128i u, __m128i s) {
  return _mm_add_epi32(acc, _mm_madd_epi16(_mm_maddubs_epi16(u, s), _mm_set1_epi16(1)));
}

// One block's q * a sums in four int32 lanes (block / 2 = bytes >= 8).
HWY_INLINE __m128i BlockDot128(const uint8_t* q, const int8_t* a, int64_t bytes) {
  const __m128i mask = _mm_set1_epi8(0x0F);
  __m128i d = _mm_setzero_si128();
  if (bytes == 8) {
    const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q));
    const __m128i w = _mm_and_si128(_mm_unpacklo_epi64(x, _mm_srli_epi16(x, 4)), mask);
    return PairSums(d, w, _mm_loadu_si128(reinterpret_cast<const __m128i*>(a)));
  }
  for (int64_t j0 = 0; j0 < bytes; j0 += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + j0));
    d = PairSums(d, _mm_and_si128(x, mask), _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * j0)));
    d = PairSums(d, _mm_and_si128(_mm_srli_epi16(x, 4), mask),
                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * j0 + 16)));
  }
  return d;
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// One block's q * a sums in eight int32 lanes (bytes a multiple of 16): the
// 16 packed bytes become one vector of their low nibbles then their high
// ones, the order A is quantized in, so each vpmaddubsw takes 32 weights.
// kBytes: the block's bytes where fixed at compile time (16: block 32, the
// LLM builders' default, runs with no inner loop), 0 where they are `bytes`.
template <int kRows, int64_t kBytes>
HWY_INLINE void BlockDot256(const uint8_t* q, const int8_t* const* a, int64_t bytes, __m256i* d) {
  const __m256i mask = _mm256_set1_epi8(0x0F), ones = _mm256_set1_epi16(1);
  for (int r = 0; r < kRows; ++r) d[r] = _mm256_setzero_si256();
  const int64_t n = kBytes != 0 ? kBytes : bytes;
  for (int64_t j0 = 0; j0 < n; j0 += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + j0));
    const __m256i w =
        _mm256_and_si256(_mm256_inserti128_si256(_mm256_castsi128_si256(x), _mm_srli_epi16(x, 4), 1), mask);
    for (int r = 0; r < kRows; ++r) {
      const __m256i av = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[r] + 2 * j0));
      d[r] = _mm256_add_epi32(d[r], _mm256_madd_epi16(_mm256_maddubs_epi16(w, av), ones));
    }
  }
}
#endif

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// Block b's products added to acc: (q . a) * w_scale[b] * a.scale[r, b].
template <int kRows, int64_t kBytes, class DF>
HWY_INLINE void WideBlock(DF df, const uint8_t* packed, int64_t b, int64_t blocks, int64_t block, const float* w_scale,
                          const Int8BlockRows& a, hn::Vec<DF> (&acc)[kRows]) {
  const hn::RebindToSigned<DF> di;
  const int8_t* rows[kRows];
  for (int r = 0; r < kRows; ++r) rows[r] = a.values + (r * blocks + b) * block;
  __m256i d[kRows];
  BlockDot256<kRows, kBytes>(packed + b * (block / 2), rows, block / 2, d);
  for (int r = 0; r < kRows; ++r)
    acc[r] = hn::MulAdd(hn::ConvertTo(df, hn::Vec<decltype(di)>{d[r]}), hn::Set(df, w_scale[b] * a.scale[r * blocks + b]),
                        acc[r]);
}
#endif

// result[r] = sum_b w_scale[b] * a.scale[r, b] * sum_k q_k a_k, per path.
// Blocks alternate between two sets of accumulators held in registers: with
// one, every block waited on the previous block's multiply-add.
template <int kRows, int64_t kBytes>
HWY_INLINE void WideSums(const uint8_t* packed, int64_t blocks, int64_t block, const float* w_scale, const Int8BlockRows& a,
              float* result) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::Full256<float> df;
  hn::Vec<decltype(df)> even[kRows], odd[kRows];
  for (int r = 0; r < kRows; ++r) even[r] = odd[r] = hn::Zero(df);
  int64_t b = 0;
  for (; b + 1 < blocks; b += 2) {
    WideBlock<kRows, kBytes>(df, packed, b, blocks, block, w_scale, a, even);
    WideBlock<kRows, kBytes>(df, packed, b + 1, blocks, block, w_scale, a, odd);
  }
  if (b < blocks) WideBlock<kRows, kBytes>(df, packed, b, blocks, block, w_scale, a, even);
  for (int r = 0; r < kRows; ++r) result[r] = hn::GetLane(hn::SumOfLanes(df, hn::Add(even[r], odd[r])));
#else
  (void)packed, (void)blocks, (void)block, (void)w_scale, (void)a, (void)result;
#endif
}

template <int kRows>
HWY_INLINE void NarrowSums(const uint8_t* packed, int64_t blocks, int64_t block, const float* w_scale, const Int8BlockRows& a,
                float* result) {
  const int64_t bytes = block / 2;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  const hn::Full128<float> df;
  const hn::Full128<int32_t> di;
  hn::Vec<decltype(df)> acc[kRows];
  for (int r = 0; r < kRows; ++r) acc[r] = hn::Zero(df);
  for (int64_t b = 0; b < blocks; ++b)
    for (int r = 0; r < kRows; ++r) {
      const __m128i d = BlockDot128(packed + b * bytes, a.values + (r * blocks + b) * block, bytes);
      acc[r] = hn::MulAdd(hn::ConvertTo(df, hn::Vec<decltype(di)>{d}),
                          hn::Set(df, w_scale[b] * a.scale[r * blocks + b]), acc[r]);
    }
  for (int r = 0; r < kRows; ++r) result[r] = hn::GetLane(hn::SumOfLanes(df, acc[r]));
#else
  for (int r = 0; r < kRows; ++r) {
    float s = 0.0f;
    for (int64_t b = 0; b < blocks; ++b)
      s += w_scale[b] * a.scale[r * blocks + b] *
           static_cast<float>(BlockDotScalar(packed + b * bytes, a.values + (r * blocks + b) * block, bytes));
    result[r] = s;
  }
#endif
}

// Every weight column against rows r < kRows of A. The next columns' bytes
// are asked for ahead: each is read once, from memory, in a decode step.
template <int kRows, int64_t kBytes>
void ColumnsT(const U4Columns& w, const Int8BlockRows& a, float* y, int64_t ldy) {
  constexpr int64_t kAhead = 4;
  const int64_t row_bytes = w.blocks * w.block / 2;
  for (int64_t n = 0; n < w.count; ++n) {
    if (n + kAhead < w.count) {
      const uint8_t* next = w.packed + (n + kAhead) * row_bytes;
      for (int64_t off = 0; off < row_bytes; off += 64) __builtin_prefetch(next + off, 0, 3);
      __builtin_prefetch(w.scale + (n + kAhead) * w.blocks, 0, 3);
    }
    const uint8_t* packed = w.packed + n * row_bytes;
    const float* w_scale = w.scale + n * w.blocks;
    float result[kRows];
    if (kWide && w.block >= 32) WideSums<kRows, kBytes>(packed, w.blocks, w.block, w_scale, a, result);
    else NarrowSums<kRows>(packed, w.blocks, w.block, w_scale, a, result);
    const float* zero = w.zero != nullptr ? w.zero + n * w.blocks : nullptr;
    for (int r = 0; r < kRows; ++r)
      y[r * ldy + n] = result[r] - ZeroTerm(w_scale, zero, w.uniform_zero, a.scaled_sum + r * w.blocks, w.blocks);
  }
}

template <int kRows>
void ColumnsRows(const U4Columns& w, const Int8BlockRows& a, float* y, int64_t ldy) {
  if (w.block == 32) ColumnsT<kRows, 16>(w, a, y, ldy);
  else ColumnsT<kRows, 0>(w, a, y, ldy);
}

void Columns(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy) {
  switch (m) {
    case 1: return ColumnsRows<1>(w, a, y, ldy);
    case 2: return ColumnsRows<2>(w, a, y, ldy);
    case 3: return ColumnsRows<3>(w, a, y, ldy);
    default: return ColumnsRows<4>(w, a, y, ldy);
  }
}

// Whether the decode pass has its byte pairs here (x86 from SSSE3); other
// targets would take them in scalar code, slower than the float pass.
bool DecodePays() {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSSE3
  return true;
#else
  return false;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::nbits_int8_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace nbits_int8_detail {
HWY_EXPORT(Columns);
HWY_EXPORT(DecodePays);
}  // namespace nbits_int8_detail

namespace {
// x rounded to the nearest integer, ties to even, for |x| < 2^22: adding
// 1.5 * 2^23 leaves no fraction bits, and float addition rounds that way.
// (std::nearbyint is a libm call on the x86-64 baseline: a tenth of a
// decode step went to it.)
float RoundToNearestEven(float x) {
  constexpr float kShift = 12582912.0f;
  return (x + kShift) - kShift;  // not folded away: the build keeps IEEE semantics (no -ffast-math)
}
}  // namespace

float QuantizeBlockS8(const float* a, int64_t valid, int64_t block, Int8Order order, int8_t* q, int32_t* sum) {
  const int64_t n = std::min(valid, block);
  float amax = 0.0f;
  bool finite = true;
  for (int64_t k = 0; k < n; ++k) {
    amax = std::max(amax, std::fabs(a[k]));
    finite = finite && std::isfinite(a[k]);
  }
  const int64_t bytes = block / 2, c = std::min<int64_t>(16, bytes);
  if (!finite || amax == 0.0f) {
    // A NaN or infinity makes the block's products NaN, as the float pass
    // would; a block of zeros adds nothing.
    std::fill(q, q + block, int8_t{0});
    *sum = 0;
    return finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
  }
  const float inverse = 127.0f / amax;
  int32_t total = 0;
  // |a| * (127 / max|a|) is at most 127 and a little: it rounds to 127.
  auto at = [&](int64_t k) -> int32_t {
    return k < n ? static_cast<int32_t>(RoundToNearestEven(a[k] * inverse)) : 0;
  };
  if (order == Int8Order::kLinear) {
    for (int64_t k = 0; k < block; ++k) {
      const int32_t v = at(k);
      q[k] = static_cast<int8_t>(v);
      total += v;
    }
  } else {
    for (int64_t j0 = 0; j0 < bytes; j0 += c)
      for (int64_t i = 0; i < c; ++i) {
        const int32_t low = at(2 * (j0 + i)), high = at(2 * (j0 + i) + 1);
        q[2 * j0 + i] = static_cast<int8_t>(low);
        q[2 * j0 + c + i] = static_cast<int8_t>(high);
        total += low + high;
      }
  }
  *sum = total;
  return amax / 127.0f;
}

bool Int8DecodePays() { return HWY_DYNAMIC_DISPATCH(nbits_int8_detail::DecodePays)(); }

void ColumnsDotU4S8(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy) {
  if (m <= 0 || w.count <= 0) return;
  HWY_DYNAMIC_DISPATCH(nbits_int8_detail::Columns)(w, a, m, y, ldy);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
