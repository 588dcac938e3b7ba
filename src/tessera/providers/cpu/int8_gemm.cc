// The kernels of int8_gemm.h, compiled once per SIMD target by Highway.
//
// The loop order is sgemm.cc's: a block of up to kMaxKcPairs k-pairs, A packed kMc
// rows at a time into panels of kMr rows (one int16 pair a row and step,
// broadcast), B's 16-column panels read as packed, an kMr x 16 tile of C in
// int32 registers across the block.
#include "tessera/providers/cpu/int8_gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/cpu/int8_gemm_maddubs.h"
#include "tessera/providers/cpu/int8_gemm_quads.h"
#include "tessera/providers/cpu/int8_pair_word.h"
#include "tessera/providers/cpu/simd_int32.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/int8_gemm.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"

#ifndef TESSERA_INT8_GEMM_SHARED
#define TESSERA_INT8_GEMM_SHARED
namespace tessera::cpu::int8_gemm_detail {

// k-pairs a block at most (768 values of K: a 16-column panel of B, 24 KiB,
// stays in L1 over a tile); K is cut into equal blocks, as a short tail
// block would cost a whole pass through C.
constexpr int64_t kMaxKcPairs = 384;
constexpr int64_t kPanel = PackedInt8B::kPanel;

inline int32_t ByteAt(bool is_signed, const void* base, int64_t i) {
  return is_signed ? static_cast<const int8_t*>(base)[i] : static_cast<const uint8_t*>(base)[i];
}

// Whether AVX512_VNNI CPUs pack quads for vpdpbusd (int8_gemm.h
// SetInt8GemmVnniForTest): -1 follows the CPU, 0 keeps pairs.
inline int& VnniChoice() {
  static int choice = -1;
  return choice;
}
// The same for the byte-quad form (SetInt8GemmByteQuadsForTest).
inline int& ByteQuadsChoice() {
  static int choice = -1;
  return choice;
}

}  // namespace tessera::cpu::int8_gemm_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::int8_gemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_HAVE_SCALABLE
using D32 = hn::FixedTag<int32_t, 4>;
#else
using D32 = hn::ScalableTag<int32_t>;
#endif
constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D32()));
constexpr int64_t kVecs = kPanel / kLanes;  // vectors per tile row
// Rows per tile: the accumulators (kMr * kVecs), kVecs vectors of B and one
// broadcast fit the register file (16 vectors on AVX2 and SSE4).
constexpr int64_t kMr = kVecs == 1 ? 12 : kVecs == 2 ? 6 : kVecs == 4 ? 2 : 1;
constexpr int64_t kMc = kMr * 16;

// op(A) rows [i0, i0 + mc), pairs [q0, q0 + qc), less their zero points, as
// panels of kMr rows: [panel][pair][kMr] words, zero-padded.
void PackA(int64_t mc, int64_t i0, int64_t q0, int64_t qc, int64_t k, bool a_signed, const void* a, int64_t lda,
           ZeroPoints zero, int32_t* out) {
  for (int64_t ip = 0; ip < mc; ip += kMr) {
    int32_t* panel = out + (ip / kMr) * qc * kMr;
    for (int64_t r = 0; r < kMr; ++r) {
      const int64_t i = i0 + ip + r;
      if (ip + r >= mc) {
        for (int64_t q = 0; q < qc; ++q) panel[q * kMr + r] = 0;
        continue;
      }
      const int32_t z = zero.At(i);
      const int64_t row = i * lda;
      for (int64_t q = 0; q < qc; ++q) {
        const int64_t kk = 2 * (q0 + q);
        const int32_t lo = ByteAt(a_signed, a, row + kk) - z;
        const int32_t hi = kk + 1 < k ? ByteAt(a_signed, a, row + kk + 1) - z : 0;
        panel[q * kMr + r] = PairWord(lo, hi);
      }
    }
  }
}

