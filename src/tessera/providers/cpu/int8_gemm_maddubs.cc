// The byte-quad form of the int8 GEMM (int8_gemm_maddubs.h). With
// A' = A as int8 and B' = B as uint8, the zero points shift alike, and
//   sum_k (a - za)(b - zb) = sum_k a'b' - zb' (sum_k a' - K za') - za' sum_k b',
// an identity in wrapping 32-bit arithmetic too.
#include "tessera/providers/cpu/int8_gemm_maddubs.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/providers/cpu/simd_int32.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define TESSERA_MADDUBS_X86 1
#endif

namespace tessera::cpu::int8_maddubs {

namespace {

constexpr int64_t kPanel = PackedInt8B::kPanel;
constexpr int64_t kMc = kRows * 24;  // rows whose k-block of A stays in L2 while B's panel sits in L1

// Whether u8 x s8 products of a pair of weights could leave the int16 range
// (activations up to 255): their positive or their negative parts add up
// past 128.
bool PairCanSaturate(int32_t w0, int32_t w1) {
  const int32_t pos = std::max(w0, 0) + std::max(w1, 0), neg = std::max(-w0, 0) + std::max(-w1, 0);
  return pos > 128 || neg > 128;
}

uint32_t QuadWord(const int32_t (&v)[4]) {
  uint32_t w = 0;
  for (int t = 0; t < 4; ++t) w |= static_cast<uint32_t>(static_cast<uint8_t>(static_cast<int8_t>(v[t]))) << (8 * t);
  return w;
}

// One 16-column panel of C over one k-block, for rows [i_begin, i_end) in
// tiles of kRows: the kernels walk the rows themselves, so a tile costs
// no more set-up than its pointers.
struct Strip {
  const PackedA* a = nullptr;
  int64_t row0 = 0;        // A's packed row of C's row 0
  int64_t q0 = 0, qc = 0;  // the block's first quad and its quads
  int64_t block = 0;
  bool accumulate = false;  // add to C (later k-blocks)
  bool last = false;        // the last k-block: take the zero-point terms off
  const uint8_t* bp = nullptr;
  const int32_t* zb = nullptr;      // per column: zb'
  const int32_t* colsum = nullptr;  // per column: sum_k b'
  // One zb' for every column (a convolution's input): a row whose za' is 0
  // (symmetric weights) then loses only zb' * centered, one number.
  bool uniform_zb = false;
  int32_t zb0 = 0;
  const Int8Requant* requant = nullptr;  // with the last block: bytes out instead of C (columns from j0)
  // With requant, per row of C: the scale and bias as floats, and whether the
  // float lanes may requantize it (RowTerms); `bounded`: every sum of this
  // product lies within 2^23, so the lanes need no range check.
  const float* row_scale = nullptr;
  const float* row_bias = nullptr;
  const uint8_t* row_float_ok = nullptr;
  bool bounded = false;
  int64_t j0 = 0;
  int32_t* c = nullptr;  // C at column j0
  int64_t ldc = 0, i_begin = 0, i_end = 0, cols = 0;

