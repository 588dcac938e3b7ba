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
#include "tessera/providers/cpu/sgemm.h"

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "tessera/providers/cpu/sgemm.cc"
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
constexpr int64_t kMc = kMr * (kLanes >= 16 ? 8 : 16);
constexpr int64_t kNc = kNr * 64;

// op(B)[p0:p0+kc, j0:j0+nc] as panels of kNr columns, zero-padded.
void PackB(bool tb, const float* b, int64_t ldb, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t jp = 0; jp < nc; jp += kNr) {
    const int64_t w = std::min(kNr, nc - jp);
    for (int64_t p = 0; p < kc; ++p) {
      float* dst = out + (jp / kNr) * kc * kNr + p * kNr;
      if (!tb && w == kNr) {
        std::memcpy(dst, b + (p0 + p) * ldb + j0 + jp, sizeof(float) * kNr);
        continue;
      }
      for (int64_t j = 0; j < w; ++j)
        dst[j] = tb ? b[(j0 + jp + j) * ldb + p0 + p] : b[(p0 + p) * ldb + j0 + jp + j];
      for (int64_t j = w; j < kNr; ++j) dst[j] = 0.f;
    }
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

// C tile (rows x cols valid of kMr x kNr) = acc, or += acc. No constant
// is broadcast here: the compiler would hoist it into a register the kernel
// loop needs (AVX2's 16 hold 12 accumulators, two B vectors and the A
// broadcast; one more spilled a B vector to the stack). alpha is folded into
// the packed A and beta applied to C before the products.
HWY_INLINE void StoreTile(const V (&acc)[kMr][2], bool accumulate, float* c, int64_t ldc, int64_t rows,
                          int64_t cols) {
  const D d;
  if (rows == kMr && cols == kNr) {
    for (int64_t i = 0; i < kMr; ++i) {
      float* ci = c + i * ldc;
      for (int64_t h = 0; h < 2; ++h) {
        V r = acc[i][h];
        if (accumulate) r = r + hn::LoadU(d, ci + h * kLanes);
        hn::StoreU(r, d, ci + h * kLanes);
      }
    }
    return;
  }
  HWY_ALIGN float tile[kMr * kNr];
  for (int64_t i = 0; i < kMr; ++i)
    for (int64_t h = 0; h < 2; ++h) hn::Store(acc[i][h], d, tile + i * kNr + h * kLanes);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float& out = c[i * ldc + j];
      out = accumulate ? out + tile[i * kNr + j] : tile[i * kNr + j];
    }
}

// kMr x kNr of C from one packed A panel and one packed B panel.
HWY_INLINE void Kernel(int64_t kc, const float* HWY_RESTRICT ap, const float* HWY_RESTRICT bp, bool accumulate,
                       float* c, int64_t ldc, int64_t rows, int64_t cols) {
  const D d;
  V acc[kMr][2];
  for (int64_t i = 0; i < kMr; ++i) acc[i][0] = acc[i][1] = hn::Zero(d);
#pragma GCC unroll 4
  for (int64_t p = 0; p < kc; ++p) {
    const V b0 = hn::Load(d, bp), b1 = hn::Load(d, bp + kLanes);
#pragma GCC unroll 16
    for (int64_t i = 0; i < kMr; ++i) {
      const V a = hn::Set(d, ap[i]);
      acc[i][0] = hn::MulAdd(a, b0, acc[i][0]);
      acc[i][1] = hn::MulAdd(a, b1, acc[i][1]);
    }
    ap += kMr;
    bp += kNr;
  }
  StoreTile(acc, accumulate, c, ldc, rows, cols);
}

// Packing buffers of this thread, kept between calls.
float* Scratch(hwy::AlignedFreeUniquePtr<float[]>& buf, size_t& capacity, size_t floats) {
  if (capacity < floats) {
    buf = hwy::AllocateAligned<float>(floats);
    capacity = floats;
  }
  return buf.get();
}

// C (+)= alpha op(A) op(B): accumulate adds to C, else C's old contents are
// never read.
void Sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
           const float* b, int64_t ldb, bool accumulate, float* c, int64_t ldc) {
  thread_local hwy::AlignedFreeUniquePtr<float[]> a_buf, b_buf;
  thread_local size_t a_cap = 0, b_cap = 0;
  const int64_t kc_max = std::min(kKc, k), nc_max = std::min(kNc, (n + kNr - 1) / kNr * kNr);
  float* bpack = Scratch(b_buf, b_cap, static_cast<size_t>(kc_max * nc_max));
  float* apack = Scratch(a_buf, a_cap, static_cast<size_t>(kc_max * std::min(kMc, (m + kMr - 1) / kMr * kMr)));
  for (int64_t j0 = 0; j0 < n; j0 += kNc) {
    const int64_t nc = std::min(kNc, n - j0);
    for (int64_t p0 = 0; p0 < k; p0 += kKc) {
      const int64_t kc = std::min(kKc, k - p0);
      const bool add = accumulate || p0 > 0;
      PackB(tb, b, ldb, p0, kc, j0, nc, bpack);
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t mc = std::min(kMc, m - i0);
        PackA(ta, a, lda, alpha, i0, mc, p0, kc, apack);
        for (int64_t jr = 0; jr < nc; jr += kNr)
          for (int64_t ir = 0; ir < mc; ir += kMr)
            Kernel(kc, apack + (ir / kMr) * kc * kMr, bpack + (jr / kNr) * kc * kNr, add,
                   c + (i0 + ir) * ldc + j0 + jr, ldc, std::min(kMr, mc - ir), std::min(kNr, nc - jr));
      }
    }
  }
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
namespace tessera::cpu {
namespace sgemm_detail {
HWY_EXPORT(Sgemm);
HWY_EXPORT(Blocking);
HWY_EXPORT(BeatsBlas);
}  // namespace sgemm_detail
// Dispatch names the kernels unqualified: with a single compiled target
// (aarch64 builds NEON alone) HWY_DYNAMIC_DISPATCH becomes a static call
// that puts the target's namespace in front of the name it is given.
using namespace sgemm_detail;  // NOLINT(google-build-using-namespace)

void SgemmF32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
              const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  // beta C first (never reading C when beta is 0), then the products add.
  if (beta != 1.f && (beta != 0.f || k <= 0))
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : beta * c[i * ldc + j];
  if (k <= 0) return;
  HWY_DYNAMIC_DISPATCH(Sgemm)(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta != 0.f, c, ldc);
}

bool SgemmBeatsBlas(bool trans_b, int64_t m) { return HWY_DYNAMIC_DISPATCH(BeatsBlas)(trans_b, m); }

SgemmBlocking SgemmBlockingInUse() {
  int64_t v[5];
  HWY_DYNAMIC_DISPATCH(Blocking)(v);
  return {v[0], v[1], v[2], v[3], v[4]};
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