#if HWY_TARGET == HWY_AVX2
// The AVX2 tile in named registers. The generic loop below runs at half
// the multiply-add rate on AVX2 (measured on Zen 3, 90 against 160
// GOPS with data in L1): with 16 registers and accumulators in arrays,
// GCC 12 hoists a step's broadcasts ahead of the adds and spills
// accumulators every step, and an integer broadcast from memory takes a
// vector pipe that a float one (a load only) leaves to the multiply-adds.
// The empty asm keeps each row's pair in its registers, in order.
#define TESSERA_INT8_ROW(r)                                                        \
  if constexpr (kRows > (r)) {                                                     \
    float bits;                                                                    \
    std::memcpy(&bits, ap + (r), sizeof(bits));                                    \
    const __m256i a = _mm256_castps_si256(_mm256_set1_ps(bits));                   \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(a, b0));                 \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(a, b1));                 \
    __asm__("" : "+x"(c##r##0), "+x"(c##r##1));                                    \
  }
#define TESSERA_INT8_STORE(r)                                                      \
  if constexpr (kRows > (r)) {                                                     \
    StoreRowAvx2(c##r##0, c##r##1, accumulate, cols, c + (r) * ldc, tile + (r) * kPanel); \
  }

// One row of the tile: straight to C when whole (added to the earlier
// k-blocks' sums, wrapping), else into `tile` for the partial copy.
HWY_INLINE void StoreRowAvx2(__m256i lo, __m256i hi, bool accumulate, int64_t cols, int32_t* out, int32_t* tile) {
  if (cols == kPanel) {
    auto* o = reinterpret_cast<__m256i*>(out);
    if (accumulate) {
      lo = _mm256_add_epi32(lo, _mm256_loadu_si256(o));
      hi = _mm256_add_epi32(hi, _mm256_loadu_si256(o + 1));
    }
    _mm256_storeu_si256(o, lo);
    _mm256_storeu_si256(o + 1, hi);
    return;
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile + 8), hi);
}

template <int64_t kRows>
HWY_INLINE void TileAvx2(int64_t qc, const int32_t* HWY_RESTRICT ap, const int32_t* HWY_RESTRICT bp, bool accumulate,
                         int32_t* c, int64_t ldc, int64_t cols, int32_t* tile) {
  static_assert(kRows <= 6 && kPanel == 16, "six rows of two vectors fill the 16 AVX2 registers");
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t q = 0; q < qc; ++q, ap += kMr, bp += kPanel) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bp + 8));
    TESSERA_INT8_ROW(0) TESSERA_INT8_ROW(1) TESSERA_INT8_ROW(2)
    TESSERA_INT8_ROW(3) TESSERA_INT8_ROW(4) TESSERA_INT8_ROW(5)
  }
  TESSERA_INT8_STORE(0) TESSERA_INT8_STORE(1) TESSERA_INT8_STORE(2)
  TESSERA_INT8_STORE(3) TESSERA_INT8_STORE(4) TESSERA_INT8_STORE(5)
}
#undef TESSERA_INT8_ROW
#undef TESSERA_INT8_STORE
#endif

// kRows x cols of C (+)= one A panel times one B panel over qc pairs.
template <int64_t kRows>
HWY_NOINLINE void KernelRows(int64_t qc, const int32_t* HWY_RESTRICT ap, const int32_t* HWY_RESTRICT bp,
                             bool accumulate, int32_t* c, int64_t ldc, int64_t cols) {
  HWY_ALIGN int32_t tile[kRows * kPanel];
#if HWY_TARGET == HWY_AVX2
  TileAvx2<kRows>(qc, ap, bp, accumulate, c, ldc, cols, tile);
  if (cols == kPanel) return;
#elif HWY_TARGET == HWY_SCALAR
  // One-lane vectors hold no int16 pair: plain integer arithmetic.
  for (int64_t t = 0; t < kRows * kPanel; ++t) tile[t] = 0;
  for (int64_t q = 0; q < qc; ++q, ap += kMr, bp += kPanel)
    for (int64_t i = 0; i < kRows; ++i) {
      const int32_t a_lo = static_cast<int16_t>(ap[i] & 0xffff), a_hi = static_cast<int16_t>(ap[i] >> 16);
      for (int64_t j = 0; j < kPanel; ++j) {
        const int32_t b_lo = static_cast<int16_t>(bp[j] & 0xffff), b_hi = static_cast<int16_t>(bp[j] >> 16);
        tile[i * kPanel + j] = static_cast<int32_t>(static_cast<uint32_t>(tile[i * kPanel + j]) +
                                                    static_cast<uint32_t>(a_lo * b_lo + a_hi * b_hi));
      }
    }
#else
  const D32 d32;
  const hn::Repartition<int16_t, D32> d16;
  using V = hn::Vec<D32>;
  V acc[kRows][kVecs];
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t v = 0; v < kVecs; ++v) acc[i][v] = hn::Zero(d32);
  V unused = hn::Zero(d32);
