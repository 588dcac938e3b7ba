// The quad form of the int8 GEMM. With A' = A as uint8 (int8 A plus 128)
// and B' = B as int8 (uint8 B less 128), the zero points shift alike, and
//   sum_k (a - za)(b - zb) = sum_k a'b' - zb' * sum_k a' - za' * sum_k b' + K za' zb',
// an identity in wrapping 32-bit arithmetic too. vpdpbusd sums four u8 x
// s8 products into int32 without saturating (each below 2^15), so the
// result is exact, as the pair form's is.
#include "tessera/providers/cpu/int8_gemm_quads.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <utility>

#include "tessera/providers/cpu/simd_int32.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define TESSERA_QUADS_X86 1
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which its
// -Wmaybe-uninitialized reports once they are inlined into a caller.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace tessera::cpu::int8_quads {

namespace {

constexpr int64_t kPanel = PackedInt8B::kPanel;
constexpr int64_t kMr = PackedInt8A::kRowPanel;
constexpr int64_t kMc = kMr * 16;
constexpr int64_t kKcQuads = 64;  // 256 values of K per block

inline uint32_t Add(uint32_t a, uint32_t b) { return a + b; }

// A' rows [i0, i0 + mc), quads [q0, q0 + qc), as panels of kMr rows:
// [panel][quad][kMr] words of four bytes, zero-padded past k and mc.
void PackA(int64_t mc, int64_t i0, int64_t q0, int64_t qc, int64_t k, bool a_signed, const uint8_t* a, int64_t lda,
           uint32_t* out) {
  const uint8_t flip = a_signed ? 0x80 : 0x00;
  for (int64_t ip = 0; ip < mc; ip += kMr) {
    uint32_t* panel = out + (ip / kMr) * qc * kMr;
    for (int64_t r = 0; r < kMr; ++r) {
      if (ip + r >= mc) {
        for (int64_t q = 0; q < qc; ++q) panel[q * kMr + r] = 0;
        continue;
      }
      const uint8_t* row = a + (i0 + ip + r) * lda;
      // Whole quads as one 4-byte load each; the last one may be partial.
      const uint32_t flips = 0x01010101u * flip;
      const int64_t whole = std::min(qc, (k - 4 * q0) / 4);
      for (int64_t q = 0; q < whole; ++q) {
        uint32_t w;
        std::memcpy(&w, row + 4 * (q0 + q), sizeof(w));  // little-endian: byte t is k + t
        panel[q * kMr + r] = w ^ flips;
      }
      for (int64_t q = std::max<int64_t>(whole, 0); q < qc; ++q) {
        uint32_t w = 0;
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t kk = 4 * (q0 + q) + t;
          if (kk < k) w |= static_cast<uint32_t>(static_cast<uint8_t>(row[kk] ^ flip)) << (8 * t);
        }
        panel[q * kMr + r] = w;
      }
    }
  }
}

// The zero-point terms of a tile, applied with its last k-block:
// zb[j] * centered[i] + za[i] * colsum[j] is taken off each sum (16
// entries each for the columns, padded with zeros past n).
struct Correction {
  const uint32_t* za = nullptr;        // per row: za'
  const uint32_t* centered = nullptr;  // per row: sum_k a' - K za'
  const int32_t* zb = nullptr;         // per column: zb'
  const int32_t* colsum = nullptr;     // per column: sum_k b'
};

// Stores a kRows x cols tile, or adds it (later k-blocks), wrapping.
template <int64_t kRows>
void StoreTile(const int32_t* tile, bool accumulate, int32_t* c, int64_t ldc, int64_t cols) {
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int32_t& out = c[i * ldc + j];
      out = accumulate ? static_cast<int32_t>(Add(static_cast<uint32_t>(out), static_cast<uint32_t>(tile[i * kPanel + j])))
                       : tile[i * kPanel + j];
    }
}

