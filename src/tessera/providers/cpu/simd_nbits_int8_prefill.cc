// The int8 prefill of MatMulNBits (simd_nbits_int8.h), compiled once per
// target by Highway. Eight weight columns at a time are unpacked, a block at
// a time, into quads: 32-byte rows holding 4 consecutive k of each column,
// so that one vpmaddubsw multiplies 8 columns by 4 values of A broadcast
// from one row, and the int16 lanes gather 8 quads (32 k, at most 8 * 3810 in
// magnitude: no saturation) before one vpmaddwd into int32. Per block and row
// the lanes are the 8 columns' sums, so the scales (per column) and the zero
// points meet them as vectors: a convert, a multiply-add for the zero
// point, a multiply and an FMA for 32 x 8 products. The float tiles
// (simd_nbits.cc) take 8 FMAs for those. Below AVX2 the same sums are taken
// in scalar code (for tests; the kernel does not choose this pass there).
#include <algorithm>
#include <cstring>
#include <vector>

#include "tessera/providers/cpu/simd_nbits_int8.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/simd_nbits_int8_prefill.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::nbits_prefill_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int64_t kPanel = 8;  // columns unpacked together: one int32 lane each
constexpr int kTileRows = 4;   // rows of A a tile takes (6 ran slower at 16 rows: 6 + 6 + 4)

// Eight columns' weights as quads, with their scales and zero points by
// block (columns past the last are zero: they add nothing).
struct Panel {
  std::vector<uint8_t> quads;  // (b * block / 4 + j) * 32 + 4 * c: k = 4j..4j+3 of column c
  std::vector<float> scale;    // b * 8 + c
  std::vector<float> zero;     // b * 8 + c
};

// Column c's value k of block b.
inline int Nibble(const U4Columns& w, int64_t c, int64_t b, int64_t k) {
  const uint8_t byte = w.packed[(c * w.blocks + b) * (w.block / 2) + k / 2];
  return (k & 1) ? byte >> 4 : byte & 15;
}

void FillScales(const U4Columns& w, int64_t c0, int64_t cols, Panel& p) {
  p.scale.assign(static_cast<size_t>(w.blocks * kPanel), 0.0f);
  p.zero.assign(p.scale.size(), 0.0f);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t b = 0; b < w.blocks; ++b) {
      const size_t at = static_cast<size_t>(b * kPanel + c);
      p.scale[at] = w.scale[(c0 + c) * w.blocks + b];
      p.zero[at] = w.zero != nullptr ? w.zero[(c0 + c) * w.blocks + b] : w.uniform_zero;
    }
}

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
bool Pays() { return true; }

// Unpacks columns [c0, c0 + cols) of w: each 16 (or, for block 16, 8) packed
// bytes become their values in k order (low nibble, high nibble, ...), one
// 256-bit row of 8 quads a column, and an 8 x 8 transpose of 32-bit words
// turns the rows of columns into rows of quads.
void FillPanel(const U4Columns& w, int64_t c0, int64_t cols, Panel& p) {
  const int64_t bytes = w.block / 2, quads = w.block / 4, chunk = std::min<int64_t>(16, bytes);
  p.quads.resize(static_cast<size_t>(w.blocks * quads * 32));
  const __m128i mask = _mm_set1_epi8(0x0F);
  for (int64_t b = 0; b < w.blocks; ++b)
    for (int64_t j0 = 0; j0 < bytes; j0 += chunk) {
      __m256i v[kPanel];
      for (int64_t c = 0; c < kPanel; ++c) {
        if (c >= cols) {
          v[c] = _mm256_setzero_si256();
          continue;
        }
        const uint8_t* q = w.packed + ((c0 + c) * w.blocks + b) * bytes + j0;
        const __m128i x = chunk == 16 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(q))
                                      : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q));
        const __m128i lo = _mm_and_si128(x, mask), hi = _mm_and_si128(_mm_srli_epi16(x, 4), mask);
        v[c] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(lo, hi)), _mm_unpackhi_epi8(lo, hi), 1);
      }
      __m256i t[kPanel], u[kPanel];
      for (int i = 0; i < 4; ++i) {
        t[2 * i] = _mm256_unpacklo_epi32(v[2 * i], v[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(v[2 * i], v[2 * i + 1]);
      }
      for (int h = 0; h < 2; ++h) {  // columns 0-3, then 4-7
        u[4 * h + 0] = _mm256_unpacklo_epi64(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 1] = _mm256_unpackhi_epi64(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 2] = _mm256_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
      }
      // u[i] holds quads i (low lane) and i + 4 (high lane) of columns 0-3
      // (u[i]) or 4-7 (u[4 + i]).
      uint8_t* out = p.quads.data() + (b * quads + j0 / 2) * 32;
      const int64_t in_chunk = chunk / 2;  // quads: 8, or 4 for block 16
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i * 32), _mm256_permute2x128_si256(u[i], u[4 + i], 0x20));
        if (i + 4 < in_chunk)
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (i + 4) * 32),
                              _mm256_permute2x128_si256(u[i], u[4 + i], 0x31));
      }
    }
  FillScales(w, c0, cols, p);
}