  const uint32_t* Words(int64_t i) const { return a->words.data() + ((row0 + i) / kRows * a->steps + q0) * kRows; }
  bool HasExtras(int64_t i) const {
    return a->block_has_extras[static_cast<size_t>((row0 + i) / kRows * a->blocks + block)] != 0;
  }
  const PackedA::Extra* ExtraAt(int64_t i, int64_t r, int64_t next) const {
    const int64_t panel = (row0 + i) / kRows;
    return a->extras.data() + a->extra_begin[static_cast<size_t>((panel * kRows + r) * (a->blocks + 1) + block + next)];
  }
  // Row i's finished sum for column j, taking off the zero-point terms.
  uint32_t Corrected(int64_t i, int64_t j, uint32_t sum) const {
    if (!last) return sum;
    const size_t row = static_cast<size_t>(row0 + i);
    return sum - static_cast<uint32_t>(zb[j]) * a->centered[row] - a->za[row] * static_cast<uint32_t>(colsum[j]);
  }
};

// Row i's finished sums (corrected): into C (wrapping adds, as the vector
// lanes do), or requantized into the output bytes.
void StoreSums(const Strip& s, int64_t i, const int32_t* sums, bool accumulate) {
  int32_t* out = s.c + i * s.ldc;
  const auto total = [&](int64_t j) {
    return accumulate ? static_cast<int32_t>(static_cast<uint32_t>(out[j]) + static_cast<uint32_t>(sums[j])) : sums[j];
  };
  if (s.requant != nullptr) {
    const Int8Requant& rq = *s.requant;
    const int32_t bias = rq.bias != nullptr ? rq.bias[i] : 0;
    uint8_t* bytes = rq.out + i * rq.ldo + s.j0;
    for (int64_t j = 0; j < s.cols; ++j) bytes[j] = RequantizeOne(total(j), bias, rq.scale[i], rq.zero, rq.out_signed);
    return;
  }
  for (int64_t j = 0; j < s.cols; ++j) out[j] = total(j);
}

void KernelPortable(const Strip& s) {
  for (int64_t i0 = s.i_begin; i0 < s.i_end; i0 += kRows) {
    uint32_t tile[kRows][kPanel] = {};
    const auto add_quad = [&](int64_t r, uint32_t word, const uint8_t* bq) {
      for (int64_t j = 0; j < kPanel; ++j)
        for (int t = 0; t < 4; ++t)
          tile[r][j] += static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(word >> (8 * t))) * bq[j * 4 + t]);
    };
    const uint32_t* ap = s.Words(i0);
    for (int64_t q = 0; q < s.qc; ++q)
      for (int64_t r = 0; r < kRows; ++r) add_quad(r, ap[q * kRows + r], s.bp + q * kPanel * 4);
    for (int64_t r = 0; r < kRows; ++r)
      for (const PackedA::Extra* e = s.ExtraAt(i0, r, 0); e != s.ExtraAt(i0, r, 1); ++e)
        add_quad(r, e->word, s.bp + (e->quad - s.q0) * kPanel * 4);
    for (int64_t r = 0; r < std::min(kRows, s.i_end - i0); ++r) {
      int32_t sums[kPanel];
      for (int64_t j = 0; j < kPanel; ++j) sums[j] = static_cast<int32_t>(s.Corrected(i0 + r, j, tile[r][j]));
      StoreSums(s, i0 + r, sums, s.accumulate);
    }
  }
}

#ifdef TESSERA_MADDUBS_X86
#define TESSERA_AVX2 __attribute__((target("avx2")))
#define TESSERA_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline

TESSERA_AVX2_INLINE __m256i BroadcastWord(uint32_t word) {
  // As a float: an integer broadcast takes a vector pipe on Zen 3 that the
  // multiply-adds need (int8_gemm.cc).
  float bits;
  std::memcpy(&bits, &word, sizeof(bits));
  return _mm256_castps_si256(_mm256_set1_ps(bits));
}

// The lanes of f (rounded: r) within 1e-4 of a half step.
TESSERA_AVX2_INLINE __m256 NearHalfStep(__m256 f, __m256 r) {
  return _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), _mm256_sub_ps(f, r)), _mm256_set1_ps(0.5f - 1e-4f),
                       _CMP_GT_OQ);
}