#ifdef TESSERA_QUADS_X86
// Row i of a tile, requantized in float lanes where float gives the double
// formula's result (the argument of simd_int32.cc's RequantizeOneScale);
// a row with a lane near a half step, a sum or bias past 2^23, or a scale
// float does not hold takes the double formula lane by lane.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) inline void StoreRequantizedRow(__m512i v, const Int8Requant& rq,
                                                                                     int64_t i, __mmask16 mask,
                                                                                     int64_t cols) {
  constexpr int32_t kExact = 1 << 23;
  const int32_t bias = rq.bias != nullptr ? rq.bias[i] : 0;
  const double scale = rq.scale[i];
  uint8_t* out = rq.out + i * rq.ldo;
  const float fscale = static_cast<float>(scale);
  bool exact = bias > -kExact && bias < kExact && std::abs(scale) < 1e30;
  if (exact) {
    const __m512i lim = _mm512_set1_epi32(kExact);
    // Unsigned: the absolute value of INT32_MIN is itself.
    exact = _mm512_mask_cmpge_epu32_mask(mask, _mm512_abs_epi32(v), lim) == 0;
  }
  if (exact) {
    const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(v, _mm512_set1_epi32(bias))), _mm512_set1_ps(fscale));
    const __m512 r = _mm512_roundscale_ps(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 off = _mm512_abs_ps(_mm512_sub_ps(_mm512_abs_ps(_mm512_sub_ps(f, r)), _mm512_set1_ps(0.5f)));
    const __mmask16 doubt = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(_mm512_abs_ps(f), _mm512_set1_ps(512.f), _CMP_LT_OQ),
                                                    off, _mm512_set1_ps(1e-4f), _CMP_LT_OQ);
    if ((doubt & mask) == 0) {
      const float lo = rq.out_signed ? -128.f : 0.f, hi = rq.out_signed ? 127.f : 255.f;
      const __m512 q = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(r, _mm512_set1_ps(static_cast<float>(rq.zero))),
                                                   _mm512_set1_ps(lo)),
                                     _mm512_set1_ps(hi));
      // In range already, so the narrowing keeps each value's low byte.
      _mm_mask_storeu_epi8(out, mask, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(q)));
      return;
    }
  }
  alignas(64) int32_t lanes[kPanel];
  _mm512_store_si512(lanes, v);
  for (int64_t j = 0; j < cols; ++j) out[j] = RequantizeOne(lanes[j], bias, scale, rq.zero, rq.out_signed);
}
#endif

#ifdef TESSERA_QUADS_X86
template <int64_t kRows>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni"))) void KernelVnni(int64_t qc, const uint32_t* ap, const int8_t* bp,
                                                                         bool accumulate, const Correction* last,
                                                                         int32_t* c, int64_t ldc, int64_t cols,
                                                                         const Int8Requant* rq) {
  __m512i acc[kRows];
#pragma GCC unroll 12
  for (int64_t i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_si512();
#pragma GCC unroll 2
  for (int64_t q = 0; q < qc; ++q) {
    const __m512i b = _mm512_loadu_si512(bp);
#pragma GCC unroll 12
    for (int64_t i = 0; i < kRows; ++i)
      acc[i] = _mm512_dpbusd_epi32(acc[i], _mm512_set1_epi32(static_cast<int32_t>(ap[i])), b);
    ap += kMr;
    bp += kPanel * 4;
  }
  if (last != nullptr) {
    const __m512i zb = _mm512_loadu_si512(last->zb), cs = _mm512_loadu_si512(last->colsum);
#pragma GCC unroll 12
    for (int64_t i = 0; i < kRows; ++i) {
      const __m512i t = _mm512_add_epi32(_mm512_mullo_epi32(zb, _mm512_set1_epi32(static_cast<int32_t>(last->centered[i]))),
                                         _mm512_mullo_epi32(_mm512_set1_epi32(static_cast<int32_t>(last->za[i])), cs));
      acc[i] = _mm512_sub_epi32(acc[i], t);
    }
  }
  // Straight from the registers: a masked store for a partial panel, and
  // the earlier k-blocks' sums added (wrapping) when accumulating.
  const __mmask16 mask = cols >= kPanel ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << cols) - 1u);