// Rows r < kRows of A (k order) against the panel: y[r * ldy + c], c < cols.
template <int kRows>
void Tile(const Panel& p, int64_t blocks, int64_t block, const Int8BlockRows& a, float* y, int64_t ldy,
          int64_t cols) {
  const hn::Full256<float> df;
  const hn::Full256<int32_t> di;
  const __m256i ones = _mm256_set1_epi16(1);
  const int64_t quads = block / 4;
  hn::Vec<decltype(df)> acc[kRows];
  for (int r = 0; r < kRows; ++r) acc[r] = hn::Zero(df);
  for (int64_t b = 0; b < blocks; ++b) {
    __m256i sum[kRows];
    for (int r = 0; r < kRows; ++r) sum[r] = _mm256_setzero_si256();
    for (int64_t g = 0; g < quads; g += 8) {
      __m256i pairs[kRows];
      for (int r = 0; r < kRows; ++r) pairs[r] = _mm256_setzero_si256();
      const int64_t g_end = std::min(quads, g + 8);
      for (int64_t j = g; j < g_end; ++j) {
        const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.quads.data() + (b * quads + j) * 32));
        for (int r = 0; r < kRows; ++r) {
          int32_t quad;
          std::memcpy(&quad, a.values + (r * blocks + b) * block + 4 * j, 4);
          pairs[r] = _mm256_add_epi16(pairs[r], _mm256_maddubs_epi16(wv, _mm256_set1_epi32(quad)));
        }
      }
      for (int r = 0; r < kRows; ++r) sum[r] = _mm256_add_epi32(sum[r], _mm256_madd_epi16(pairs[r], ones));
    }
    const auto ws = hn::LoadU(df, p.scale.data() + b * kPanel), zero = hn::LoadU(df, p.zero.data() + b * kPanel);
    for (int r = 0; r < kRows; ++r) {
      // sum_k (q - z) a: the int sums and z * sum_k a are below 2^24, exact in float.
      const auto centered = hn::NegMulAdd(zero, hn::Set(df, a.sum[r * blocks + b]),
                                          hn::ConvertTo(df, hn::Vec<decltype(di)>{sum[r]}));
      acc[r] = hn::MulAdd(centered, hn::Mul(ws, hn::Set(df, a.scale[r * blocks + b])), acc[r]);
    }
  }
  for (int r = 0; r < kRows; ++r) {
    alignas(32) float lanes[kPanel];
    hn::Store(acc[r], df, lanes);
    std::copy(lanes, lanes + cols, y + r * ldy);
  }
}

void TileRows(const Panel& p, int64_t blocks, int64_t block, const Int8BlockRows& a, int64_t rows, float* y,
              int64_t ldy, int64_t cols) {
  switch (rows) {
    case 1: return Tile<1>(p, blocks, block, a, y, ldy, cols);
    case 2: return Tile<2>(p, blocks, block, a, y, ldy, cols);
    case 3: return Tile<3>(p, blocks, block, a, y, ldy, cols);
    default: return Tile<4>(p, blocks, block, a, y, ldy, cols);
  }
}
#else
bool Pays() { return false; }

void FillPanel(const U4Columns& w, int64_t c0, int64_t cols, Panel& p) {
  const int64_t quads = w.block / 4;
  p.quads.assign(static_cast<size_t>(w.blocks * quads * 32), 0);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t b = 0; b < w.blocks; ++b)
      for (int64_t k = 0; k < w.block; ++k)
        p.quads[static_cast<size_t>((b * quads + k / 4) * 32 + 4 * c + k % 4)] =
            static_cast<uint8_t>(Nibble(w, c0 + c, b, k));
  FillScales(w, c0, cols, p);
}

void TileRows(const Panel& p, int64_t blocks, int64_t block, const Int8BlockRows& a, int64_t rows, float* y,
              int64_t ldy, int64_t cols) {
  const int64_t quads = block / 4;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float s = 0.0f;
      for (int64_t b = 0; b < blocks; ++b) {
        int32_t dot = 0;
        for (int64_t k = 0; k < block; ++k)
          dot += p.quads[static_cast<size_t>((b * quads + k / 4) * 32 + 4 * c + k % 4)] *
                 a.values[(r * blocks + b) * block + k];
        const size_t at = static_cast<size_t>(b * kPanel + c);
        s += (static_cast<float>(dot) - p.zero[at] * a.sum[r * blocks + b]) * (p.scale[at] * a.scale[r * blocks + b]);
      }
      y[r * ldy + c] = s;
    }
}
#endif

void Prefill(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy) {
  Panel panel;
  for (int64_t c0 = 0; c0 < w.count; c0 += kPanel) {
    const int64_t cols = std::min(kPanel, w.count - c0);
    FillPanel(w, c0, cols, panel);
    // The next panel's bytes (contiguous: columns follow each other) are
    // asked for while this one's tiles compute: unpacking waited on them.
    const int64_t row_bytes = w.blocks * w.block / 2;
    const int64_t next = std::min(kPanel, w.count - c0 - kPanel);
    for (int64_t off = 0; off < next * row_bytes; off += 64)
      __builtin_prefetch(w.packed + (c0 + kPanel) * row_bytes + off, 0, 3);
    for (int64_t r0 = 0; r0 < m; r0 += kTileRows) {
      const int64_t at = r0 * w.blocks;
      const Int8BlockRows rows{a.values + at * w.block, a.scale + at, a.scaled_sum + at, a.sum + at};
      TileRows(panel, w.blocks, w.block, rows, std::min<int64_t>(kTileRows, m - r0), y + r0 * ldy + c0, ldy, cols);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::nbits_prefill_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace nbits_prefill_detail {
HWY_EXPORT(Pays);
HWY_EXPORT(Prefill);
}  // namespace nbits_prefill_detail

bool Int8PrefillPays() { return HWY_DYNAMIC_DISPATCH(nbits_prefill_detail::Pays)(); }

void PrefillDotU4S8(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy) {
  if (m <= 0 || w.count <= 0) return;
  HWY_DYNAMIC_DISPATCH(nbits_prefill_detail::Prefill)(w, a, m, y, ldy);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