// Row i's 16 finished sums requantized in float lanes where float gives
// the double formula's result (RequantizeOne): sums and bias
// within 2^23 (exact in float), and no lane within 1e-4 of a half step (the
// float product is within 6e-5 of the exact one below 512; past it every
// zero point saturates alike, so the check is only stricter there). False
// leaves the row to the caller.
TESSERA_AVX2_INLINE bool StoreRequantizedAvx2(const Strip& s, int64_t i, __m256i lo, __m256i hi) {
  constexpr int32_t kExact = 1 << 23;
  const Int8Requant& rq = *s.requant;
  if (s.row_float_ok[i] == 0) return false;
  if (!s.bounded) {
    // Both bounds compared: the absolute value of INT32_MIN is itself.
    const __m256i lim = _mm256_set1_epi32(kExact - 1), neg_lim = _mm256_set1_epi32(1 - kExact);
    const __m256i big = _mm256_or_si256(_mm256_or_si256(_mm256_cmpgt_epi32(lo, lim), _mm256_cmpgt_epi32(neg_lim, lo)),
                                        _mm256_or_si256(_mm256_cmpgt_epi32(hi, lim), _mm256_cmpgt_epi32(neg_lim, hi)));
    if (!_mm256_testz_si256(big, big)) return false;
  }
  const __m256 fscale = _mm256_set1_ps(s.row_scale[i]), vbias = _mm256_set1_ps(s.row_bias[i]);
  const __m256 f0 = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(lo), vbias), fscale);
  const __m256 f1 = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(hi), vbias), fscale);
  const __m256 r0 = _mm256_round_ps(f0, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r1 = _mm256_round_ps(f1, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  if (_mm256_movemask_ps(_mm256_or_ps(NearHalfStep(f0, r0), NearHalfStep(f1, r1))) != 0) return false;
  const __m256 zero = _mm256_set1_ps(static_cast<float>(rq.zero));
  const __m256 lo_q = _mm256_set1_ps(rq.out_signed ? -128.f : 0.f), hi_q = _mm256_set1_ps(rq.out_signed ? 127.f : 255.f);
  const __m256i q0 = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r0, zero), lo_q), hi_q));
  const __m256i q1 = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_add_ps(r1, zero), lo_q), hi_q));
  // In range already: the packs keep every value. packs_epi32 interleaves
  // the 128-bit halves; the permute puts the 16 values back in order.
  const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xD8);
  const __m128i w0 = _mm256_castsi256_si128(words), w1 = _mm256_extracti128_si256(words, 1);
  const __m128i bytes = rq.out_signed ? _mm_packs_epi16(w0, w1) : _mm_packus_epi16(w0, w1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(rq.out + i * rq.ldo + s.j0), bytes);
  return true;
}

TESSERA_AVX2_INLINE void StoreRowAvx2(const Strip& s, int64_t i, __m256i lo, __m256i hi) {
  if (s.last) {
    const size_t row = static_cast<size_t>(s.row0 + i);
    const __m256i cen = _mm256_set1_epi32(static_cast<int32_t>(s.a->centered[row]));
    if (s.uniform_zb && s.a->za[row] == 0) {
      const __m256i shift = _mm256_set1_epi32(static_cast<int32_t>(static_cast<uint32_t>(s.zb0) * s.a->centered[row]));
      lo = _mm256_sub_epi32(lo, shift), hi = _mm256_sub_epi32(hi, shift);
    } else {
      const __m256i za = _mm256_set1_epi32(static_cast<int32_t>(s.a->za[row]));
      const auto* zb = reinterpret_cast<const __m256i*>(s.zb);
      const auto* cs = reinterpret_cast<const __m256i*>(s.colsum);
      lo = _mm256_sub_epi32(lo, _mm256_add_epi32(_mm256_mullo_epi32(_mm256_loadu_si256(zb), cen),
                                                 _mm256_mullo_epi32(za, _mm256_loadu_si256(cs))));
      hi = _mm256_sub_epi32(hi, _mm256_add_epi32(_mm256_mullo_epi32(_mm256_loadu_si256(zb + 1), cen),
                                                 _mm256_mullo_epi32(za, _mm256_loadu_si256(cs + 1))));
    }
  }
  bool accumulate = s.accumulate;
  if (s.cols == kPanel) {
    auto* out = reinterpret_cast<__m256i*>(s.c + i * s.ldc);
    if (accumulate) {
      lo = _mm256_add_epi32(lo, _mm256_loadu_si256(out));
      hi = _mm256_add_epi32(hi, _mm256_loadu_si256(out + 1));
      accumulate = false;
    }
    if (s.requant == nullptr) {
      _mm256_storeu_si256(out, lo);
      _mm256_storeu_si256(out + 1, hi);
      return;
    }
    if (StoreRequantizedAvx2(s, i, lo, hi)) return;
  }
  alignas(32) int32_t sums[kPanel];
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(sums + 8), hi);
  StoreSums(s, i, sums, accumulate);
}

