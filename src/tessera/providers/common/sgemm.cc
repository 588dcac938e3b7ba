// The kernels of sgemm.h, compiled once per SIMD target by Highway.
//
// GotoBLAS's loop order: a kc x nc block of op(B) is packed into panels nr
// columns wide (k-major, so one panel row is two vector loads), an mc x kc
// block of op(A) into panels mr rows tall (k-major, one broadcast per row);
// the kernel keeps an mr x nr tile of C in registers across kc steps. A
// packed B panel (kc * nr floats: 16 KiB on AVX2, 32 on AVX-512) stays in
// L1, the packed A block in L2. beta applies on the first kc block only,
// and C is never read when beta is 0 (so NaN in C's old contents cannot
// leak into the result).
#include "tessera/providers/common/sgemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/common/sgemm.cc"
#include "hwy/foreach_target.h"  // re-includes this file once per target
#include "hwy/aligned_allocator.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::sgemm_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Vectors of a width known at compile time, so panels can be laid out for
// it (scalable targets use 128 bits).
#if HWY_HAVE_SCALABLE
using D = hn::FixedTag<float, 4>;
#else
using D = hn::ScalableTag<float>;
#endif
using V = hn::Vec<D>;
constexpr int64_t kLanes = static_cast<int64_t>(hn::MaxLanes(D()));
constexpr int64_t kNr = 2 * kLanes;
// Accumulators: 2 * kMr vectors, plus two of B and one broadcast of A, in
// the register file (16 vectors on AVX2/SSE4, 32 on AVX-512 and NEON).
#if HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM
constexpr int64_t kMr = 12;
#else
constexpr int64_t kMr = 6;
#endif
constexpr int64_t kKc = 256;
constexpr int64_t kMc = kMr * (kLanes >= 16 ? 16 : 32);
constexpr int64_t kNc = kNr * 64;

// op(B)[p0:p0+kc, j0:j0+nc] as panels of kNr columns, zero-padded. Rows of
// B are read whole, one after another: walking a panel down B instead
// strides a page per row, which the hardware prefetcher does not follow
// (that order took a quarter of a 128x768x3072 product).
void PackB(bool tb, const float* b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  const int64_t full = nc / kNr * kNr;
  if (!tb) {
    for (int64_t p = 0; p < kc; ++p) {
      const float* src = b + (p0 + p) * ldb + j0;
      float* dst = out + p * kNr;
      for (int64_t jp = 0; jp < full; jp += kNr, dst += kc * kNr) std::memcpy(dst, src + jp, sizeof(float) * kNr);
      if (full < nc) {
        for (int64_t j = full; j < nc; ++j) dst[j - full] = src[j];
        for (int64_t j = nc - full; j < kNr; ++j) dst[j] = 0.f;
      }
    }
    return;
  }
  // op(B) = B^T: column j of a panel is row j0 + j of B, read along K.
  for (int64_t jp = 0; jp < nc; jp += kNr) {
    const int64_t w = std::min(kNr, nc - jp);
    float* panel = out + (jp / kNr) * kc * kNr;
    for (int64_t j = 0; j < w; ++j) {
      const float* src = b + (j0 + jp + j) * ldb + p0;
      for (int64_t p = 0; p < kc; ++p) panel[p * kNr + j] = src[p];
    }
    for (int64_t j = w; j < kNr; ++j)
      for (int64_t p = 0; p < kc; ++p) panel[p * kNr + j] = 0.f;
  }
}

// alpha * op(A)[i0:i0+mc, p0:p0+kc] as panels of kMr rows, zero-padded.
void PackA(bool ta, const float* a, int64_t lda, float alpha, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
           float* out) {
  for (int64_t ip = 0; ip < mc; ip += kMr) {
    const int64_t h = std::min(kMr, mc - ip);
    float* panel = out + (ip / kMr) * kc * kMr;
    for (int64_t p = 0; p < kc; ++p) {
      float* dst = panel + p * kMr;
      for (int64_t i = 0; i < h; ++i)
        dst[i] = alpha * (ta ? a[(p0 + p) * lda + i0 + ip + i] : a[(i0 + ip + i) * lda + p0 + p]);
      for (int64_t i = h; i < kMr; ++i) dst[i] = 0.f;
    }
  }
}

