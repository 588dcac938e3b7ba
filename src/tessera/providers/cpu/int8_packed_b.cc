// B's packing for the int8 GEMM (PackedInt8B, int8_gemm.h): the pair form
// here, the two quad forms by int8_gemm_quads.cc.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/cpu/int8_gemm.h"
#include "tessera/providers/cpu/int8_gemm_maddubs.h"
#include "tessera/providers/cpu/int8_gemm_quads.h"
#include "tessera/providers/cpu/int8_pair_word.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace tessera::cpu {

using int8_gemm_detail::PairWord;
constexpr int64_t kPanel = PackedInt8B::kPanel;

namespace {

// One 16-column panel of a whole row pair: the columns' bytes widened to
// int16, less their zero points, and interleaved into pair words (SSE2, so
// every x86-64 target shares it). The scalar version below is the same
// arithmetic for partial panels, the last odd row and other CPUs.
#if defined(__x86_64__) || defined(_M_X64)
template <typename T>
inline void PackPanelPairsSse2(const T* lo, const T* hi, const int16_t* z, int32_t* out) {
  const __m128i zero = _mm_setzero_si128();
  const auto widen = [&](__m128i bytes, __m128i& first, __m128i& second) {
    const __m128i high = std::is_signed_v<T> ? _mm_cmpgt_epi8(zero, bytes) : zero;
    first = _mm_unpacklo_epi8(bytes, high);
    second = _mm_unpackhi_epi8(bytes, high);
  };
  __m128i l0, l1, h0, h1;
  widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo)), l0, l1);
  widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), h0, h1);
  const __m128i z0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(z));
  const __m128i z1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(z + 8));
  l0 = _mm_sub_epi16(l0, z0), h0 = _mm_sub_epi16(h0, z0);
  l1 = _mm_sub_epi16(l1, z1), h1 = _mm_sub_epi16(h1, z1);
  auto* o = reinterpret_cast<__m128i*>(out);
  _mm_storeu_si128(o, _mm_unpacklo_epi16(l0, h0));
  _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(l0, h0));
  _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(l1, h1));
  _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(l1, h1));
}
#endif

// Panels [p0, p1) of B: rows 2q and 2q + 1 at a time (both read along the
// row), each column's pair written into its panel. z holds the columns'
// zero points as int16 (a centered value and a zero point fit), padded to
// whole panels.
template <typename T>
void PackPairs(int64_t k, int64_t n, const uint8_t* const* rows, const int16_t* z, int64_t pairs, int64_t p0,
               int64_t p1, int32_t* out) {
  for (int64_t q = 0; q < pairs; ++q) {
    const T* lo = reinterpret_cast<const T*>(rows[2 * q]);
    const T* hi = 2 * q + 1 < k ? reinterpret_cast<const T*>(rows[2 * q + 1]) : nullptr;
    for (int64_t p = p0; p < p1; ++p) {
      int32_t* o = out + (p * pairs + q) * kPanel;
      const int64_t j0 = p * kPanel, width = std::min(kPanel, n - j0);
#if defined(__x86_64__) || defined(_M_X64)
      if (width == kPanel && hi != nullptr) {
        PackPanelPairsSse2(lo + j0, hi + j0, z + j0, o);
        continue;
      }
#endif
      for (int64_t j = 0; j < kPanel; ++j)
        o[j] = j < width ? PairWord(int32_t{lo[j0 + j]} - z[j0 + j], hi != nullptr ? int32_t{hi[j0 + j]} - z[j0 + j] : 0)
                         : 0;
    }
  }
}

}  // namespace

PackedInt8B::PackedInt8B(bool is_signed, int64_t k, int64_t n, const void* b, int64_t ldb, ZeroPoints zero) {
  Repack(is_signed, k, n, b, ldb, zero);
}

void PackedInt8B::Repack(bool is_signed, int64_t k, int64_t n, const void* b, int64_t ldb, ZeroPoints zero,
                         ThreadPool* pool, const PackedInt8A* a_side) {
  std::vector<const uint8_t*> rows(static_cast<size_t>(k));
  for (int64_t kk = 0; kk < k; ++kk) rows[static_cast<size_t>(kk)] = static_cast<const uint8_t*>(b) + kk * ldb;
  RepackRows(is_signed, k, n, rows.data(), zero, pool, a_side);
}

