// com.microsoft MatMulNBits: Y = A x dequant(B)^T (+ bias), B a constant N x K
// weight quantized block-wise along K to 2, 4 or 8 bits (ORT's LLM builders
// and its weight-only quantizer write it):
//   B            uint8 (N, k_blocks, blob), each block's values bit-packed
//                least significant bits first, blob = block_size * bits / 8
//   scales       (N, k_blocks), A's type
//   zero_points  optional: uint8 packed the same way along the blocks
//                (N, ceil(k_blocks * bits / 8)), or unpacked in A's type
//                (N, k_blocks); absent = 2^(bits - 1)
//   g_idx        optional int32 (K): the block of each k (GPTQ's act order)
//   bias         optional (N)
// The float weights are never materialized. A decode step (M small) is one
// pass over the packed bytes: per block, s * sum (q - zp) a, in SIMD lanes
// (simd_nbits.h). (Folding the zero point into s * (sum q a - zp * sum a)
// saves one subtraction a value but cancels: 2-bit results lost three
// digits.) Larger M dequantizes a few weight rows at a time into L1 and
// takes every row of A's inner products with them; with g_idx, a panel of
// columns is dequantized into a per-thread buffer for the GEMM.
// accuracy_level is a floor on A's precision. At 4 (int8) with 4-bit weights
// A is quantized per block to int8 (as ORT does) and meets the nibbles in
// exact integer products (simd_nbits_int8.h): a decode step does about half
// the vector work a weight of the float pass, a prefill's register tiles a
// third of the FMAs'. Otherwise A stays float, which meets every floor.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/matmul_gemm.h"
#include "tessera/providers/cpu/simd_nbits.h"
#include "tessera/providers/cpu/simd_nbits_int8.h"