#pragma GCC unroll 12
  for (int64_t i = 0; i < kRows; ++i) {
    int32_t* row = c + i * ldc;
    __m512i v = acc[i];
    if (accumulate) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(mask, row));
    if (rq != nullptr) {
      StoreRequantizedRow(v, *rq, i, mask, cols);
    } else {
      _mm512_mask_storeu_epi32(row, mask, v);
    }
  }
}
#endif

// The same products in portable code.
template <int64_t kRows>
void KernelPortable(int64_t qc, const uint32_t* ap, const int8_t* bp, bool accumulate, const Correction* last,
                    int32_t* c, int64_t ldc, int64_t cols, const Int8Requant* rq) {
  int32_t tile[kRows * kPanel] = {};
  for (int64_t q = 0; q < qc; ++q, ap += kMr, bp += kPanel * 4)
    for (int64_t i = 0; i < kRows; ++i)
      for (int64_t j = 0; j < kPanel; ++j) {
        uint32_t s = static_cast<uint32_t>(tile[i * kPanel + j]);
        for (int64_t t = 0; t < 4; ++t)
          s += static_cast<uint32_t>(static_cast<int32_t>((ap[i] >> (8 * t)) & 0xff) * bp[j * 4 + t]);
        tile[i * kPanel + j] = static_cast<int32_t>(s);
      }
  if (last != nullptr)
    for (int64_t i = 0; i < kRows; ++i)
      for (int64_t j = 0; j < kPanel; ++j)
        tile[i * kPanel + j] = static_cast<int32_t>(static_cast<uint32_t>(tile[i * kPanel + j]) -
                                                    static_cast<uint32_t>(last->zb[j]) * last->centered[i] -
                                                    last->za[i] * static_cast<uint32_t>(last->colsum[j]));
  StoreTile<kRows>(tile, accumulate, c, ldc, cols);
  if (rq != nullptr)
    for (int64_t i = 0; i < kRows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        rq->out[i * rq->ldo + j] =
            RequantizeOne(c[i * ldc + j], rq->bias ? rq->bias[i] : 0, rq->scale[i], rq->zero, rq->out_signed);
}

using KernelFn = void (*)(int64_t, const uint32_t*, const int8_t*, bool, const Correction*, int32_t*, int64_t, int64_t,
                          const Int8Requant*);

template <bool kVnni, size_t... kIs>
constexpr std::array<KernelFn, sizeof...(kIs)> Table(std::index_sequence<kIs...>) {
#ifdef TESSERA_QUADS_X86
  if constexpr (kVnni) return {&KernelVnni<static_cast<int64_t>(kIs) + 1>...};
#endif
  return {&KernelPortable<static_cast<int64_t>(kIs) + 1>...};
}

}  // namespace

void PrepareB(bool is_signed, bool as_unsigned, int64_t n, ZeroPoints zero, int64_t quad_steps,
              std::vector<int8_t>& quad, std::vector<int32_t>& colsum, std::vector<int32_t>& zeros) {
  const int64_t panels = (n + kPanel - 1) / kPanel;
  // Every byte is written by PackPanels (padding too), so a buffer reused
  // from an earlier product needs no clearing. Column terms are padded to
  // whole panels (the kernel reads 16 at a time).
  quad.resize(static_cast<size_t>(panels * quad_steps * kPanel * 4));
  colsum.assign(static_cast<size_t>(panels * kPanel), 0);
  zeros.assign(static_cast<size_t>(panels * kPanel), 0);
  // The stored byte is the value's, or its top bit flipped where the
  // stored type differs (which moves the zero point by 128).
  const bool flips = is_signed == as_unsigned;
  const int32_t shift = !flips ? 0 : is_signed ? 128 : -128;
  for (int64_t j = 0; j < n; ++j) zeros[static_cast<size_t>(j)] = zero.At(j) + shift;
}

