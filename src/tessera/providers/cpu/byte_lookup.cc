#include "tessera/providers/cpu/byte_lookup.h"

#include "tessera/providers/common/simd_isa.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define TESSERA_LOOKUP_X86 1
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // as in int8_gemm_quads.cc
#endif
#endif

namespace tessera::cpu {
namespace {

#ifdef TESSERA_LOOKUP_X86
#define TESSERA_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Bits 0-6 of each index pick from a pair of table vectors; bit 7 picks
// the pair.
TESSERA_VBMI inline __m512i Lookup64(__m512i t0, __m512i t1, __m512i t2, __m512i t3, __m512i idx) {
  const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1), hi = _mm512_permutex2var_epi8(t2, idx, t3);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi);
}

#define TESSERA_AVX2 __attribute__((target("avx2")))

// 32 lookups by byte shuffles: the table as 16 rows of 16 bytes (each in
// both lanes); row k serves the indices whose high nibble is k. x ^ (k << 4)
// brings those to 0..15, and a saturating add of 0x70 leaves them in
// 0x70..0x7f (the low nibble selects) while every other index reaches bit
// 7, where the shuffle gives 0: one row contributes to each lane.
TESSERA_AVX2 inline __m256i Lookup32(const __m256i (&rows)[16], __m256i idx) {
  const __m256i lift = _mm256_set1_epi8(0x70);
  __m256i out = _mm256_setzero_si256();
  for (int k = 0; k < 16; ++k) {
    const __m256i sel = _mm256_adds_epu8(_mm256_xor_si256(idx, _mm256_set1_epi8(static_cast<char>(k << 4))), lift);
    out = _mm256_or_si256(out, _mm256_shuffle_epi8(rows[k], sel));
  }
  return out;
}

TESSERA_AVX2 void LookupAvx2(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* y) {
  __m256i rows[16];
  for (int k = 0; k < 16; ++k)
    rows[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        Lookup32(rows, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
  for (; i < n; ++i) y[i] = table[x[i]];
}

TESSERA_VBMI void LookupVbmi(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* y) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(y + i, Lookup64(t0, t1, t2, t3, _mm512_loadu_si512(x + i)));
  if (i < n) {
    const __mmask64 m = (~0ull) >> (64 - (n - i));
    _mm512_mask_storeu_epi8(y + i, m, Lookup64(t0, t1, t2, t3, _mm512_maskz_loadu_epi8(m, x + i)));
  }
}
#endif

bool Avx2() {
#ifdef TESSERA_LOOKUP_X86
  static const bool cpu = __builtin_cpu_supports("avx2");
  const auto cap = SimdCap();
  return cpu && (!cap || *cap == IsaLevel::kAvx2 || *cap == IsaLevel::kAvx512);
#else
  return false;
#endif
}

bool Vbmi() {
#ifdef TESSERA_LOOKUP_X86
  static const bool cpu = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  const auto cap = SimdCap();
  return cpu && (!cap || *cap == IsaLevel::kAvx512);
#else
  return false;
#endif
}

}  // namespace

bool LookupBytesUsesVbmi() { return Vbmi(); }
bool LookupBytesUsesAvx2() { return !Vbmi() && Avx2(); }

void LookupBytes(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* y) {
#ifdef TESSERA_LOOKUP_X86
  if (n >= 16 && Vbmi()) return LookupVbmi(table, x, n, y);
  if (n >= 32 && Avx2()) return LookupAvx2(table, x, n, y);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace tessera::cpu