// C tile (kRows x cols valid of kRows x kNr) = acc, or += acc. No constant
// is broadcast here: the compiler would hoist it into a register the kernel
// loop needs (AVX2's 16 hold 12 accumulators, two B vectors and the A
// broadcast; one more spilled a B vector to the stack). alpha is folded into
// the packed A and beta applied to C before the products.
template <int64_t kRows>
HWY_INLINE void StoreTile(const V (&acc)[kRows][2], bool accumulate, float* c, int64_t ldc, int64_t cols) {
  const D d;
  if (cols == kNr) {
    for (int64_t i = 0; i < kRows; ++i) {
      float* ci = c + i * ldc;
      for (int64_t h = 0; h < 2; ++h) {
        V r = acc[i][h];
        if (accumulate) r = r + hn::LoadU(d, ci + h * kLanes);
        hn::StoreU(r, d, ci + h * kLanes);
      }
    }
    return;
  }
  HWY_ALIGN float tile[kRows * kNr];
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t h = 0; h < 2; ++h) hn::Store(acc[i][h], d, tile + i * kNr + h * kLanes);
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float& out = c[i * ldc + j];
      out = accumulate ? out + tile[i * kNr + j] : tile[i * kNr + j];
    }
}

// kRows x kNr of C from one packed A panel (kMr rows a step, the first kRows
// used) and one packed B panel. The row count is a template argument so an
// edge panel (M = 1, or the last rows) computes only its rows: a 1-row
// product on AVX-512 would otherwise do 12 rows' work.
template <int64_t kRows>
HWY_NOINLINE void KernelRows(int64_t kc, const float* HWY_RESTRICT ap, const float* HWY_RESTRICT bp, bool accumulate,
                             float* c, int64_t ldc, int64_t cols) {
  const D d;
  V acc[kRows][2];
  for (int64_t i = 0; i < kRows; ++i) acc[i][0] = acc[i][1] = hn::Zero(d);
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const V b0 = hn::Load(d, bp), b1 = hn::Load(d, bp + kLanes);
#pragma GCC unroll 16
    for (int64_t i = 0; i < kRows; ++i) {
      const V a = hn::Set(d, ap[i]);
      acc[i][0] = hn::MulAdd(a, b0, acc[i][0]);
      acc[i][1] = hn::MulAdd(a, b1, acc[i][1]);
    }
    ap += kMr;
    bp += kNr;
  }
  StoreTile<kRows>(acc, accumulate, c, ldc, cols);
}

using KernelFn = void (*)(int64_t, const float*, const float*, bool, float*, int64_t, int64_t);

template <size_t... kIs>
constexpr std::array<KernelFn, sizeof...(kIs)> KernelTable(std::index_sequence<kIs...>) {
  return {&KernelRows<static_cast<int64_t>(kIs) + 1>...};
}

// rows x cols of C (rows <= kMr, cols <= kNr) from one A and one B panel.
HWY_INLINE void Kernel(int64_t kc, const float* ap, const float* bp, bool accumulate, float* c, int64_t ldc,
                       int64_t rows, int64_t cols) {
  static constexpr std::array<KernelFn, kMr> kByRows = KernelTable(std::make_index_sequence<kMr>());
  kByRows[static_cast<size_t>(rows - 1)](kc, ap, bp, accumulate, c, ldc, cols);
}

// Packing buffers of this thread, kept between calls.
float* Scratch(hwy::AlignedFreeUniquePtr<float[]>& buf, size_t& capacity, size_t floats) {
  if (capacity < floats) {
    buf = hwy::AllocateAligned<float>(floats);
    capacity = floats;
  }
  return buf.get();
}