#pragma GCC unroll 2
  for (int64_t q = 0; q < qc; ++q) {
    V b[kVecs];
    for (int64_t v = 0; v < kVecs; ++v) b[v] = hn::LoadU(d32, bp + v * kLanes);
#pragma GCC unroll 12
    for (int64_t i = 0; i < kRows; ++i) {
      const auto a = hn::BitCast(d16, hn::Set(d32, ap[i]));
      for (int64_t v = 0; v < kVecs; ++v)
        acc[i][v] = hn::ReorderWidenMulAccumulate(d32, a, hn::BitCast(d16, b[v]), acc[i][v], unused);
    }
    ap += kMr;
    bp += kPanel;
  }
  // A whole panel goes straight from the registers (added to the earlier
  // k-blocks' sums, wrapping, as the vector adds do); a partial one through
  // the tile below.
  if (cols == kPanel) {
    for (int64_t i = 0; i < kRows; ++i)
      for (int64_t v = 0; v < kVecs; ++v) {
        int32_t* out = c + i * ldc + v * kLanes;
        hn::StoreU(accumulate ? hn::Add(acc[i][v], hn::LoadU(d32, out)) : acc[i][v], d32, out);
      }
    return;
  }
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t v = 0; v < kVecs; ++v) hn::Store(acc[i][v], d32, tile + i * kPanel + v * kLanes);
#endif
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int32_t& out = c[i * ldc + j];
      // Wrapping adds, as the vector lanes do.
      out = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(out) + static_cast<uint32_t>(tile[i * kPanel + j]))
                       : tile[i * kPanel + j];
    }
}

using KernelFn = void (*)(int64_t, const int32_t*, const int32_t*, bool, int32_t*, int64_t, int64_t);

template <size_t... kIs>
constexpr std::array<KernelFn, sizeof...(kIs)> KernelTable(std::index_sequence<kIs...>) {
  return {&KernelRows<static_cast<int64_t>(kIs) + 1>...};
}

// The byte-quad form is packed where AVX2 is the best target, and its
// vpmaddubsw kernel runs under any target from AVX2 up.
#if HWY_ARCH_X86
bool BestIsAvx2() { return HWY_TARGET == HWY_AVX2; }
bool RunsAvx2() { return HWY_TARGET <= HWY_AVX2; }
#else
bool BestIsAvx2() { return false; }
bool RunsAvx2() { return false; }
#endif

#if HWY_TARGET == HWY_AVX3
bool HasVnni() {
  static const bool has = __builtin_cpu_supports("avx512vnni");
  return has;
}
#else
bool HasVnni() { return false; }
#endif

// The tile height this target's kernels take (PackedInt8A packs to it).
int64_t PairTileRows() { return kMr; }

// All of A as pair panels of kMr rows: [panel][pair][kMr] words.
void PackWholeAPairs(bool a_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints zero,
                     std::vector<int32_t>& words) {
  const int64_t pairs = (k + 1) / 2, panels = (m + kMr - 1) / kMr;
  words.assign(static_cast<size_t>(panels * kMr * pairs), 0);
  PackA(m, 0, 0, pairs, k, a_signed, a, lda, zero, words.data());
}

