// MatMulNBits at accuracy_level 4 (int8): 4-bit weights against A quantized
// to int8 per block, in exact integer inner products (u8 x s8 byte pairs,
// vpmaddubsw on x86), one float multiply-add per block. A decode step reads
// each packed byte once and does about half the vector work of the float
// pass per weight (simd_nbits.h), so it can run at the memory's speed.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// How QuantizeBlockS8 lays a block out: in nibble slots for the decode pass
// (for each run of c = min(16, block / 2) packed bytes starting at byte j,
// the c values their low nibbles meet, a[2(j + i)], then the c their high
// nibbles meet, a[2(j + i) + 1]), or in k order for the prefill.
enum class Int8Order { kNibbleSlots, kLinear };

// Quantizes one block of A (block values, `valid` of them read, the rest
// taken as 0) to int8 with scale max|a| / 127, rounding to nearest even.
// Returns the scale (a ~ q * scale) and sets *sum to the sum of the q; a
// block holding a NaN or an infinity gets scale NaN (its products are NaN).
float QuantizeBlockS8(const float* a, int64_t valid, int64_t block, Int8Order order, int8_t* q, int32_t* sum);

// A's rows quantized, block by block, with what the zero-point term needs.
struct Int8BlockRows {
  const int8_t* values;     // row r's block b at values + (r * blocks + b) * block
  const float* scale;       // r * blocks + b
  const float* scaled_sum;  // r * blocks + b: scale * sum of the block's q
  const float* sum;         // r * blocks + b: the sum of the block's q
};

// 4-bit weight columns (rows of MatMulNBits' B), each `blocks` blocks of
// `block` values (a power of two >= 16) packed two a byte, low nibble first.
struct U4Columns {
  const uint8_t* packed;  // column n at packed + n * blocks * block / 2
  const float* scale;     // n * blocks + b
  const float* zero;      // n * blocks + b; null: uniform_zero for every block
  float uniform_zero;
  int64_t count, blocks, block;
};

// For rows r < m (1..4) of A and columns n < w.count:
//   y[r * ldy + n] = sum over blocks b of scale[n, b] * a.scale[r, b] * sum_k (q_k - zero[n, b]) * a_k.
// The q * a sums are exact int32.
void ColumnsDotU4S8(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy);
// Whether the running target has ColumnsDotU4S8's byte pairs (x86 from
// SSSE3); elsewhere it runs scalar code, slower than the float pass.
bool Int8DecodePays();

// The same for any m with A in Int8Order::kLinear (a prefill): 8 columns at
// a time unpacked into quads, 4 rows x 8 columns a register tile
// (simd_nbits_int8_prefill.cc). Int8PrefillPays: the running target has
// the vector kernel (AVX2 and up); elsewhere this runs scalar code.
void PrefillDotU4S8(const U4Columns& w, const Int8BlockRows& a, int64_t m, float* y, int64_t ldy);
bool Int8PrefillPays();

}  // namespace tessera::cpu