// Accumulators in named registers, pinned by the empty asm: as in
// int8_gemm.cc, GCC 12 otherwise hoists a step's broadcasts and spills.
#define TESSERA_MADDUBS_ROW(r, word)                                                         \
  {                                                                                         \
    const __m256i a = BroadcastWord(word);                                                  \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(_mm256_maddubs_epi16(b0, a), ones)); \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(_mm256_maddubs_epi16(b1, a), ones)); \
    __asm__("" : "+x"(c##r##0), "+x"(c##r##1));                                             \
  }
#define TESSERA_MADDUBS_EXTRAS(r)                                                              \
  for (const PackedA::Extra *e = s.ExtraAt(i0, r, 0), *end = s.ExtraAt(i0, r, 1); e != end; ++e) { \
    const auto* bq = reinterpret_cast<const __m256i*>(s.bp + (e->quad - s.q0) * kPanel * 4); \
    const __m256i b0 = _mm256_loadu_si256(bq), b1 = _mm256_loadu_si256(bq + 1);             \
    TESSERA_MADDUBS_ROW(r, e->word)                                                          \
  }

TESSERA_AVX2 void KernelAvx2(const Strip& s) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int64_t i0 = s.i_begin; i0 < s.i_end; i0 += kRows) {
    __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00;
    __m256i c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const uint32_t* ap = s.Words(i0);
    const auto* bp = reinterpret_cast<const __m256i*>(s.bp);
    for (int64_t q = 0; q < s.qc; ++q, ap += kRows, bp += 2) {
      const __m256i b0 = _mm256_loadu_si256(bp), b1 = _mm256_loadu_si256(bp + 1);
      TESSERA_MADDUBS_ROW(0, ap[0]) TESSERA_MADDUBS_ROW(1, ap[1])
      TESSERA_MADDUBS_ROW(2, ap[2]) TESSERA_MADDUBS_ROW(3, ap[3])
    }
    if (s.HasExtras(i0)) {
      TESSERA_MADDUBS_EXTRAS(0) TESSERA_MADDUBS_EXTRAS(1) TESSERA_MADDUBS_EXTRAS(2) TESSERA_MADDUBS_EXTRAS(3)
    }
    const int64_t rows = std::min(kRows, s.i_end - i0);
    StoreRowAvx2(s, i0, c00, c01);
    if (rows > 1) StoreRowAvx2(s, i0 + 1, c10, c11);
    if (rows > 2) StoreRowAvx2(s, i0 + 2, c20, c21);
    if (rows > 3) StoreRowAvx2(s, i0 + 3, c30, c31);
  }
}
// An 8 x 8 block of int32: src rows 8 apart by lds, into dst rows by ldd.
TESSERA_AVX2 void Transpose8x8Avx2(const int32_t* src, int64_t lds, int32_t* dst, int64_t ldd) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * lds));
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(reinterpret_cast<float*>(dst + i * ldd), t[i]);
}

#undef TESSERA_MADDUBS_ROW
#undef TESSERA_MADDUBS_EXTRAS
#undef TESSERA_AVX2_INLINE
#undef TESSERA_AVX2
#endif

}  // namespace

