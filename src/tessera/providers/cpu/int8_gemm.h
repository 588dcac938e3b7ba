// Exact 8-bit integer GEMM: C (int32) = sum over k of (A - a_zero)(B - b_zero)
// for int8 or uint8 A and B, the product behind MatMulInteger and
// QLinearMatMul. Both operands enter the kernel less their zero points, as
// int16 pairs, and each pair of products is summed in 32 bits (AVX2's and
// AVX-512's vpmaddwd, NEON's widening multiply-add; Highway compiles it per
// SIMD target and picks at run time). No intermediate saturates: a centered
// value lies in [-255, 255], a pair of products within +-130050, so every
// zero point and full-range weight gives the exact integer result; only the
// int32 sum itself wraps, as ONNX's int32 output does, past 33025 worst-case
// terms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera {
class ThreadPool;
}

namespace tessera::cpu {

namespace int8_maddubs {
struct PackedA;
}
class PackedInt8A;

// The zero point of an operand: one value, or one per row of A / column of B.
struct ZeroPoints {
  const int32_t* values = nullptr;  // null: all zero
  bool per_line = false;            // per row (A) or per column (B), else values[0] for all
  int32_t At(int64_t i) const { return values == nullptr ? 0 : values[per_line ? i : 0]; }
};

// B [k, n] (row-major, ldb bytes between rows; int8 when is_signed, else
// uint8), packed once into 16-column panels in one of three forms, chosen
// when it is packed:
// - pairs: B less its zero points, as int16 pairs (the exact pair
//   multiply-add, vpmaddwd, on every target);
// - quads: B as int8 (less 128 when uint8), four k-values a word, with its
//   column sums, for AVX512_VNNI's u8 x s8 vpdpbusd (twice the
//   multiply-adds of a pair instruction); the zero points are applied from
//   row and column sums after the product, still exactly;
// - byte quads: B as uint8 (plus 128 when int8) in the same layout, for
//   AVX2's vpmaddubsw against an A packed for it (int8_gemm_maddubs.h).
//   Taken when the A it will multiply was packed in that form.
class PackedInt8B {
 public:
  static constexpr int64_t kPanel = 16;
  PackedInt8B(bool is_signed, int64_t k, int64_t n, const void* b, int64_t ldb, ZeroPoints zero);
  PackedInt8B() = default;
  // Packs another B into this one's storage (a product's activations each
  // run: no allocation, and no page faults, once it has grown).
  // Packing splits over `pool` when given (null: the calling thread).
  // `a_side`, when given, is the packed A this B will multiply: B takes the
  // byte-quad form when A was packed in it.
  void Repack(bool is_signed, int64_t k, int64_t n, const void* b, int64_t ldb, ZeroPoints zero,
              ThreadPool* pool = nullptr, const PackedInt8A* a_side = nullptr);
  // The same with B's rows anywhere: rows[kk] holds row kk's n bytes (a
  // convolution's taps as slices of one padded image, say).
  void RepackRows(bool is_signed, int64_t k, int64_t n, const uint8_t* const* rows, ZeroPoints zero,
                  ThreadPool* pool = nullptr, const PackedInt8A* a_side = nullptr);
  // B given as its transpose: src holds n rows of k bytes (ld apart), the
  // activations of a product computed as C^T = W^T X^T so that constant
  // weights W take the A side. Byte-quad form only: a_side must hold byte
  // quads. Each column's quads are its row's words, copied.
  void RepackTransposed(bool is_signed, int64_t k, int64_t n, const void* src, int64_t ld, ZeroPoints zero,
                        const PackedInt8A& a_side, ThreadPool* pool = nullptr);
  // RepackRows in two steps, for a product that packs B's panels as it
  // multiplies them (Int8GemmPackingBPooled): Begin picks the form and
  // sizes the storage; PackPanels(p0, p1) packs panels [p0, p1) from the
  // rows given to Begin, which must stay alive until the last call. Other
  // threads may pack other panels at the same time.
  void Begin(bool is_signed, int64_t k, int64_t n, const uint8_t* const* rows, ZeroPoints zero,
             const PackedInt8A* a_side = nullptr);
  void PackPanels(int64_t p0, int64_t p1);
  int64_t panels() const { return (n_ + kPanel - 1) / kPanel; }
  // Bytes a packed panel takes.
  int64_t panel_bytes() const { return quads_ || byte_quads_ ? quads4_ * kPanel * 4 : pairs_ * kPanel * 4; }
  int64_t k() const { return k_; }
  int64_t n() const { return n_; }
  bool quads() const { return quads_; }
  bool byte_quads() const { return byte_quads_; }
  // Pairs: panel p, k-pairs from q on: kPanel words a pair.
  const int32_t* Panel(int64_t p, int64_t q) const { return data_.data() + (p * pairs_ + q) * kPanel; }
  // Quads and byte quads: panel p, k-quads from q on: kPanel * 4 bytes a
  // quad (uint8 values in the byte-quad form).
  const int8_t* QuadPanel(int64_t p, int64_t q) const { return quad_.data() + ((p * quads4_ + q) * kPanel) * 4; }
  int64_t quad_steps() const { return quads4_; }
  // Quads: per column, the sum over k of the stored values, and the zero
  // point in their terms.
  const int32_t* column_sums() const { return colsum_.data(); }
  // False when B was packed for a byte-quad A whose zero points are all 0
  // in the stored terms (symmetric int8 weights): the sums were skipped
  // and read as 0, and only such an A may multiply it.
  bool has_column_sums() const { return column_sums_; }
  const int32_t* column_zeros() const { return zero_.data(); }

