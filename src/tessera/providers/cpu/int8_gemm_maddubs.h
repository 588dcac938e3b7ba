// The byte-quad form of the int8 GEMM (int8_gemm.h) for AVX2 CPUs without
// VNNI, used where A is constant (a convolution's weights): B as uint8
// (int8 B plus 128), four k-values a word, times A as int8 (uint8 A less
// 128) with vpmaddubsw, then vpmaddwd on ones to widen its 16-bit sums into
// the int32 accumulators. A step holds twice the products of the pair
// form's and reads half the bytes of B.
//
// vpmaddubsw saturates a sum of two u8 x s8 products past the int16 range,
// which a pair of same-sign weights with |w0| + |w1| > 128 can reach. A's
// packing rules that out: such a pair is stored halved, and its other half
// goes to a short list of extra steps for that row, run after the block's
// main steps. Every partial sum then stays within +-255 * 128, and the
// result is the exact integer product, as the other forms' are. The zero
// points are applied from row and column sums after the product, as the
// VNNI quad form does.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/providers/cpu/int8_gemm.h"

namespace tessera::cpu::int8_maddubs {

constexpr int64_t kRows = 4;       // rows a tile (and a packed panel)
// Quads a k-block at most: 1024 values of K, so a 16-column panel of B
// (16 KiB) stays in L1 while a tile's rows stream over it. K is cut into
// equal blocks: a short tail block would cost a whole pass through C.
constexpr int64_t kMaxKcQuads = 256;

// A [m, k] packed once.
struct PackedA {
  struct Extra {
    int32_t quad;   // the k-quad it adds to
    uint32_t word;  // the halves split off that quad's pairs, int8 bytes
  };
  int64_t m = 0, k = 0, steps = 0, blocks = 0, block_quads = 0;
  std::vector<uint32_t> words;  // [panel][steps][kRows] int8 quads, halved where split
  std::vector<Extra> extras;    // by panel, row, then quad
  // Where row r of panel p starts its extras for k-block b:
  // extra_begin[(p * kRows + r) * (blocks + 1) + b]; entry `blocks` ends them.
  std::vector<uint32_t> extra_begin;
  // Per panel and k-block: whether any of the panel's rows has extras there
  // (most have none: the kernel then skips its four row lists).
  std::vector<uint8_t> block_has_extras;
  std::vector<uint32_t> za, centered;  // per row: za' and sum_k a' - K za'
  bool za_all_zero = false;            // every row's za' is 0: B's column sums are not needed
};

// Packs A (int8 when a_signed, else uint8) with its zero points: element
// (i, kk) at a[i * lda + kk * col_stride] (col_stride > 1: A given as the
// transpose of a row-major matrix, a constant B read in place).
void PackA(bool a_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints zero, PackedA& out,
           int64_t col_stride = 1);

// Columns [j_begin, j_end) of C [m, n] from A's rows [row0, row0 + m)
// (row0 a multiple of kRows) and B packed in this form. `avx2` runs the
// vpmaddubsw kernel, else a portable loop over the same packed data (a
// target below AVX2, in tests). With `requant` (rows as C's), the last
// k-block stores requantized bytes instead of C; earlier k-blocks still add
// up in C.
void Gemm(bool avx2, int64_t m, int64_t j_begin, int64_t j_end, const PackedA& a, int64_t row0, const PackedInt8B& b,
          int32_t* c, int64_t ldc, const Int8Requant* requant = nullptr);

// dst [cols, rows] (ldd between rows) = rows [r0, r1) of src [rows, cols]
// transposed: the transposed product's C^T back into C. `avx2` moves 8 x 8
// blocks in registers.
void TransposeRows(bool avx2, const int32_t* src, int64_t rows, int64_t cols, int64_t r0, int64_t r1, int32_t* dst);

}  // namespace tessera::cpu::int8_maddubs