namespace tessera::cpu {
namespace {

constexpr int64_t kPanel = 16;       // columns dequantized together for the GEMM path
constexpr int64_t kGemvMaxRows = 4;  // up to this many rows of A take the packed pass
constexpr int64_t kAhead = 4;        // rows the packed pass prefetches ahead
constexpr int64_t kTiledK = 512;     // K values the tiled pass dequantizes at a time

class MatMulNBits final : public OpKernel {
 public:
  explicit MatMulNBits(const KernelInfo& info)
      : k_(info.attr_int("K")),
        n_(info.attr_int("N")),
        bits_(info.attr_int("bits", 4)),
        block_(info.attr_int("block_size")) {
    if (k_ <= 0 || n_ <= 0) info.Fail("K and N must be positive, got K=", k_, " N=", n_);
    if (bits_ != 2 && bits_ != 4 && bits_ != 8) info.Fail("bits must be 2, 4 or 8, got ", bits_);
    if (block_ < 16 || (block_ & (block_ - 1)) != 0)
      info.Fail("block_size must be a power of two and at least 16, got ", block_);
    const int64_t level = info.attr_int("accuracy_level", 0);
    if (level < 0 || level > 4) info.Fail("accuracy_level must be 0..4, got ", level);
    if (info.attr_int("weight_prepacked", 0) != 0)
      info.Fail("weight_prepacked=", info.attr_int("weight_prepacked", 0),
                " (a CUDA layout) is not supported; export the plain packed weight");
    blocks_ = (k_ + block_ - 1) / block_;
    blob_ = block_ * bits_ / 8;
    int8_ = level == 4 && bits_ == 4;
    // Constant scales and zero points (as exporters write them) are read
    // into floats once: per run, unpacking them took a third of a decode step.
    const Tensor* scales = info.constant_input(2);
    const bool zero_known = !info.has_input(3) || info.constant_input(3) != nullptr;
    if (scales && zero_known && IsFloatingPoint(scales->dtype()) && scales->numel() == n_ * blocks_) {
      scale_ = ToFloats(*scales);
      zero_ = info.has_input(3) ? ZeroPoints(info.constant_input(3), scales->dtype(), [&](auto&&... m) {
        info.Fail(m...);
      })
                                : ZeroPoints(nullptr, scales->dtype(), [&](auto&&... m) { info.Fail(m...); });
      uniform_zero_ = Uniform(zero_);
      // One zero point for all (symmetric weights, the LLM builders'
      // default): one row of them serves every column, a fifth less memory
      // and less to read per decode step than one float per block.
      if (uniform_zero_) zero_.resize(static_cast<size_t>(blocks_));
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor& scales = ctx.input(2);
    if (a.rank() < 1 || a.shape().back() != k_)
      ctx.Fail("A ", a.Describe(), " must have K=", k_, " as its last dimension");
    if (b.dtype() != DataType::kUInt8 || b.numel() != n_ * blocks_ * blob_ || (b.rank() != 2 && b.rank() != 3))
      ctx.Fail("B must be uint8 (N, k_blocks, blob) = (", n_, ", ", blocks_, ", ", blob_, ") for K=", k_,
               ", bits=", bits_, ", block_size=", block_, "; got ", b.Describe());
    if (scales.dtype() != a.dtype() || scales.numel() != n_ * blocks_)
      ctx.Fail("scales must hold (N, k_blocks) = (", n_, ", ", blocks_, ") values of A's type, got ",
               scales.Describe());
    std::vector<float> scale_run, zero_run;
    if (scale_.empty()) {
      scale_run = ToFloats(scales);
      zero_run = ZeroPoints(ctx.optional_input(3), a.dtype(),
                            [&](auto&&... m) { ctx.Fail(m...); });
    }
    const std::vector<float>& scale = scale_.empty() ? scale_run : scale_;
    const std::vector<float>& zero = scale_.empty() ? zero_run : zero_;
    std::vector<int32_t> group;
    if (ctx.has_input(4)) group = Groups(ctx.input(4), ctx);
    std::vector<float> bias;
    if (ctx.has_input(5)) {
      const Tensor& bt = ctx.input(5);
      if (bt.dtype() != a.dtype() || bt.numel() != n_) ctx.Fail("bias must hold N=", n_, " values, got ", bt.Describe());
      bias = ToFloats(bt);
    }
    Shape ys = a.shape();
    ys.back() = n_;
    Tensor& y = ctx.allocate_output(0, a.dtype(), ys);
    const int64_t m = k_ > 0 ? a.numel() / k_ : 0;
    if (m == 0) return;
    // Float A is read where it is; 16-bit A is widened once.
    std::vector<float> widened;
    if (a.dtype() != DataType::kFloat) widened = ToFloats(a);
    const float* af = a.dtype() == DataType::kFloat ? a.data<float>() : widened.data();
    std::vector<float> yf(a.dtype() == DataType::kFloat ? 0 : static_cast<size_t>(m * n_));
    float* out = a.dtype() == DataType::kFloat ? y.data<float>() : yf.data();
    const std::optional<float> uniform_zero = scale_.empty() ? Uniform(zero) : uniform_zero_;
    const Weights w{b.data<uint8_t>(), scale.data(), zero.data(), group.empty() ? nullptr : group.data(),
                    uniform_zero, uniform_zero ? 0 : blocks_};
    if (!group.empty()) PanelGemm(af, m, w, out, ctx);
    else if (int8_ && (m <= kGemvMaxRows ? Int8DecodePays() : Int8PrefillPays())) Int8Pass(af, m, w, out, ctx);
    else if (m <= kGemvMaxRows) PackedPass(af, m, w, out, ctx);
    else TiledPass(af, m, w, out, ctx);
    if (!bias.empty())
      for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n_; ++j) out[r * n_ + j] += bias[static_cast<size_t>(j)];
    if (a.dtype() != DataType::kFloat)
      DispatchFloat(a.dtype(), ctx, [&]<typename T>() {
        T* yp = y.data<T>();
        for (size_t i = 0; i < yf.size(); ++i) yp[i] = StoreAs<T>(yf[i]);
      });
  }

 private:
  struct Weights {
    const uint8_t* q;     // N x blocks x blob
    const float* scale;   // N x blocks
    const float* zero;    // N x blocks
    const int32_t* group;  // K, or null: k / block
    std::optional<float> uniform_zero;  // the zero point of every block, where they are all one
    int64_t zero_stride;                 // blocks, or 0 where they are all one: column n's at zero + n * zero_stride
  };

  static const float* ZeroRow(const Weights& w, int64_t n) { return w.zero + n * w.zero_stride; }

  static std::optional<float> Uniform(const std::vector<float>& zero) {
    if (zero.empty() || std::any_of(zero.begin(), zero.end(), [&](float z) { return z != zero[0]; })) return {};
    return zero[0];
  }