void PackA(bool a_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints zero, PackedA& out,
           int64_t col_stride) {
  out.m = m, out.k = k, out.steps = (k + 3) / 4, out.blocks = (out.steps + kMaxKcQuads - 1) / kMaxKcQuads;
  out.block_quads = out.blocks > 0 ? (out.steps + out.blocks - 1) / out.blocks : 0;
  const int64_t panels = (m + kRows - 1) / kRows, steps = out.steps, blocks = out.blocks;
  out.words.assign(static_cast<size_t>(panels * steps * kRows), 0);
  out.za.assign(static_cast<size_t>(panels * kRows), 0);
  out.centered.assign(static_cast<size_t>(panels * kRows), 0);
  out.extras.clear();
  out.extra_begin.assign(static_cast<size_t>(panels * kRows * (blocks + 1)), 0);
  const auto* bytes = static_cast<const uint8_t*>(a);
  // A given transposed: the rows of kGroup panels gathered first into
  // contiguous rows, reading the source a line of 64 rows at a time, so
  // the rows below read as in the usual case.
  constexpr int64_t kGroup = 16;
  std::vector<uint8_t> gathered(col_stride != 1 ? static_cast<size_t>(kGroup * kRows * k) : 0);
  for (int64_t p = 0; p < panels; ++p) {
    if (col_stride != 1 && p % kGroup == 0) {
      // 16 values of K at a time: the 16 source lines stay in L1 (a power-of-
      // two stride maps more of them to one cache set) while every row
      // takes its 16 bytes.
      const int64_t i0 = p * kRows, rows = std::min(kGroup * kRows, m - i0);
      for (int64_t k0 = 0; k0 < k; k0 += 16) {
        const int64_t k1 = std::min(k, k0 + 16);
        for (int64_t r = 0; r < rows; ++r) {
          const uint8_t* src = bytes + (i0 + r) * lda;
          uint8_t* dst = gathered.data() + r * k;
          for (int64_t kk = k0; kk < k1; ++kk) dst[kk] = src[kk * col_stride];
        }
      }
    }
    for (int64_t r = 0; r < kRows; ++r) {
      const int64_t i = p * kRows + r;
      uint32_t* begin = out.extra_begin.data() + (p * kRows + r) * (blocks + 1);
      if (i >= m) {
        std::fill(begin, begin + blocks + 1, static_cast<uint32_t>(out.extras.size()));
        continue;
      }
      const uint8_t* row = col_stride != 1 ? gathered.data() + ((p % kGroup) * kRows + r) * k : bytes + i * lda;
      const auto value = [&](int64_t kk) -> int32_t {
        if (kk >= k) [[unlikely]]
          return 0;
        return a_signed ? static_cast<int8_t>(row[kk]) : int32_t{row[kk]} - 128;
      };
      uint32_t sum = 0;
      for (int64_t q = 0, block_end = 0, b = 0; q < steps; ++q) {
        if (q == block_end) begin[b++] = static_cast<uint32_t>(out.extras.size()), block_end += out.block_quads;
        int32_t v[4], main[4], rest[4] = {};
        if (4 * q + 4 <= k) {
          // A whole quad of a contiguous row: one load.
          uint32_t word;
          std::memcpy(&word, row + 4 * q, 4);
          if (!a_signed) word ^= 0x80808080u;  // uint8 less 128
          for (int t = 0; t < 4; ++t) main[t] = v[t] = static_cast<int8_t>(word >> (8 * t));
        } else {
          for (int t = 0; t < 4; ++t) main[t] = v[t] = value(4 * q + t);
        }
        sum += static_cast<uint32_t>(v[0] + v[1] + v[2] + v[3]);
        // The common case: no value past 64, so no pair can saturate.
        if (std::max({std::abs(v[0]), std::abs(v[1]), std::abs(v[2]), std::abs(v[3])}) <= 64) {
          out.words[static_cast<size_t>((p * steps + q) * kRows + r)] = QuadWord(v);
          continue;
        }
        bool split = false;
        for (int h = 0; h < 4; h += 2) {
          if (!PairCanSaturate(v[h], v[h + 1])) continue;
          // Halves (rounded toward zero, the rest to the other): each lies in
          // [-64, 64], so neither pair can saturate.
          for (int t = h; t < h + 2; ++t) main[t] = v[t] / 2, rest[t] = v[t] - main[t];
          split = true;
        }
        out.words[static_cast<size_t>((p * steps + q) * kRows + r)] = QuadWord(main);
        if (split) out.extras.push_back({static_cast<int32_t>(q), QuadWord(rest)});
      }
      begin[blocks] = static_cast<uint32_t>(out.extras.size());
      const int32_t za = zero.At(i) - (a_signed ? 0 : 128);
      out.za[static_cast<size_t>(i)] = static_cast<uint32_t>(za);
      out.centered[static_cast<size_t>(i)] = sum - static_cast<uint32_t>(k) * static_cast<uint32_t>(za);
    }
  }
  out.za_all_zero = std::all_of(out.za.begin(), out.za.end(), [](uint32_t z) { return z == 0; });
  out.block_has_extras.assign(static_cast<size_t>(panels * blocks), 0);
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t b = 0; b < blocks; ++b) {
        const uint32_t* begin = out.extra_begin.data() + (p * kRows + r) * (blocks + 1);
        if (begin[b + 1] != begin[b]) out.block_has_extras[static_cast<size_t>(p * blocks + b)] = 1;
      }
}

