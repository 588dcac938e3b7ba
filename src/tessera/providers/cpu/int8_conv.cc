#include "tessera/providers/cpu/int8_conv.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/simd_int32.h"

namespace tessera::cpu {

Int8ConvWeights::Int8ConvWeights(bool is_signed, int64_t m, int64_t per_group_k, const void* w,
                                 std::vector<int32_t> zero, int64_t packed_groups)
    : is_signed_(is_signed),
      m_(m),
      k_(per_group_k),
      bytes_(static_cast<const uint8_t*>(w), static_cast<const uint8_t*>(w) + m * per_group_k),
      zero_(zero.empty() ? std::vector<int32_t>{0} : std::move(zero)) {
  // Depthwise weights (one channel a group) take the direct kernel.
  if (packed_groups <= 0 || m / packed_groups < 2) return;
  const int64_t mg = m / packed_groups;
  for (int64_t g = 0; g < packed_groups; ++g) {
    ZeroPoints rows = this->zero();
    if (rows.per_line) rows.values += g * mg;
    packed_.emplace_back(is_signed_, mg, k_, bytes_.data() + g * mg * k_, k_, rows);
  }
}

namespace {

// The patches of one image's group of channels as columns: row
// (channel, ky, kx) holds that tap over every output pixel, or the zero
// point's byte where the tap falls in the padding.
void Im2Col(const Conv2DShape& s, const uint8_t* plane, int64_t channels, uint8_t pad, uint8_t* cols, ThreadPool* pool) {
  const int64_t pixels = s.oh * s.ow;
  ParallelFor(pool, channels * s.kh * s.kw, 4, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t ch = r / (s.kh * s.kw), ky = (r / s.kw) % s.kh, kx = r % s.kw;
      uint8_t* out = cols + r * pixels;
      const uint8_t* in = plane + ch * s.h * s.w;
      // Output columns whose tap lies inside the input: [ox_lo, ox_hi).
      const int64_t off = kx * s.dil_w - s.pad_l;
      int64_t ox_lo = off >= 0 ? 0 : (-off + s.stride_w - 1) / s.stride_w;
      int64_t ox_hi = s.w - off <= 0 ? 0 : std::min(s.ow, (s.w - off + s.stride_w - 1) / s.stride_w);
      ox_lo = std::min(ox_lo, ox_hi);
      for (int64_t oy = 0; oy < s.oh; ++oy, out += s.ow) {
        const int64_t iy = oy * s.stride_h - s.pad_t + ky * s.dil_h;
        if (iy < 0 || iy >= s.h) {
          std::memset(out, pad, static_cast<size_t>(s.ow));
          continue;
        }
        std::memset(out, pad, static_cast<size_t>(ox_lo));
        const uint8_t* row = in + iy * s.w + off;
        if (s.stride_w == 1) {
          std::memcpy(out + ox_lo, row + ox_lo, static_cast<size_t>(ox_hi - ox_lo));
        } else {
          for (int64_t ox = ox_lo; ox < ox_hi; ++ox) out[ox] = row[ox * s.stride_w];
        }
        std::memset(out + ox_hi, pad, static_cast<size_t>(s.ow - ox_hi));
      }
    }
  });
}

// One image's group of channels with its padding, split by stride phase:
// padded row r, column c (the input at (pad_t, pad_l), the zero point's
// byte around it) goes to plane (ch, r % st, c % st) of hq x wq bytes, at
// (r / st, c / st). At stride 1 that is the padded image itself.
void PadPhases(const Conv2DShape& s, const uint8_t* plane, int64_t channels, int64_t st, int64_t hp, int64_t wp,
               int64_t hq, int64_t wq, uint8_t pad, uint8_t* out, ThreadPool* pool) {
  ParallelFor(pool, channels, 4, [&](int64_t c0, int64_t c1) {
    for (int64_t ch = c0; ch < c1; ++ch) {
      uint8_t* dst = out + ch * st * st * hq * wq;
      const uint8_t* src = plane + ch * s.h * s.w;
      // Input columns [0, x1) land at padded columns [pad_l, x1 + pad_l).
      const int64_t x1 = std::max<int64_t>(0, std::min(s.w, wp - s.pad_l));
      if (st > 1) std::memset(dst, pad, static_cast<size_t>(st * st * hq * wq));  // phase planes' spare cells too
      for (int64_t r = 0; r < hp; ++r) {
        const int64_t iy = r - s.pad_t;
        const bool inside = iy >= 0 && iy < s.h && x1 > 0;
        if (st == 1) {
          uint8_t* row = dst + r * wq;
          if (!inside) {
            std::memset(row, pad, static_cast<size_t>(wp));
            continue;
          }
          std::memset(row, pad, static_cast<size_t>(s.pad_l));
          std::memcpy(row + s.pad_l, src + iy * s.w, static_cast<size_t>(x1));
          std::memset(row + x1 + s.pad_l, pad, static_cast<size_t>(wp - x1 - s.pad_l));
          continue;
        }
        if (!inside) continue;  // already the pad byte
        uint8_t* rows = dst + ((r % st) * st * hq + r / st) * wq;  // phase (r % st, 0), row r / st
        for (int64_t pc = 0; pc < st; ++pc) {
          // Input columns ix with (ix + pad_l) % st == pc, from the first.
          const int64_t first = ((pc - s.pad_l) % st + st) % st;
          uint8_t* out_row = rows + pc * hq * wq + (first + s.pad_l) / st;
          const uint8_t* in_row = src + iy * s.w;
          for (int64_t ix = first, j = 0; ix < x1; ix += st, ++j) out_row[j] = in_row[ix];
        }
      }
    }
  });
}