void PackPanels(bool is_signed, bool as_unsigned, int64_t k, int64_t n, const uint8_t* const* b_rows,
                int64_t quad_steps, int64_t p0, int64_t p1, int8_t* quad, int32_t* colsum) {
  const bool sums = colsum != nullptr;
  const uint8_t flip = is_signed == as_unsigned ? 0x80 : 0x00;
  {
    // Column sums of the stored values, added as each quad is stored.
    int32_t* cs = colsum;
    for (int64_t q = 0; q < quad_steps; ++q) {
      const uint8_t* rows[4];
      bool whole = true;
      for (int64_t t = 0; t < 4; ++t) {
        rows[t] = 4 * q + t < k ? b_rows[4 * q + t] : nullptr;
        whole &= rows[t] != nullptr;
      }
      for (int64_t p = p0; p < p1; ++p) {
        int8_t* out = quad + ((p * quad_steps + q) * kPanel) * 4;
        const int64_t j0 = p * kPanel;
#ifdef TESSERA_QUADS_X86
        if (whole && j0 + kPanel <= n) {
          // A 4 x 16 byte transpose: each column's four k-values into one word.
          const __m128i f = _mm_set1_epi8(static_cast<char>(flip));
          __m128i r[4];
          for (int t = 0; t < 4; ++t)
            r[t] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[t] + j0)), f);
          const __m128i lo01 = _mm_unpacklo_epi8(r[0], r[1]), hi01 = _mm_unpackhi_epi8(r[0], r[1]);
          const __m128i lo23 = _mm_unpacklo_epi8(r[2], r[3]), hi23 = _mm_unpackhi_epi8(r[2], r[3]);
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi16(lo01, lo23));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_unpackhi_epi16(lo01, lo23));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 32), _mm_unpacklo_epi16(hi01, hi23));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 48), _mm_unpackhi_epi16(hi01, hi23));
          if (!sums) continue;
          // The four values of each column, widened (SSE2) and summed in
          // int16 (at most 4 * 255), then added to its int32 sum.
          const __m128i zero = _mm_setzero_si128();
          __m128i lo = zero, hi = zero;
          for (int t = 0; t < 4; ++t) {
            const __m128i sign = as_unsigned ? zero : _mm_cmpgt_epi8(zero, r[t]);
            lo = _mm_add_epi16(lo, _mm_unpacklo_epi8(r[t], sign));
            hi = _mm_add_epi16(hi, _mm_unpackhi_epi8(r[t], sign));
          }
          __m128i* sums = reinterpret_cast<__m128i*>(cs + j0);
          const __m128i parts[4] = {_mm_srai_epi32(_mm_unpacklo_epi16(lo, lo), 16),
                                    _mm_srai_epi32(_mm_unpackhi_epi16(lo, lo), 16),
                                    _mm_srai_epi32(_mm_unpacklo_epi16(hi, hi), 16),
                                    _mm_srai_epi32(_mm_unpackhi_epi16(hi, hi), 16)};
          for (int v = 0; v < 4; ++v) _mm_storeu_si128(sums + v, _mm_add_epi32(_mm_loadu_si128(sums + v), parts[v]));
          continue;
        }
#endif
        for (int64_t j = 0; j < kPanel; ++j)
          for (int64_t t = 0; t < 4; ++t) {
            const bool there = rows[t] != nullptr && j0 + j < n;
            const uint8_t stored = there ? static_cast<uint8_t>(rows[t][j0 + j] ^ flip) : 0;
            out[j * 4 + t] = static_cast<int8_t>(stored);
            if (there && sums) cs[j0 + j] += as_unsigned ? int32_t{stored} : int32_t{static_cast<int8_t>(stored)};
          }
      }
    }
  }
}

namespace {

// Per row: za' and sum_k a' - K za' (int8 A's bytes flip, adding 128).
void RowTerms(int64_t m, int64_t k, bool a_signed, const uint8_t* ab, int64_t lda, ZeroPoints a_zero, uint32_t* za,
              uint32_t* centered) {
  for (int64_t i = 0; i < m; ++i) {
    const uint8_t* row = ab + i * lda;
    uint32_t ra = 0;
    if (a_signed) {
      for (int64_t kk = 0; kk < k; ++kk) ra += static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(row[kk])) + 128);
    } else {
      for (int64_t kk = 0; kk < k; ++kk) ra += row[kk];
    }
    za[i] = static_cast<uint32_t>(a_zero.At(i) + (a_signed ? 128 : 0));
    centered[i] = ra - static_cast<uint32_t>(k) * za[i];
  }
}

}  // namespace