void TransposeRows(bool avx2, const int32_t* src, int64_t rows, int64_t cols, int64_t r0, int64_t r1, int32_t* dst) {
  int64_t i = r0;
#ifdef TESSERA_MADDUBS_X86
  if (avx2) {
    for (; i + 8 <= r1; i += 8) {
      int64_t j = 0;
      for (; j + 8 <= cols; j += 8) Transpose8x8Avx2(src + i * cols + j, cols, dst + j * rows + i, rows);
      for (; j < cols; ++j)
        for (int64_t t = 0; t < 8; ++t) dst[j * rows + i + t] = src[(i + t) * cols + j];
    }
  }
#else
  (void)avx2;
#endif
  for (; i < r1; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}

void Gemm(bool avx2, int64_t m, int64_t j_begin, int64_t j_end, const PackedA& a, int64_t row0, const PackedInt8B& b,
          int32_t* c, int64_t ldc, const Int8Requant* requant) {
  void (*kernel)(const Strip&) = &KernelPortable;
#ifdef TESSERA_MADDUBS_X86
  if (avx2) kernel = &KernelAvx2;
#else
  (void)avx2;
#endif
  Strip s;
  s.a = &a, s.row0 = row0, s.ldc = ldc;
  // Per row, once a product rather than once a tile: the float scale and
  // bias the store's lanes use, and whether they give the double formula's
  // result (bias within 2^23, a finite scale). The centered sums are at
  // most K * 255 * 255 in size: within 2^23 for K up to 129.
  thread_local std::vector<float> row_scale, row_bias;
  thread_local std::vector<uint8_t> row_float_ok;
  if (requant != nullptr) {
    constexpr int32_t kExact = 1 << 23;
    row_scale.resize(static_cast<size_t>(m)), row_bias.resize(static_cast<size_t>(m));
    row_float_ok.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
      const int32_t bias = requant->bias != nullptr ? requant->bias[i] : 0;
      const double scale = requant->scale[i];
      row_scale[static_cast<size_t>(i)] = static_cast<float>(scale);
      row_bias[static_cast<size_t>(i)] = static_cast<float>(bias);
      row_float_ok[static_cast<size_t>(i)] = bias > -kExact && bias < kExact && std::abs(scale) < 1e30;
    }
    s.row_scale = row_scale.data(), s.row_bias = row_bias.data(), s.row_float_ok = row_float_ok.data();
    s.bounded = a.k * 255 * 255 < kExact;
  }
  const int32_t* zb = b.column_zeros();
  s.zb0 = j_end > j_begin ? zb[j_begin] : 0;
  s.uniform_zb = std::all_of(zb + j_begin, zb + j_end, [&](int32_t z) { return z == s.zb0; });
  for (int64_t q0 = 0, block = 0; q0 < a.steps; q0 += a.block_quads, ++block) {
    s.q0 = q0, s.qc = std::min(a.block_quads, a.steps - q0), s.block = block;
    s.accumulate = q0 > 0, s.last = q0 + s.qc >= a.steps;
    s.requant = s.last ? requant : nullptr;
    for (int64_t i0 = 0; i0 < m; i0 += kMc) {
      s.i_begin = i0, s.i_end = std::min(m, i0 + kMc);
      for (int64_t j0 = j_begin; j0 < j_end; j0 += kPanel) {
        s.j0 = j0, s.cols = std::min(kPanel, j_end - j0), s.c = c + j0;
        s.bp = reinterpret_cast<const uint8_t*>(b.QuadPanel(j0 / kPanel, q0));
        s.zb = b.column_zeros() + j0, s.colsum = b.column_sums() + j0;
        kernel(s);
      }
    }
  }
}

}  // namespace tessera::cpu::int8_maddubs