// `a_pairs`, when not null, is A packed whole by PackWholeAPairs under this
// target (from its first row on): the tiles read it and A is not repacked.
void Gemm(int64_t m, int64_t j_begin, int64_t j_end, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
          const PackedInt8B& b, int32_t* c, int64_t ldc, const int32_t* a_pairs) {
  static constexpr std::array<KernelFn, kMr> kByRows = KernelTable(std::make_index_sequence<kMr>());
  thread_local hwy::AlignedFreeUniquePtr<int32_t[]> a_buf;
  if (!a_buf && a_pairs == nullptr) a_buf = hwy::AllocateAligned<int32_t>(static_cast<size_t>(kMc * kMaxKcPairs));
  const int64_t k = b.k(), pairs = (k + 1) / 2;
  const int64_t blocks = std::max<int64_t>(1, (pairs + kMaxKcPairs - 1) / kMaxKcPairs), kc = (pairs + blocks - 1) / blocks;
  for (int64_t q0 = 0; q0 < pairs; q0 += kc) {
    const int64_t qc = std::min(kc, pairs - q0);
    for (int64_t i0 = 0; i0 < m; i0 += kMc) {
      const int64_t mc = std::min(kMc, m - i0);
      if (a_pairs == nullptr) PackA(mc, i0, q0, qc, k, a_signed, a, lda, a_zero, a_buf.get());
      for (int64_t j0 = j_begin; j0 < j_end; j0 += kPanel) {
        const int32_t* bp = b.Panel(j0 / kPanel, q0);
        for (int64_t ir = 0; ir < mc; ir += kMr) {
          const int64_t rows = std::min(kMr, mc - ir);
          const int32_t* ap = a_pairs != nullptr ? a_pairs + ((i0 + ir) / kMr * pairs + q0) * kMr
                                                 : a_buf.get() + (ir / kMr) * qc * kMr;
          kByRows[static_cast<size_t>(rows - 1)](qc, ap, bp, q0 > 0, c + (i0 + ir) * ldc + j0, ldc,
                                                 std::min(kPanel, j_end - j0));
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::int8_gemm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
namespace int8_gemm_detail {
HWY_EXPORT(Gemm);
HWY_EXPORT(HasVnni);
HWY_EXPORT(PairTileRows);
HWY_EXPORT(BestIsAvx2);
HWY_EXPORT(RunsAvx2);
HWY_EXPORT(PackWholeAPairs);
}  // namespace int8_gemm_detail
using namespace int8_gemm_detail;  // NOLINT(google-build-using-namespace): see simd_elementwise.cc

PackedInt8A::PackedInt8A(bool is_signed, int64_t m, int64_t k, const void* a, int64_t lda, ZeroPoints zero)
    : m_(m), k_(k), steps_((k + 3) / 4) {
  if (m <= 0 || k <= 0) return;
  if (Int8GemmUsesVnni()) {
    int8_quads::PackWholeA(is_signed, m, k, a, lda, zero, words_, za_, centered_);
  } else if (Int8GemmUsesByteQuads()) {
    auto packed = std::make_shared<int8_maddubs::PackedA>();
    int8_maddubs::PackA(is_signed, m, k, a, lda, zero, *packed);
    byte_quads_ = std::move(packed);
  } else {
    pair_rows_ = HWY_DYNAMIC_DISPATCH(PairTileRows)();
    HWY_DYNAMIC_DISPATCH(PackWholeAPairs)(is_signed, m, k, a, lda, zero, pair_words_);
  }
}

PackedInt8A PackedInt8A::FromTransposed(bool is_signed, int64_t k, int64_t m, const void* b, int64_t ldb,
                                        ZeroPoints zero) {
  if (!Int8GemmUsesByteQuads()) throw std::logic_error("int8 GEMM: a transposed A is packed only as byte quads");
  PackedInt8A out;
  out.m_ = m, out.k_ = k, out.steps_ = (k + 3) / 4;
  if (m <= 0 || k <= 0) return out;
  auto packed = std::make_shared<int8_maddubs::PackedA>();
  int8_maddubs::PackA(is_signed, m, k, b, 1, zero, *packed, ldb);
  out.byte_quads_ = std::move(packed);
  return out;
}

void Int8GemmS32(int64_t m, int64_t j_begin, int64_t j_end, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                 const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant, const PackedInt8A* packed_a,
                 int64_t packed_row) {
  if (m <= 0 || j_end <= j_begin) return;
  if (b.k() == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc + j_begin, c + i * ldc + j_end, 0);
  } else if (b.quads()) {
    // Packed under a VNNI target; a test may run it under another. Its
    // kernels requantize in their store.
    const bool use_packed = packed_a != nullptr && !packed_a->empty() && packed_a->k() == b.k();
    return int8_quads::Gemm(HWY_DYNAMIC_DISPATCH(HasVnni)(), m, j_begin, j_end, a_signed, a, lda, a_zero, b, c, ldc,
                            requant, use_packed ? packed_a->Rows(packed_row) : PackedInt8A::View{});
  } else if (b.byte_quads()) {
    // A packed at creation, or now (a product whose A was not packed, or
    // rows that do not start a packed panel).
    const int8_maddubs::PackedA* packed = packed_a != nullptr ? packed_a->byte_quads() : nullptr;
    int64_t row0 = packed_row;
    if (packed == nullptr || packed->k != b.k() || packed_row % int8_maddubs::kRows != 0) {
      thread_local int8_maddubs::PackedA own;
      int8_maddubs::PackA(a_signed, m, b.k(), a, lda, a_zero, own);
      packed = &own;
      row0 = 0;
    }
    if (!b.has_column_sums() && !packed->za_all_zero)
      throw std::logic_error("int8 GEMM: B was packed without column sums for an A with zero points");
    // Its kernels requantize in their store.
    return int8_maddubs::Gemm(HWY_DYNAMIC_DISPATCH(RunsAvx2)(), m, j_begin, j_end, *packed, row0, b, c, ldc, requant);
  } else {
    // A packed at creation when it was packed for the tile height of the
    // target running now (a test may switch targets in between).
    const int32_t* a_pairs = nullptr;
    if (packed_a != nullptr && !packed_a->pair_words().empty() && packed_a->k() == b.k()) {
      const int64_t rows = packed_a->pair_rows();
      if (rows == HWY_DYNAMIC_DISPATCH(PairTileRows)() && packed_row % rows == 0)
        a_pairs = packed_a->pair_words().data() + packed_row / rows * rows * ((b.k() + 1) / 2);
    }
    HWY_DYNAMIC_DISPATCH(Gemm)(m, j_begin, j_end, a_signed, a, lda, a_zero, b, c, ldc, a_pairs);
  }
  if (requant == nullptr) return;
  for (int64_t i = 0; i < m; ++i)
    RequantizeI32(c + i * ldc + j_begin, j_end - j_begin, requant->bias ? requant->bias[i] : 0, requant->scale[i],
                  nullptr, requant->zero, requant->out_signed, requant->out + i * requant->ldo + j_begin);
}

void Int8GemmPackingBPooled(ThreadPool* pool, int64_t m, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                            const PackedInt8A* packed_a, bool b_signed, int64_t k, int64_t n,
                            const uint8_t* const* b_rows, ZeroPoints b_zero, PackedInt8B& b, int32_t* c, int64_t ldc,
                            const Int8Requant* requant) {
  if (ThreadPool::InParallelRegion()) pool = nullptr;
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int64_t threads = pool ? std::min<int64_t>(pool->num_threads(), static_cast<int64_t>(macs / (1 << 18))) : 1;
  const int64_t panels = (n + kPanel - 1) / kPanel;
  if (packed_a == nullptr || (threads > 1 && panels < 2 * threads)) {
    b.RepackRows(b_signed, k, n, b_rows, b_zero, pool, packed_a);
    return Int8GemmS32Pooled(pool, m, a_signed, a, lda, a_zero, b, c, ldc, requant, packed_a);
  }
  b.Begin(b_signed, k, n, b_rows, b_zero, packed_a);
  // A block's packed panels stay in L2 beside A's rows; with threads,
  // about four blocks a thread, so the last ones even out.
  constexpr int64_t kBlockBytes = 128 << 10;
  int64_t per_block = std::clamp<int64_t>(kBlockBytes / std::max<int64_t>(b.panel_bytes(), 1), 1, panels);
  if (threads > 1) per_block = std::min(per_block, (panels + 4 * threads - 1) / (4 * threads));
  const int64_t blocks = (panels + per_block - 1) / per_block;
  ParallelFor(threads > 1 ? pool : nullptr, blocks, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t t = b0; t < b1; ++t) {
      const int64_t p0 = t * per_block, p1 = std::min(panels, p0 + per_block);
      b.PackPanels(p0, p1);
      Int8GemmS32(m, p0 * kPanel, std::min(n, p1 * kPanel), a_signed, a, lda, a_zero, b, c, ldc, requant, packed_a);
    }
  });
}

void TransposeInt32(const int32_t* src, int64_t rows, int64_t cols, int32_t* dst, ThreadPool* pool) {
  const bool avx2 = HWY_DYNAMIC_DISPATCH(RunsAvx2)();
  ParallelFor(pool, (rows + 7) / 8, std::max<int64_t>(1, 4096 / std::max<int64_t>(cols, 1)), [&](int64_t b0, int64_t b1) {
    int8_maddubs::TransposeRows(avx2, src, rows, cols, b0 * 8, std::min(rows, b1 * 8), dst);
  });
}

bool Int8GemmUsesVnni() { return HWY_DYNAMIC_DISPATCH(HasVnni)() && VnniChoice() != 0; }

void SetInt8GemmVnniForTest(int choice) { VnniChoice() = choice; }

bool Int8GemmUsesByteQuads() {
  const int choice = ByteQuadsChoice();
  if (choice >= 0) return choice == 1;
  return !Int8GemmUsesVnni() && HWY_DYNAMIC_DISPATCH(BestIsAvx2)();
}

void SetInt8GemmByteQuadsForTest(int choice) { ByteQuadsChoice() = choice; }

void Int8GemmS32Pooled(ThreadPool* pool, int64_t m, bool a_signed, const void* a, int64_t lda, ZeroPoints a_zero,
                       const PackedInt8B& b, int32_t* c, int64_t ldc, const Int8Requant* requant,
                       const PackedInt8A* packed_a) {
  const int64_t n = b.n();
  if (ThreadPool::InParallelRegion()) pool = nullptr;
  const double macs = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(b.k());
  const int64_t threads = pool ? std::min<int64_t>(pool->num_threads(), static_cast<int64_t>(macs / (1 << 18))) : 1;
  if (threads <= 1) return Int8GemmS32(m, 0, n, a_signed, a, lda, a_zero, b, c, ldc, requant, packed_a);
  // Columns in whole panels; rows when C is taller than wide, in whole
  // panels of a packed A. With A packed once, about four blocks a thread,
  // handed out as threads come free (a descheduled vCPU then holds up one
  // block, not half the product); otherwise one a thread, as each block
  // packs its rows of A.
  const bool by_cols = n >= m;
  const int64_t extent = by_cols ? n : m, align = by_cols ? kPanel : PackedInt8A::kRowPanel;
  const int64_t tasks = packed_a != nullptr ? 4 * threads : threads;
  const int64_t block = std::max(align, (extent / tasks + align - 1) / align * align);
  pool->ParallelFor((extent + block - 1) / block, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t t = b0; t < b1; ++t) {
      const int64_t lo = t * block, hi = std::min(extent, lo + block);
      if (by_cols) {
        Int8GemmS32(m, lo, hi, a_signed, a, lda, a_zero, b, c, ldc, requant, packed_a);
      } else {
        ZeroPoints rows = a_zero;
        if (rows.per_line && rows.values != nullptr) rows.values += lo;
        const Int8Requant part = requant ? requant->Rows(lo) : Int8Requant{};
        Int8GemmS32(hi - lo, 0, n, a_signed, static_cast<const uint8_t*>(a) + lo * lda, lda, rows, b, c + lo * ldc,
                    ldc, requant ? &part : nullptr, packed_a, lo);
      }
    }
  });
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