  // The caller has checked that t holds a float type.
  static std::vector<float> ToFloats(const Tensor& t) {
    std::vector<float> v(static_cast<size_t>(t.numel()));
    auto read = [&]<typename T>() {
      const T* p = t.data<T>();
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(Load(p[i]));
    };
    switch (t.dtype()) {
      case DataType::kFloat16: read.template operator()<Float16>(); break;
      case DataType::kBFloat16: read.template operator()<BFloat16>(); break;
      case DataType::kDouble: read.template operator()<double>(); break;
      default: read.template operator()<float>(); break;
    }
    return v;
  }

  // Value i of a row packed `bits_` bits a value, least significant first.
  int Unpacked(const uint8_t* row, int64_t i) const {
    const int64_t bit = i * bits_;
    return (row[bit >> 3] >> (bit & 7)) & ((1 << bits_) - 1);
  }

  // fail: the kernel's or the run's error reporter (creation or run time).
  template <typename Fail>
  std::vector<float> ZeroPoints(const Tensor* zp, DataType a_type, Fail&& fail) const {
    std::vector<float> z(static_cast<size_t>(n_ * blocks_), static_cast<float>(1 << (bits_ - 1)));
    if (!zp) return z;
    const Tensor& zt = *zp;
    if (zt.dtype() == DataType::kUInt8) {
      const int64_t row = (blocks_ * bits_ + 7) / 8;
      if (zt.numel() != n_ * row)
        fail("packed uint8 zero_points must be (N, ceil(k_blocks * bits / 8)) = (", n_, ", ", row, "), got ",
                 zt.Describe());
      const uint8_t* p = zt.data<uint8_t>();
      for (int64_t n = 0; n < n_; ++n)
        for (int64_t blk = 0; blk < blocks_; ++blk)
          z[static_cast<size_t>(n * blocks_ + blk)] = static_cast<float>(Unpacked(p + n * row, blk));
      return z;
    }
    if (zt.dtype() != a_type || zt.numel() != n_ * blocks_)
      fail("zero_points must be packed uint8 or (N, k_blocks) = (", n_, ", ", blocks_, ") values of A's type, got ",
           zt.Describe());
    return ToFloats(zt);
  }

  std::vector<int32_t> Groups(const Tensor& g, const KernelContext& ctx) const {
    if (g.dtype() != DataType::kInt32 || g.numel() != k_)
      ctx.Fail("g_idx must be int32 with K=", k_, " values, got ", g.Describe());
    std::vector<int32_t> v(g.data<int32_t>(), g.data<int32_t>() + k_);
    for (int32_t x : v)
      if (x < 0 || x >= blocks_) ctx.Fail("g_idx value ", x, " is outside the ", blocks_, " blocks");
    return v;
  }

  // Column n's dequantized weights, k = 0..K-1.
  void Dequantize(const Weights& w, int64_t n, float* out) const {
    const uint8_t* row = w.q + n * blocks_ * blob_;
    if (w.group) {
      for (int64_t k = 0; k < k_; ++k) {
        const size_t sb = static_cast<size_t>(n * blocks_ + w.group[k]);
        const float q = static_cast<float>(Unpacked(row + (k / block_) * blob_, k % block_));
        out[k] = (q - ZeroRow(w, n)[w.group[k]]) * w.scale[sb];
      }
      return;
    }
    // Block by block, with the block's scale and zero point folded into one
    // multiply-add (q * s - z * s): a prefill dequantizes every weight once
    // per run, and the per-value index arithmetic had made that 5x slower.
    for (int64_t blk = 0; blk < blocks_; ++blk) {
      const uint8_t* src = row + blk * blob_;
      const int64_t k0 = blk * block_, len = std::min(block_, k_ - k0);
      const size_t sb = static_cast<size_t>(n * blocks_ + blk);
      const float s = w.scale[sb], zs = -ZeroRow(w, n)[blk] * w.scale[sb];
      float* dst = out + k0;
      if (bits_ == 4) {
        for (int64_t j = 0; j < len / 2; ++j) {
          dst[2 * j] = static_cast<float>(src[j] & 15) * s + zs;
          dst[2 * j + 1] = static_cast<float>(src[j] >> 4) * s + zs;
        }
        if (len & 1) dst[len - 1] = static_cast<float>(src[len / 2] & 15) * s + zs;
      } else if (bits_ == 8) {
        for (int64_t j = 0; j < len; ++j) dst[j] = static_cast<float>(src[j]) * s + zs;
      } else {
        for (int64_t j = 0; j < len; ++j) dst[j] = static_cast<float>(Unpacked(src, j)) * s + zs;
      }
    }
  }

