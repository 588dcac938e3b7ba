#include "tessera/providers/cpu/int8_conv.h"

#include <algorithm>
#include <cstring>

#include "tessera/base/thread_pool.h"
#include "tessera/providers/cpu/kernel_util.h"

namespace tessera::cpu {

Int8ConvWeights::Int8ConvWeights(bool is_signed, int64_t m, int64_t per_group_k, const void* w,
                                 std::vector<int32_t> zero)
    : is_signed_(is_signed),
      m_(m),
      k_(per_group_k),
      bytes_(static_cast<const uint8_t*>(w), static_cast<const uint8_t*>(w) + m * per_group_k),
      zero_(zero.empty() ? std::vector<int32_t>{0} : std::move(zero)) {}

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

}  // namespace

void Int8Conv2D(ThreadPool* pool, const Conv2DShape& s, bool x_signed, const void* x, int32_t x_zero,
                const Int8ConvWeights& w, int32_t* y) {
  const int64_t cg = s.c / s.group, mg = s.m / s.group, pixels = s.oh * s.ow, k = cg * s.kh * s.kw;
  const auto* xb = static_cast<const uint8_t*>(x);
  // The zero point as the byte the input stores for it.
  const auto pad = static_cast<uint8_t>(static_cast<uint32_t>(x_zero) & 0xffu);
  const bool direct = s.kh == 1 && s.kw == 1 && s.stride_h == 1 && s.stride_w == 1 && s.pad_t == 0 && s.pad_l == 0 &&
                      s.oh == s.h && s.ow == s.w;
  std::vector<uint8_t> cols(direct ? 0 : static_cast<size_t>(k * pixels));
  const ZeroPoints wz = w.zero();
  for (int64_t img = 0; img < s.n; ++img)
    for (int64_t g = 0; g < s.group; ++g) {
      const uint8_t* plane = xb + (img * s.c + g * cg) * s.h * s.w;
      if (!direct) Im2Col(s, plane, cg, pad, cols.data(), pool);
      const PackedInt8B b(x_signed, k, pixels, direct ? plane : cols.data(), pixels, ZeroPoints{&x_zero, false});
      ZeroPoints rows = wz;
      if (rows.per_line) rows.values += g * mg;
      Int8GemmS32Pooled(pool, mg, w.is_signed(), w.bytes() + g * mg * k, k, rows, b, y + (img * s.m + g * mg) * pixels,
                        pixels);
    }
}

}  // namespace tessera::cpu