void PackedInt8B::RepackRows(bool is_signed, int64_t k, int64_t n, const uint8_t* const* rows, ZeroPoints zero,
                             ThreadPool* pool, const PackedInt8A* a_side) {
  Begin(is_signed, k, n, rows, zero, a_side);
  // Panels are independent: split them over the pool (a product's
  // activations are packed on every run).
  ParallelFor(pool, panels(), std::max<int64_t>(1, 4096 / std::max<int64_t>(k, 1)),
              [&](int64_t p0, int64_t p1) { PackPanels(p0, p1); });
  rows_ = nullptr;
}

void PackedInt8B::RepackTransposed(bool is_signed, int64_t k, int64_t n, const void* src, int64_t ld, ZeroPoints zero,
                                   const PackedInt8A& a_side, ThreadPool* pool) {
  if (a_side.byte_quads() == nullptr) throw std::logic_error("int8 GEMM: a transposed B needs a byte-quad A");
  Begin(is_signed, k, n, nullptr, zero, &a_side);
  rows_ = nullptr;
  // Stored as uint8: int8 bytes with the top bit flipped (their zero
  // points moved by 128, as Begin set them).
  const uint32_t flip = is_signed ? 0x80808080u : 0u;
  const int64_t whole = k / 4;
  const auto* bytes = static_cast<const uint8_t*>(src);
  ParallelFor(pool, panels(), std::max<int64_t>(1, 2048 / std::max<int64_t>(k, 1)), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t c = 0; c < kPanel; ++c) {
        const int64_t j = p * kPanel + c;
        auto* out = reinterpret_cast<uint8_t*>(quad_.data()) + (p * quads4_ * kPanel + c) * 4;
        const uint8_t* row = bytes + j * ld;
        int32_t sum = 0;
        for (int64_t q = 0; q < quads4_; ++q, out += kPanel * 4) {
          uint32_t word = 0;
          if (j < n && q < whole) {
            std::memcpy(&word, row + 4 * q, 4);
            word ^= flip;
          } else if (j < n) {
            for (int64_t t = 0; 4 * q + t < k; ++t) word |= static_cast<uint32_t>(row[4 * q + t] ^ (flip & 0xff)) << (8 * t);
          }
          std::memcpy(out, &word, 4);
          if (column_sums_) sum += static_cast<int32_t>((word & 0xff) + ((word >> 8) & 0xff) + ((word >> 16) & 0xff) + (word >> 24));
        }
        if (j < n) colsum_[static_cast<size_t>(j)] = sum;
      }
  });
}

void PackedInt8B::Begin(bool is_signed, int64_t k, int64_t n, const uint8_t* const* rows, ZeroPoints zero,
                        const PackedInt8A* a_side) {
  k_ = k, n_ = n, pairs_ = (k + 1) / 2, quads4_ = (k + 3) / 4;
  is_signed_ = is_signed, rows_ = rows;
  byte_quads_ = a_side != nullptr && a_side->byte_quads() != nullptr;
  quads_ = !byte_quads_ && Int8GemmUsesVnni();
  // Symmetric weights never read B's column sums: packing skips them.
  column_sums_ = !byte_quads_ || !a_side->byte_quads()->za_all_zero;
  if (quads_ || byte_quads_) {
    int8_quads::PrepareB(is_signed, byte_quads_, n, zero, quads4_, quad_, colsum_, zero_);
    return;
  }
  data_.resize(static_cast<size_t>(panels() * pairs_ * kPanel));  // every word is written by PackPanels
  pair_zero_.assign(static_cast<size_t>(panels() * kPanel), 0);
  for (int64_t j = 0; j < n; ++j) pair_zero_[static_cast<size_t>(j)] = static_cast<int16_t>(zero.At(j));
}

void PackedInt8B::PackPanels(int64_t p0, int64_t p1) {
  if (quads_ || byte_quads_) {
    int8_quads::PackPanels(is_signed_, byte_quads_, k_, n_, rows_, quads4_, p0, p1, quad_.data(),
                           column_sums_ ? colsum_.data() : nullptr);
  } else if (is_signed_) {
    PackPairs<int8_t>(k_, n_, rows_, pair_zero_.data(), pairs_, p0, p1, data_.data());
  } else {
    PackPairs<uint8_t>(k_, n_, rows_, pair_zero_.data(), pairs_, p0, p1, data_.data());
  }
}

}  // namespace tessera::cpu