// A depthwise convolution (one input and one output channel a group): per
// plane, the centered input with its padding as zeros, split into
// stride_w column phases so each tap is a contiguous row
// (DepthwisePlaneF32, or in int32 for kernels too large for float to stay
// exact), then requantized while the plane is in cache.
template <typename A>
void DepthwiseAs(ThreadPool* pool, const Conv2DShape& s, bool x_signed, const uint8_t* x, int32_t x_zero,
                 const Int8ConvWeights& w, int32_t* y, const Int8Requant* requant) {
  const int64_t taps = s.kh * s.kw, pixels = s.oh * s.ow;
  const ZeroPoints wz = w.zero();
  // The padded input's extent the windows reach.
  const int64_t rows = (s.oh - 1) * s.stride_h + (s.kh - 1) * s.dil_h + 1;
  const int64_t cols = (s.ow - 1) * s.stride_w + (s.kw - 1) * s.dil_w + 1;
  const int64_t phase_w = (cols + s.stride_w - 1) / s.stride_w + 64;
  ParallelFor(pool, s.n * s.c, 1, [&](int64_t p0, int64_t p1) {
    std::vector<A> wc(static_cast<size_t>(taps));
    // Kept by each thread between convolutions: the windows read only what
    // PhasePlanes writes, and the slack past a row (read, then dropped, by
    // the last vector) holds zeros or earlier planes' whole numbers, never
    // a NaN or a denormal.
    thread_local std::vector<A> phases;
    if (phases.size() < static_cast<size_t>(s.stride_w * rows * phase_w))
      phases.resize(static_cast<size_t>(s.stride_w * rows * phase_w), A{0});
    for (int64_t plane = p0; plane < p1; ++plane) {
      const int64_t ch = plane % s.c;
      for (int64_t t = 0; t < taps; ++t) {
        const uint8_t b = w.bytes()[ch * taps + t];
        wc[static_cast<size_t>(t)] =
            static_cast<A>((w.is_signed() ? int32_t{static_cast<int8_t>(b)} : int32_t{b}) - wz.At(ch));
      }
      const uint8_t* in = x + plane * s.h * s.w;
      int32_t* out = y + plane * pixels;
      // Every value the windows read is written: the input centered, the
      // padding zero.
      if constexpr (std::is_same_v<A, float>) {
        PhasePlanesF32(in, s.h, s.w, x_signed, x_zero, s.pad_t, s.pad_l, rows, cols, s.stride_w, phase_w,
                       phases.data());
        // Requantized in the store where it fuses: no int32 plane.
        DepthwiseRequant fused;
        if (requant != nullptr) {
          fused = {requant->bias ? requant->bias[ch] : 0, requant->scale[ch], requant->zero, requant->out_signed,
                   requant->out + plane * pixels};
          if (DepthwiseRequantFuses(fused, taps)) {
            DepthwisePlaneF32(phases.data(), rows, phase_w, s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.kh, s.kw,
                              wc.data(), s.oh, s.ow, out, &fused);
            continue;
          }
        }
        DepthwisePlaneF32(phases.data(), rows, phase_w, s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.kh, s.kw,
                          wc.data(), s.oh, s.ow, out);
      } else {
        PhasePlanesI32(in, s.h, s.w, x_signed, x_zero, s.pad_t, s.pad_l, rows, cols, s.stride_w, phase_w,
                       phases.data());
        DepthwisePlaneI32(phases.data(), rows, phase_w, s.stride_h, s.stride_w, s.dil_h, s.dil_w, s.kh, s.kw,
                          wc.data(), s.oh, s.ow, out);
      }
      if (requant != nullptr)  // while the plane is in cache
        RequantizeI32(out, pixels, requant->bias ? requant->bias[ch] : 0, requant->scale[ch], nullptr, requant->zero,
                      requant->out_signed, requant->out + plane * pixels);
    }
  });
}

void Depthwise(ThreadPool* pool, const Conv2DShape& s, bool x_signed, const uint8_t* x, int32_t x_zero,
               const Int8ConvWeights& w, int32_t* y, const Int8Requant* requant) {
  if (s.kh * s.kw <= kDepthwiseF32MaxTaps) return DepthwiseAs<float>(pool, s, x_signed, x, x_zero, w, y, requant);
  DepthwiseAs<int32_t>(pool, s, x_signed, x, x_zero, w, y, requant);
}

}  // namespace