// The products of one kc-deep block of K: columns [j0, j0 + nc) of C
// (+)= alpha op(A)[:, p0:p0+kc] times `bpack`, that block of op(B) as kNr-
// column panels. op(A) is packed mc rows at a time into this thread's buffer.
void MultiplyBlock(bool ta, int64_t m, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float alpha, const float* a,
                   int64_t lda, const float* bpack, bool accumulate, float* c, int64_t ldc) {
  thread_local hwy::AlignedFreeUniquePtr<float[]> a_buf;
  thread_local size_t a_cap = 0;
  float* apack = Scratch(a_buf, a_cap, static_cast<size_t>(kKc * kMc));
  for (int64_t i0 = 0; i0 < m; i0 += kMc) {
    const int64_t mc = std::min(kMc, m - i0);
    PackA(ta, a, lda, alpha, i0, mc, p0, kc, apack);
    for (int64_t jr = 0; jr < nc; jr += kNr)
      for (int64_t ir = 0; ir < mc; ir += kMr)
        Kernel(kc, apack + (ir / kMr) * kc * kMr, bpack + jr * kc, accumulate, c + (i0 + ir) * ldc + j0 + jr, ldc,
               std::min(kMr, mc - ir), std::min(kNr, nc - jr));
  }
}

// C (+)= alpha op(A) op(B): accumulate adds to C, else C's old contents are
// never read. op(B) is packed a kc x nc block at a time.
void Sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc) {
  thread_local hwy::AlignedFreeUniquePtr<float[]> b_buf;
  thread_local size_t b_cap = 0;
  const int64_t kc_max = std::min(kKc, k), nc_max = std::min(kNc, (n + kNr - 1) / kNr * kNr);
  float* bpack = Scratch(b_buf, b_cap, static_cast<size_t>(kc_max * nc_max));
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      PackB(tb, b, ldb, p0, kc, j0, nc, bpack);
      MultiplyBlock(ta, m, p0, kc, j0, nc, alpha, a, lda, bpack, accumulate || p0 > 0, c, ldc);
    }
  }
}

// Columns [j_begin, j_end) of C (+)= alpha op(A) B, with B packed whole by
// PackWhole (j_begin a multiple of kNr): Sgemm less the copy of B.
void SgemmPacked(bool ta, int64_t m, int64_t j_begin, int64_t j_end, int64_t k, float alpha, const float* a,
                 int64_t lda, const float* packed, int64_t padded_n, bool accumulate, float* c, int64_t ldc) {
  for (int64_t j0 = j_begin; j0 < j_end; j0 += kNc) {
    const int64_t nc = std::min(kNc, j_end - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      MultiplyBlock(ta, m, p0, kc, j0, nc, alpha, a, lda, packed + p0 * padded_n + j0 * kc, accumulate || p0 > 0, c,
                    ldc);
    }
  }
}

// op(B) [k x n] into `out` (k * padded_n floats): K in blocks of kKc, each
// block all of its kNr-column panels, as SgemmPacked reads them.
void PackWhole(bool tb, const float* b, int64_t ldb, int64_t k, int64_t n, int64_t padded_n, float* out) {
  for (int64_t p0 = 0; p0 < k; p0 += kKc) PackB(tb, b, ldb, p0, std::min(kKc, k - p0), 0, n, out + p0 * padded_n);
}

// Where this target's kernel measured faster than OpenBLAS's sgemm on the
// bench suite's shapes (docs/performance.md, "Tessera's GEMM").
bool BeatsBlas(bool tb, int64_t m) {
#if HWY_TARGET <= HWY_AVX3 && HWY_ARCH_X86
  return !tb && m > 1;  // a transposed B packs with strided reads: 124 against 132 GFLOP/s
#else
  (void)tb;
  (void)m;
  return false;  // AVX2: 84-92 against OpenBLAS's 94-101 GFLOP/s; others unmeasured
#endif
}