  // Few rows: y[r, n] = sum over blocks of s * sum (q - zp) a, A's blocks
  // laid out by slot once (simd_nbits.h) so each packed byte is read once.
  // The m rows of A, block by block in slot order (SlotBlockNBits), each
  // row blocks_ * block_ floats (the last block zero-padded).
  std::vector<float> SlotRows(const float* a, int64_t m) const {
    std::vector<float> slots(static_cast<size_t>(m * blocks_ * block_));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t blk = 0; blk < blocks_; ++blk)
        SlotBlockNBits(a + r * k_ + blk * block_, std::min(block_, k_ - blk * block_), block_,
                       static_cast<int>(bits_), slots.data() + (r * blocks_ + blk) * block_);
    return slots;
  }

  void PackedPass(const float* a, int64_t m, const Weights& w, float* y, KernelContext& ctx) const {
    const int bits = static_cast<int>(bits_);
    const std::vector<float> slots = SlotRows(a, m);
    ParallelFor(ctx.thread_pool(), n_, 8, [&](int64_t n0, int64_t n1) {
      const int64_t row_bytes = blocks_ * blob_;
      for (int64_t n = n0; n < n1; ++n) {
        const uint8_t* row = w.q + n * row_bytes;
        // The weights stream from memory once: ask for the row kAhead ahead
        // into all cache levels. The hardware prefetcher alone left the 0.5B
        // decoder's step at 3.4 GB/s (10 tokens/s); with this, 20. A
        // non-temporal hint got 15 and slowed weights that fit the L3.
        if (n + kAhead < n1)
          for (int64_t off = 0; off < row_bytes; off += 64) __builtin_prefetch(row + kAhead * row_bytes + off, 0, 3);
        for (int64_t r = 0; r < m; ++r)
          y[r * n_ + n] = RowDotNBits(row, slots.data() + r * blocks_ * block_, blocks_, block_, bits,
                                      w.scale + n * blocks_, ZeroRow(w, n));
      }
    });
  }