 private:
  int64_t k_ = 0, n_ = 0, pairs_ = 0, quads4_ = 0;
  bool quads_ = false, byte_quads_ = false, column_sums_ = true;
  // Between Begin and the last PackPanels: the rows being packed.
  bool is_signed_ = false;
  const uint8_t* const* rows_ = nullptr;
  std::vector<int16_t> pair_zero_;  // the pair form's column zero points, padded to whole panels
  std::vector<int32_t> data_;
  std::vector<int8_t> quad_;
  std::vector<int32_t> colsum_, zero_;
};

// A [m, k] packed once (constant weights on the A side, as the
// convolutions have them), so a product need not repack it each run:
// - where products pack quads (Int8GemmUsesVnni): rows in panels of
//   kRowPanel with their zero-point terms, for the quad kernel;
// - where the best target is AVX2 (Int8GemmUsesByteQuads): int8 quads for
//   vpmaddubsw, with saturating pairs split (int8_gemm_maddubs.h);
// - otherwise: rows less their zero points as int16 pairs, in panels of
//   the running target's tile height (pair_rows), for the pair kernel.
class PackedInt8A {
 public:
  static constexpr int64_t kRowPanel = 12;
  PackedInt8A() = default;
  PackedInt8A(bool is_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints zero);
  // A given as B^T, B [k, m] row-major (ldb bytes between rows) read in
  // place: the transposed product's constant weights. Byte-quad form only
  // (Int8GemmUsesByteQuads).
  static PackedInt8A FromTransposed(bool is_signed, int64_t k, int64_t m, const void* b, int64_t ldb,
                                    ZeroPoints zero);
  bool empty() const { return words_.empty(); }  // no quad form
  // The pair form: [panel][pair][pair_rows] words, or empty.
  const std::vector<int32_t>& pair_words() const { return pair_words_; }
  int64_t pair_rows() const { return pair_rows_; }
  // The byte-quad form, or null.
  const int8_maddubs::PackedA* byte_quads() const { return byte_quads_.get(); }
  int64_t m() const { return m_; }
  int64_t k() const { return k_; }
  // Rows from `row` on (a multiple of kRowPanel).
  struct View {
    const uint32_t* words = nullptr;     // [panel][quad step][kRowPanel]
    const uint32_t* za = nullptr;        // per row
    const uint32_t* centered = nullptr;  // per row
    int64_t steps = 0;
  };
  View Rows(int64_t row) const {
    return {words_.data() + row * steps_, za_.data() + row, centered_.data() + row, steps_};
  }