void Blocking(int64_t* out) {
  out[0] = kMr;
  out[1] = kNr;
  out[2] = kKc;
  out[3] = kMc;
  out[4] = kNc;
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::cpu::sgemm_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <new>
#include <vector>

namespace tessera::cpu {
namespace sgemm_detail {
HWY_EXPORT(Sgemm);
HWY_EXPORT(Blocking);
HWY_EXPORT(BeatsBlas);
HWY_EXPORT(SgemmPacked);
HWY_EXPORT(PackWhole);
}  // namespace sgemm_detail
// Dispatch names the kernels unqualified: with a single compiled target
// (aarch64 builds NEON alone) HWY_DYNAMIC_DISPATCH becomes a static call
// that puts the target's namespace in front of the name it is given.
using namespace sgemm_detail;  // NOLINT(google-build-using-namespace)

namespace {

// beta C on columns [j_begin, j_end), before the products add to it (the
// kernels then accumulate when beta != 0). C is never read when beta is 0,
// so NaN in its old contents stays out; with k = 0 the result is beta C.
void ApplyBeta(int64_t m, int64_t j_begin, int64_t j_end, int64_t k, float beta, float* c, int64_t ldc) {
  if (beta == 1.f || (beta == 0.f && k > 0)) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = j_begin; j < j_end; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : beta * c[i * ldc + j];
}

}  // namespace

void SgemmF32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  ApplyBeta(m, 0, n, k, beta, c, ldc);
  if (k <= 0) return;
  HWY_DYNAMIC_DISPATCH(Sgemm)(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta != 0.f, c, ldc);
}

bool SgemmBeatsBlas(bool trans_b, int64_t m) { return HWY_DYNAMIC_DISPATCH(BeatsBlas)(trans_b, m); }

SgemmBlocking SgemmBlockingInUse() {
  int64_t v[5];
  HWY_DYNAMIC_DISPATCH(Blocking)(v);
  return {v[0], v[1], v[2], v[3], v[4]};
}

void PackedB::Free::operator()(float* p) const { hwy::FreeAlignedBytes(p, nullptr, nullptr); }

PackedB::PackedB(bool trans_b, int64_t k, int64_t n, const float* b, int64_t ldb) : k_(k), n_(n) {
  const SgemmBlocking blk = SgemmBlockingInUse();
  nr_ = blk.nr;
  kc_ = blk.kc;
  padded_n_ = (n + nr_ - 1) / nr_ * nr_;
  data_.reset(static_cast<float*>(hwy::AllocateAlignedBytes(std::max<size_t>(bytes(), 1), nullptr, nullptr)));
  if (data_ == nullptr) throw std::bad_alloc();
  if (k > 0 && n > 0) HWY_DYNAMIC_DISPATCH(PackWhole)(trans_b, b, ldb, k, n, padded_n_, data_.get());
}

void SgemmPackedF32(int64_t m, int64_t j_begin, int64_t j_end, float alpha, const float* a, int64_t lda,
                    const PackedB& b, float beta, float* c, int64_t ldc, bool trans_a) {
  if (m <= 0 || j_end <= j_begin) return;
  ApplyBeta(m, j_begin, j_end, b.k_, beta, c, ldc);
  if (b.k_ <= 0) return;
  const SgemmBlocking blk = SgemmBlockingInUse();
  if (blk.nr != b.nr_ || blk.kc != b.kc_) {
    // Dispatch picks another target than at packing (a test pinning one):
    // unpack these columns and take the unpacked path.
    const int64_t w = j_end - j_begin;
    std::vector<float> plain(static_cast<size_t>(b.k_ * w));
    for (int64_t p = 0; p < b.k_; ++p) {
      const int64_t p0 = p / b.kc_ * b.kc_, kc = std::min(b.kc_, b.k_ - p0);
      for (int64_t j = 0; j < w; ++j) {
        const int64_t col = j_begin + j;
        plain[static_cast<size_t>(p * w + j)] =
            b.data_.get()[p0 * b.padded_n_ + col / b.nr_ * kc * b.nr_ + (p - p0) * b.nr_ + col % b.nr_];
      }
    }
    HWY_DYNAMIC_DISPATCH(Sgemm)(trans_a, false, m, w, b.k_, alpha, a, lda, plain.data(), w, beta != 0.f, c + j_begin,
                                ldc);
    return;
  }
  HWY_DYNAMIC_DISPATCH(SgemmPacked)(trans_a, m, j_begin, std::min(j_end, b.n_), b.k_, alpha, a, lda, b.data_.get(),
                                    b.padded_n_, beta != 0.f, c, ldc);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