  // accuracy_level 4: A's rows quantized to int8 per block once, then exact
  // int32 sums per block. A decode step streams the packed bytes once
  // (ColumnsDotU4S8, x86 from SSSE3); a prefill unpacks 8 columns at a time
  // into quads for register tiles (PrefillDotU4S8, from AVX2). Elsewhere
  // the float passes run: scalar byte products would be slower.
  void Int8Pass(const float* a, int64_t m, const Weights& w, float* y, KernelContext& ctx) const {
    const bool decode = m <= kGemvMaxRows;
    const Int8Order order = decode ? Int8Order::kNibbleSlots : Int8Order::kLinear;
    const size_t cells = static_cast<size_t>(m * blocks_);
    std::vector<int8_t> values(cells * static_cast<size_t>(block_));
    std::vector<float> a_scale(cells), sum(cells), scaled_sum(cells);
    // On all threads: a prefill's M x K values would otherwise keep the
    // others waiting.
    ParallelFor(ctx.thread_pool(), m * blocks_, 64, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t r = c / blocks_, blk = c % blocks_;
        const size_t i = static_cast<size_t>(c);
        int32_t total = 0;
        a_scale[i] = QuantizeBlockS8(a + r * k_ + blk * block_, std::min(block_, k_ - blk * block_), block_, order,
                                     values.data() + i * static_cast<size_t>(block_), &total);
        sum[i] = static_cast<float>(total);
        scaled_sum[i] = a_scale[i] * sum[i];
      }
    });
    const Int8BlockRows rows{values.data(), a_scale.data(), scaled_sum.data(), sum.data()};
    // A prefill splits the columns in whole panels of 8 (grain 16).
    ParallelFor(ctx.thread_pool(), decode ? n_ : (n_ + 7) / 8, decode ? 8 : 2, [&](int64_t p0, int64_t p1) {
      const int64_t n0 = decode ? p0 : p0 * 8, n1 = decode ? p1 : std::min(n_, p1 * 8);
      const U4Columns cols{w.q + n0 * blocks_ * blob_, w.scale + n0 * blocks_,
                           w.uniform_zero ? nullptr : ZeroRow(w, n0), w.uniform_zero.value_or(0.0f),
                           n1 - n0, blocks_, block_};
      if (decode) ColumnsDotU4S8(cols, rows, m, y + n0, n_);
      else PrefillDotU4S8(cols, rows, m, y + n0, n_);
    });
  }

  // More rows (a prefill): a few weight rows at a time are dequantized into
  // slot order, kTiledK values deep so they and the rows of A they meet stay
  // in L1, and every row of A takes its inner products with them
  // (DotTileF32). Each weight is dequantized once per run; the GEMM path
  // below copied A and the dequantized panel again for every 16 columns.
  void TiledPass(const float* a, int64_t m, const Weights& w, float* y, KernelContext& ctx) const {
    const std::vector<float> slots = SlotRows(a, m);
    const int64_t row_k = blocks_ * block_;
    const DotTile tile = DotTileInUse();
    const int64_t depth_blocks = std::max<int64_t>(1, kTiledK / block_), depth = depth_blocks * block_;
    const int64_t groups = (n_ + tile.cols - 1) / tile.cols;
    ParallelFor(ctx.thread_pool(), groups, 4, [&](int64_t g0, int64_t g1) {
      std::vector<float> wbuf(static_cast<size_t>(tile.cols * depth));
      std::vector<float> partial(static_cast<size_t>(m * tile.cols * tile.lanes));
      for (int64_t g = g0; g < g1; ++g) {
        const int64_t n0 = g * tile.cols, cols = std::min(tile.cols, n_ - n0);
        std::fill(partial.begin(), partial.end(), 0.0f);
        for (int64_t b0 = 0; b0 < blocks_; b0 += depth_blocks) {
          const int64_t nb = std::min(depth_blocks, blocks_ - b0);
          // Each weight row is read a chunk at a time, four rows in turn,
          // which the hardware prefetcher does not follow: the loads of
          // the packed bytes stalled for 70% of the dequantization. Ask
          // for the next group's chunk while this one computes.
          if (g + 1 < g1)
            for (int64_t c = 0; c < tile.cols && n0 + tile.cols + c < n_; ++c) {
              const int64_t next = n0 + tile.cols + c;
              const uint8_t* q = w.q + next * blocks_ * blob_ + b0 * blob_;
              for (int64_t off = 0; off < nb * blob_; off += 64) __builtin_prefetch(q + off, 0, 3);
              __builtin_prefetch(w.scale + next * blocks_ + b0, 0, 3);
              __builtin_prefetch(ZeroRow(w, next) + b0, 0, 3);
            }
          for (int64_t c = 0; c < cols; ++c)
            DequantSlotsNBits(w.q + (n0 + c) * blocks_ * blob_, b0, nb, block_, static_cast<int>(bits_),
                              w.scale + (n0 + c) * blocks_, ZeroRow(w, n0 + c), wbuf.data() + c * depth);
          for (int64_t r0 = 0; r0 < m; r0 += tile.rows)
            DotTileF32(slots.data() + r0 * row_k + b0 * block_, row_k, std::min(tile.rows, m - r0), wbuf.data(), depth,
                       cols, nb * block_, partial.data() + r0 * cols * tile.lanes);
        }
        for (int64_t r0 = 0; r0 < m; r0 += tile.rows)
          DotTileSum(partial.data() + r0 * cols * tile.lanes, std::min(tile.rows, m - r0), cols, y + r0 * n_ + n0, n_);
      }
    });
  }

  // With g_idx: panels of kPanel columns, dequantized per thread, then A x panel^T.
  void PanelGemm(const float* a, int64_t m, const Weights& w, float* y, KernelContext& ctx) const {
    const int64_t panels = (n_ + kPanel - 1) / kPanel;
    ParallelFor(ctx.thread_pool(), panels, 1, [&](int64_t p0, int64_t p1) {
      std::vector<float> panel(static_cast<size_t>(kPanel * k_));
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t n0 = p * kPanel, cols = std::min(kPanel, n_ - n0);
        for (int64_t c = 0; c < cols; ++c) Dequantize(w, n0 + c, panel.data() + c * k_);
        GemmF32(false, true, m, cols, k_, 1.0f, a, k_, panel.data(), k_, 0.0f, y + n0, n_);
      }
    });
  }

  int64_t k_, n_, bits_, block_;
  int64_t blocks_ = 0, blob_ = 0;
  bool int8_ = false;                // accuracy_level 4 with 4-bit weights
  std::vector<float> scale_, zero_;  // from constant inputs; empty: read each run
  std::optional<float> uniform_zero_;  // of zero_
};

}  // namespace

std::vector<KernelRow> MatMulNBitsKernels() {
  return {{kMicrosoftDomain, "MatMulNBits", 1, 1, {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16},
           Make<MatMulNBits>()}};
}

}  // namespace tessera::cpu