void PackWholeA(bool a_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints a_zero,
                std::vector<uint32_t>& words, std::vector<uint32_t>& za, std::vector<uint32_t>& centered) {
  const int64_t steps = (k + 3) / 4, panels = (m + kMr - 1) / kMr;
  const auto* ab = static_cast<const uint8_t*>(a);
  words.assign(static_cast<size_t>(panels * steps * kMr), 0);
  PackA(m, 0, 0, steps, k, a_signed, ab, lda, words.data());
  za.assign(static_cast<size_t>(m), 0);
  centered.assign(static_cast<size_t>(m), 0);
  RowTerms(m, k, a_signed, ab, lda, a_zero, za.data(), centered.data());
}

void Gemm(bool vnni, int64_t m, int64_t j_begin, int64_t j_end, bool a_signed, const void* a, int64_t lda,
          ZeroPoints a_zero, const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant,
          PackedInt8A::View packed) {
  static constexpr auto kPortable = Table<false>(std::make_index_sequence<kMr>());
  static constexpr auto kVnni = Table<true>(std::make_index_sequence<kMr>());
  const auto& kernels = vnni ? kVnni : kPortable;
  const int64_t k = b.k(), steps = b.quad_steps();
  const auto* ab = static_cast<const uint8_t*>(a);
  const bool prepacked = packed.words != nullptr;
  thread_local std::vector<uint32_t> za_buf, centered_buf;
  const uint32_t* za = packed.za;
  const uint32_t* centered = packed.centered;
  if (!prepacked) {
    za_buf.resize(static_cast<size_t>(m));
    centered_buf.resize(static_cast<size_t>(m));
    RowTerms(m, k, a_signed, ab, lda, a_zero, za_buf.data(), centered_buf.data());
    za = za_buf.data();
    centered = centered_buf.data();
  }
  thread_local std::unique_ptr<uint32_t[]> a_buf;
  if (!prepacked && !a_buf) a_buf = std::make_unique<uint32_t[]>(static_cast<size_t>(kMc * kKcQuads));
  for (int64_t q0 = 0; q0 < steps; q0 += kKcQuads) {
    const int64_t qc = std::min(kKcQuads, steps - q0);
    const bool last_block = q0 + qc >= steps;
    for (int64_t i0 = 0; i0 < m; i0 += kMc) {
      const int64_t mc = std::min(kMc, m - i0);
      if (!prepacked) PackA(mc, i0, q0, qc, k, a_signed, ab, lda, a_buf.get());
      for (int64_t j0 = j_begin; j0 < j_end; j0 += kPanel) {
        const int8_t* bp = b.QuadPanel(j0 / kPanel, q0);
        for (int64_t ir = 0; ir < mc; ir += kMr) {
          const int64_t rows = std::min(kMr, mc - ir);
          // The panel's words for quads [q0, q0 + qc): a block of a_buf, or
          // a stretch of the whole packed A (panels of `steps` quads).
          const uint32_t* ap = prepacked ? packed.words + ((i0 + ir) / kMr * packed.steps + q0) * kMr
                                         : a_buf.get() + (ir / kMr) * qc * kMr;
          const Correction corr{za + i0 + ir, centered + i0 + ir, b.column_zeros() + j0, b.column_sums() + j0};
          Int8Requant tile_rq;
          if (requant != nullptr && last_block) {
            tile_rq = requant->Rows(i0 + ir);
            tile_rq.out += j0;
          }
          kernels[static_cast<size_t>(rows - 1)](qc, ap, bp, q0 > 0, last_block ? &corr : nullptr,
                                                 c + (i0 + ir) * ldc + j0, ldc, std::min(kPanel, j_end - j0),
                                                 requant != nullptr && last_block ? &tile_rq : nullptr);
        }
      }
    }
  }
}

}  // namespace tessera::cpu::int8_quads
