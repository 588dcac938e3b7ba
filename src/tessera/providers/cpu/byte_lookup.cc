#include "tessera/providers/cpu/byte_lookup.h"

#include "tessera/providers/cpu/simd_isa.h"

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

void LookupBytes(const uint8_t* table, const uint8_t* x, int64_t n, uint8_t* y) {
#ifdef TESSERA_LOOKUP_X86
  if (n >= 16 && Vbmi()) return LookupVbmi(table, x, n, y);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace tessera::cpu