 private:
  int64_t m_ = 0, k_ = 0, steps_ = 0, pair_rows_ = 0;
  std::vector<uint32_t> words_, za_, centered_;
  std::vector<int32_t> pair_words_;
  std::shared_ptr<const int8_maddubs::PackedA> byte_quads_;
};

// Requantization of the product's rows, QLinearConv's last step:
// out[i][j] = saturate(round((C[i][j] + bias[i]) * scale[i]) + zero) as
// int8 (out_signed) or uint8, rounding half to even, exactly as
// RequantizeI32 (simd_int32.h) does. With the VNNI kernel it happens in
// the kernel's store, and C is not written when K fits one k-block.
struct Int8Requant {
  const int32_t* bias = nullptr;  // per row of C; null: none
  const double* scale = nullptr;  // per row of C
  int32_t zero = 0;
  bool out_signed = false;
  uint8_t* out = nullptr;  // bytes, ldo between rows
  int64_t ldo = 0;
  // The same for rows from `row` on.
  Int8Requant Rows(int64_t row) const {
    Int8Requant r = *this;
    if (r.bias != nullptr) r.bias += row;
    r.scale += row;
    r.out += row * ldo;
    return r;
  }
};

// Columns [j_begin, j_end) of C [m, n] (ldc) from A [m, k] (lda bytes
// between rows; int8 when a_signed, else uint8) and packed B, on the calling
// thread. j_begin is a multiple of PackedInt8B::kPanel. With `requant`, the
// result is its requantized bytes, and C is scratch (it may go unwritten).
// `packed_a`, when given and not empty, is A packed (the same values as
// a): quad products read it instead.
void Int8GemmS32(int64_t m, int64_t j_begin, int64_t j_end, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                 const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant = nullptr,
                 const PackedInt8A* packed_a = nullptr, int64_t packed_row = 0);

// All of C, split over `pool` (columns in whole panels, or rows for tall
// outputs); on the calling thread when pool is null or the product small.
void Int8GemmS32Pooled(ThreadPool* pool, int64_t m, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                       const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant = nullptr,
                       const PackedInt8A* packed_a = nullptr);

// All of C for a B packed on this call (a convolution's image): B's
// panels are packed a block at a time, each by the thread that then
// multiplies it while the block is still in its cache, and the blocks are
// handed out over `pool` as threads come free (a descheduled vCPU holds up
// one block, not half the product). `packed_a` is A packed once (the
// blocks would each pack it otherwise: without it, and for tall outputs
// with too few panels to share, B is packed whole first and the product
// split as Int8GemmS32Pooled splits it).
void Int8GemmPackingBPooled(ThreadPool* pool, int64_t m, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                            const PackedInt8A* packed_a, bool b_signed, int64_t k, int64_t n,
                            const uint8_t* const* b_rows, ZeroPoints b_zero, PackedInt8B& b, int32_t* c, int64_t ldc,
                            const Int8Requant* requant = nullptr);

// dst [cols, rows] = src [rows, cols] transposed, split over `pool`.
void TransposeInt32(const int32_t* src, int64_t rows, int64_t cols, int32_t* dst, ThreadPool* pool);

// Whether products packed now use AVX512_VNNI (an AVX-512 CPU that has it,
// under a cap that allows AVX-512): quads with vpdpbusd by default.
bool Int8GemmUsesVnni();
// Tests: 0 packs pairs (vpmaddwd) on every CPU; -1 (the default) packs
// quads for vpdpbusd where the CPU has AVX512_VNNI.
void SetInt8GemmVnniForTest(int choice);
// Whether constant A packed now takes the byte-quad form: where the best
// target is AVX2 and there is no VNNI.
bool Int8GemmUsesByteQuads();
// Tests: 0 never packs byte quads, 1 packs them on every target (run by
// a portable loop below AVX2), -1 (the default) follows the CPU.
void SetInt8GemmByteQuadsForTest(int choice);

}  // namespace tessera::cpu