void Int8Conv2D(ThreadPool* pool, const Conv2DShape& s, bool x_signed, const void* x, int32_t x_zero,
                const Int8ConvWeights& w, int32_t* y, const Int8Requant* requant) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, pixels = s.oh * s.ow, k = cg * s.kh * s.kw;
  const auto* xb = static_cast<const uint8_t*>(x);
  if (cg == 1 && mg == 1) return Depthwise(pool, s, x_signed, xb, x_zero, w, y, requant);
  // The zero point as the byte the input stores for it.
  const auto pad = static_cast<uint8_t>(static_cast<uint32_t>(x_zero) & 0xffu);
  const bool direct = s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_t == 0 && s.pad_l == 0 &&
                      s.oh == s.h && s.ow == s.w;
  // Every tap is a slice of one padded copy of the image, read in place,
  // with no patch matrix; at stride st > 1 (dilation 1), of one of its
  // st x st phase planes. The product then runs over the planes' grid, wq
  // columns an output row of which the last few fall outside the output,
  // and the valid columns are compacted after.
  const int64_t st = s.stride_h;
  // (A strided 1x1 reads a quarter of the image or less: its patch matrix
  // is the smaller copy.)
  const bool sliced = !direct && s.stride_w == st &&
                      (st == 1 || (s.dil_h == 1 && s.dil_w == 1 && (s.kh > 1 || s.kw > 1)));
  const int64_t hp = (s.oh - 1) * st + (s.kh - 1) * s.dil_h + 1, wp = (s.ow - 1) * st + (s.kw - 1) * s.dil_w + 1;
  const int64_t hq = (hp + st - 1) / st, wq = (wp + st - 1) / st;
  const int64_t grid = sliced ? (s.oh - 1) * wq + s.ow : pixels;  // the product's columns
  std::vector<uint8_t> cols(direct ? 0 : static_cast<size_t>(sliced ? cg * st * st * hq * wq : k * pixels));
  std::vector<const uint8_t*> tap_rows(static_cast<size_t>(k));  // B's rows
  std::unique_ptr<int32_t[]> grid_sums;
  std::vector<uint8_t> grid_bytes;
  if (sliced) {
    grid_sums = std::make_unique_for_overwrite<int32_t[]>(static_cast<size_t>(mg * grid));
    if (requant != nullptr) grid_bytes.resize(static_cast<size_t>(mg * grid));
  }
  const ZeroPoints wz = w.zero();
  for (int64_t img = 0; img < s.n; ++img)
    for (int64_t g = 0; g < s.group; ++g) {
      const uint8_t* plane = xb + (img * s.c + g * cg) * s.h * s.w;
      // The image's columns, packed into storage this thread keeps between runs
      // (the product packs it).
      thread_local PackedInt8B b;
      if (sliced) {
        PadPhases(s, plane, cg, st, hp, wp, hq, wq, pad, cols.data(), pool);
        for (int64_t r = 0; r < k; ++r) {
          const int64_t ch = r / (s.kh * s.kw), dy = ((r / s.kw) % s.kh) * s.dil_h, dx = (r % s.kw) * s.dil_w;
          const int64_t phase = (ch * st + dy % st) * st + dx % st;
          tap_rows[static_cast<size_t>(r)] = cols.data() + (phase * hq + dy / st) * wq + dx / st;
        }
      } else {
        if (!direct) Im2Col(s, plane, cg, pad, cols.data(), pool);
        const uint8_t* base = direct ? plane : cols.data();
        for (int64_t r = 0; r < k; ++r) tap_rows[static_cast<size_t>(r)] = base + r * pixels;
      }
      ZeroPoints rows = wz;
      if (rows.per_line) rows.values += g * mg;
      int32_t* sums = y + (img * s.m + g * mg) * pixels;
      Int8Requant part;
      if (requant != nullptr) {
        part = *requant;
        part.ldo = grid;
        part.out = sliced ? grid_bytes.data() : requant->out + (img * s.m + g * mg) * pixels;
        // Per output channel: the image's rows start over at channel 0.
        part.scale = requant->scale + g * mg;
        if (requant->bias != nullptr) part.bias = requant->bias + g * mg;
      }
      // B packed block by block as the product goes (Int8GemmPackingBPooled).
      Int8GemmPackingBPooled(pool, mg, w.is_signed(), w.bytes() + g * mg * k, k, rows, w.packed(g), x_signed, k, grid,
                             tap_rows.data(), ZeroPoints{&x_zero, false}, b, sliced ? grid_sums.get() : sums, grid,
                             requant != nullptr ? &part : nullptr);
      if (!sliced) continue;
      // The output rows out of the grid's: bytes when requantized, else sums.
      uint8_t* out_bytes = requant != nullptr ? requant->out + (img * s.m + g * mg) * pixels : nullptr;
      for (int64_t ch = 0; ch < mg; ++ch)
        for (int64_t oy = 0; oy < s.oh; ++oy) {
          const int64_t from = ch * grid + oy * wq, to = ch * pixels + oy * s.ow;
          if (out_bytes != nullptr) {
            std::memcpy(out_bytes + to, grid_bytes.data() + from, static_cast<size_t>(s.ow));
          } else {
            std::memcpy(sums + to, grid_sums.get() + from, static_cast<size_t>(s.ow) * sizeof(int32_t));
          }
        }
    }
}

}  // namespace tessera::cpu
