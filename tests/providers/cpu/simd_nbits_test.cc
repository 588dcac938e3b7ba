// The kernels of simd_nbits.h and simd_nbits_int8.h against the definition
// on every SIMD target,
// MatMulNBits's decode and prefill passes against a float64 product, and
// its checks of its inputs.
#include "tessera/providers/cpu/simd_nbits.h"
#include "tessera/providers/cpu/simd_nbits_int8.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "support/op_test.h"
#include "support/simd_targets.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera::cpu {
namespace {

// Every bit width and block size (16..256), one block and many, packed
// bytes over their whole range, a partial last block.
TEST(SimdNBits, RowDotMatchesTheDequantizedSum) {
  test::OnEverySimdTarget([] {
    for (int bits : {2, 4, 8})
      for (int64_t block : {16, 32, 64, 128, 256})
        for (int64_t blocks : {1, 3}) {
          const int64_t k = blocks * block - (blocks > 1 ? 5 : 0);  // the last block partial
          const int64_t bytes = block * bits / 8;
          std::vector<uint8_t> packed(static_cast<size_t>(blocks * bytes));
          for (size_t i = 0; i < packed.size(); ++i) packed[i] = static_cast<uint8_t>(i * 73 + 29);
          std::vector<float> a(static_cast<size_t>(k)), scale, zero;
          for (int64_t i = 0; i < k; ++i) a[static_cast<size_t>(i)] = std::sin(0.3f * static_cast<float>(i));
          for (int64_t b = 0; b < blocks; ++b) {
            scale.push_back(0.01f * static_cast<float>(b + 1));
            zero.push_back(static_cast<float>((b * 3) % (1 << bits)));
          }
          std::vector<float> slots(static_cast<size_t>(blocks * block));
          for (int64_t b = 0; b < blocks; ++b)
            SlotBlockNBits(a.data() + b * block, std::min(block, k - b * block), block, bits,
                           slots.data() + b * block);
          double want = 0;
          for (int64_t i = 0; i < k; ++i) {
            const int64_t b = i / block, in_block = i % block, bit = in_block * bits;
            const int q = (packed[static_cast<size_t>(b * bytes + bit / 8)] >> (bit % 8)) & ((1 << bits) - 1);
            want += (q - zero[static_cast<size_t>(b)]) * static_cast<double>(scale[static_cast<size_t>(b)]) *
                    a[static_cast<size_t>(i)];
          }
          const float got = RowDotNBits(packed.data(), slots.data(), blocks, block, bits, scale.data(), zero.data());
          EXPECT_NEAR(got, want, 1e-4 * (1 + std::fabs(want))) << bits << " bits, block " << block << " x " << blocks;
        }
  });
}

// The packed value `i` of a row of blocks (bits a value, least significant
// first), as the definition reads it.
int PackedValue(const std::vector<uint8_t>& packed, int64_t row_bytes, int64_t row, int64_t block, int bits,
                int64_t k) {
  const int64_t bytes = block * bits / 8, bit = (k % block) * bits;
  return (packed[static_cast<size_t>(row * row_bytes + (k / block) * bytes + bit / 8)] >> (bit % 8)) &
         ((1 << bits) - 1);
}

// DequantSlotsNBits writes (q - z) s in A's slot order, and DotTileF32 +
// DotTileSum take every tile size up to the target's largest.
TEST(SimdNBits, DequantizedSlotsMeetSlottedRowsInTiles) {
  test::OnEverySimdTarget([] {
    const DotTile tile = DotTileInUse();
    for (int bits : {2, 4, 8})
      for (int64_t block : {16, 32, 256}) {
        const int64_t blocks = 3, k = blocks * block, bytes = block * bits / 8, row_bytes = blocks * bytes;
        const int64_t n = tile.cols, m = tile.rows;
        std::vector<uint8_t> packed(static_cast<size_t>(n * row_bytes));
        for (size_t i = 0; i < packed.size(); ++i) packed[i] = static_cast<uint8_t>(i * 151 + 17);
        std::vector<float> scale(static_cast<size_t>(n * blocks)), zero(scale.size()), w(static_cast<size_t>(n * k));
        for (size_t i = 0; i < scale.size(); ++i) {
          scale[i] = 0.02f * static_cast<float>(i % 5 + 1);
          zero[i] = static_cast<float>((i * 5) % (1u << bits));
        }
        std::vector<float> a(static_cast<size_t>(m * k)), slots(a.size());
        for (size_t i = 0; i < a.size(); ++i) a[i] = std::cos(0.17f * static_cast<float>(i));
        for (int64_t r = 0; r < m; ++r)
          for (int64_t b = 0; b < blocks; ++b)
            SlotBlockNBits(a.data() + r * k + b * block, block, block, bits, slots.data() + r * k + b * block);
        // Blocks 1 and 2 of each row, dequantized as one chunk.
        for (int64_t c = 0; c < n; ++c) {
          DequantSlotsNBits(packed.data() + c * row_bytes, 1, 2, block, bits, scale.data() + c * blocks,
                            zero.data() + c * blocks, w.data() + c * k);
          std::vector<float> want_slots(static_cast<size_t>(block)), deq(static_cast<size_t>(block));
          for (int64_t b = 1; b < blocks; ++b) {
            for (int64_t j = 0; j < block; ++j) {
              const size_t sb = static_cast<size_t>(c * blocks + b);
              deq[static_cast<size_t>(j)] =
                  (static_cast<float>(PackedValue(packed, row_bytes, c, block, bits, b * block + j)) - zero[sb]) *
                  scale[sb];
            }
            SlotBlockNBits(deq.data(), block, block, bits, want_slots.data());
            for (int64_t j = 0; j < block; ++j)
              ASSERT_NEAR(w[static_cast<size_t>(c * k + (b - 1) * block + j)], want_slots[static_cast<size_t>(j)],
                          1e-6f * (1.f + std::fabs(want_slots[static_cast<size_t>(j)])))  // q s - z s rounds twice
                  << bits << " bits, block " << block << ", column " << c << ", value " << (b * block + j);
          }
        }
        for (int64_t rows = 1; rows <= m; ++rows)
          for (int64_t cols = 1; cols <= n; ++cols) {
            std::vector<float> partial(static_cast<size_t>(rows * cols * tile.lanes), 0.f);
            std::vector<float> y(static_cast<size_t>(rows * cols), -1.f);
            // Two calls over halves of the chunk: the partial sums carry over.
            const int64_t len = 2 * block, half = block;
            DotTileF32(slots.data() + block, k, rows, w.data(), k, cols, half, partial.data());
            DotTileF32(slots.data() + 2 * block, k, rows, w.data() + half, k, cols, half, partial.data());
            DotTileSum(partial.data(), rows, cols, y.data(), cols);
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t c = 0; c < cols; ++c) {
                double want = 0;
                for (int64_t j = 0; j < len; ++j)
                  want += static_cast<double>(slots[static_cast<size_t>(r * k + block + j)]) *
                          w[static_cast<size_t>(c * k + j)];
                EXPECT_NEAR(y[static_cast<size_t>(r * cols + c)], want, 1e-4 * (1 + std::fabs(want)))
                    << bits << " bits, block " << block << ", tile " << rows << "x" << cols;
              }
          }
      }
  });
}

// The prefill pass (more rows than the decode pass takes) on shapes around
// its tile and chunk edges: M not a multiple of the tile's rows, N of its
// columns, K crossing a chunk and ending in a partial block; every bit
// width, packed and float zero points, a bias, and 2 threads.
TEST(MatMulNBits, PrefillMatchesTheDequantizedProduct) {
  test::OnEverySimdTarget([] {
    struct Case {
      int64_t m, n, k, block;
      int bits;
      bool float_zero;
    };
    for (const Case& cs : {Case{5, 7, 40, 16, 4, false}, Case{13, 11, 600, 32, 4, false}, Case{9, 5, 1100, 256, 4, true},
                           Case{7, 9, 96, 32, 8, false}, Case{6, 4, 80, 16, 2, true}, Case{31, 26, 130, 64, 4, false}}) {
      const int64_t blocks = (cs.k + cs.block - 1) / cs.block, bytes = cs.block * cs.bits / 8;
      std::vector<uint8_t> q(static_cast<size_t>(cs.n * blocks * bytes));
      for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<uint8_t>(i * 73 + 11);
      std::vector<float> a(static_cast<size_t>(cs.m * cs.k)), scale(static_cast<size_t>(cs.n * blocks)),
          zero(scale.size()), bias(static_cast<size_t>(cs.n));
      for (size_t i = 0; i < a.size(); ++i) a[i] = std::sin(0.37f * static_cast<float>(i));
      for (size_t i = 0; i < scale.size(); ++i) {
        scale[i] = 0.01f * static_cast<float>(i % 7 + 1);
        zero[i] = static_cast<float>((i * 3) % (1u << cs.bits));
      }
      for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.5f - 0.1f * static_cast<float>(i);
      const int64_t zrow = (blocks * cs.bits + 7) / 8;
      std::vector<uint8_t> zpacked(static_cast<size_t>(cs.n * zrow), 0);
      for (int64_t c = 0; c < cs.n; ++c)
        for (int64_t b = 0; b < blocks; ++b) {
          const int64_t bit = b * cs.bits;
          zpacked[static_cast<size_t>(c * zrow + bit / 8)] |=
              static_cast<uint8_t>(static_cast<int>(zero[static_cast<size_t>(c * blocks + b)]) << (bit % 8));
        }
      std::vector<float> want(static_cast<size_t>(cs.m * cs.n));
      for (int64_t r = 0; r < cs.m; ++r)
        for (int64_t c = 0; c < cs.n; ++c) {
          double sum = bias[static_cast<size_t>(c)];
          for (int64_t j = 0; j < cs.k; ++j) {
            const size_t sb = static_cast<size_t>(c * blocks + j / cs.block);
            sum += (PackedValue(q, blocks * bytes, c, cs.block, cs.bits, j) - zero[sb]) *
                   static_cast<double>(scale[sb]) * a[static_cast<size_t>(r * cs.k + j)];
          }
          want[static_cast<size_t>(r * cs.n + c)] = static_cast<float>(sum);
        }
      for (int threads : {1, 2}) {
        test::OpTest t("MatMulNBits", 1, "com.microsoft");
        t.Attr("K", cs.k).Attr("N", cs.n).Attr("bits", int64_t{cs.bits}).Attr("block_size", cs.block);
        t.Input("A", test::T_<float>(a, {cs.m, cs.k}));
        t.ConstantInput("B", test::T_<uint8_t>(q, {cs.n, blocks, bytes}));
        t.ConstantInput("scales", test::T_<float>(scale, {cs.n, blocks}));
        if (cs.float_zero) t.ConstantInput("zero_points", test::T_<float>(zero, {cs.n, blocks}));
        else t.ConstantInput("zero_points", test::T_<uint8_t>(zpacked, {cs.n, zrow}));
        t.OmittedInput().ConstantInput("bias", test::T_<float>(bias, {cs.n}));
        t.Output("Y", test::T_<float>(want, {cs.m, cs.n})).Tolerance(1e-4, 1e-4).Threads(threads).Run();
      }
    }
  });
}

TEST(MatMulNBits, BadAttributesAndShapesAreClearErrors) {
  auto nbits = [](int64_t block, Shape b_shape) {
    test::OpTest t("MatMulNBits", 1, "com.microsoft");
    t.Attr("K", int64_t{32}).Attr("N", int64_t{2}).Attr("bits", int64_t{4}).Attr("block_size", block);
    t.Input("A", test::T_<float>(std::vector<float>(32, 1.f), {1, 32}));
    int64_t bytes = 1;
    for (int64_t d : b_shape) bytes *= d;
    t.ConstantInput("B", test::T_<uint8_t>(std::vector<uint8_t>(static_cast<size_t>(bytes), 0x88), b_shape));
    t.ConstantInput("scales", test::T_<float>({1, 1}, {2, 1}));
    t.UncheckedOutput("Y");
    return t;
  };
  nbits(24, {2, 1, 16}).ExpectFailure("block_size must be a power of two and at least 16, got 24");
  nbits(32, {2, 2, 16}).ExpectFailure("B must be uint8 (N, k_blocks, blob) = (2, 1, 16)");
  // 0x88: every value is 8, the default zero point: the product is 0.
  test::OpTest("MatMulNBits", 1, "com.microsoft")
      .Attr("K", int64_t{32}).Attr("N", int64_t{2}).Attr("bits", int64_t{4}).Attr("block_size", int64_t{32})
      .Input("A", test::T_<float>(std::vector<float>(32, 1.f), {1, 32}))
      .ConstantInput("B", test::T_<uint8_t>(std::vector<uint8_t>(32, 0x88), {2, 1, 16}))
      .ConstantInput("scales", test::T_<float>({1, 1}, {2, 1}))
      .Output("Y", test::T_<float>({0, 0}, {1, 2}))
      .Run();
  // An empty batch gives an empty result.
  test::OpTest("MatMulNBits", 1, "com.microsoft")
      .Attr("K", int64_t{32}).Attr("N", int64_t{2}).Attr("block_size", int64_t{32})
      .Input("A", test::T_<float>({}, {0, 32}))
      .ConstantInput("B", test::T_<uint8_t>(std::vector<uint8_t>(32, 0x11), {2, 1, 16}))
      .ConstantInput("scales", test::T_<float>({1, 1}, {2, 1}))
      .Output("Y", test::T_<float>({}, {0, 2}))
      .Run();
}

// Where value k of a block of `block` lands in QuantizeBlockS8's layout.
int64_t Int8Position(Int8Order order, int64_t block, int64_t k) {
  if (order == Int8Order::kLinear) return k;
  const int64_t c = std::min<int64_t>(16, block / 2), byte = k / 2;
  return (byte / c) * 2 * c + (k % 2) * c + byte % c;
}

// Blocks of A quantized in both layouts: in nibble slots (low nibbles'
// values, then high ones', by runs of up to 16 bytes) or in k order; the
// largest value at +-127; the sum; zeros; NaN and infinities.
TEST(SimdNBitsInt8, QuantizeBlockS8LaysOutAndRoundsToNearest) {
  for (Int8Order order : {Int8Order::kNibbleSlots, Int8Order::kLinear})
    for (int64_t block : {16, 32, 64}) {
      const int64_t valid = block - 3;
      std::vector<float> a(static_cast<size_t>(block), 99.f);  // past `valid`: never read
      for (int64_t k = 0; k < valid; ++k) a[static_cast<size_t>(k)] = 0.25f * static_cast<float>(k) - 3.0f;
      a[5] = -20.0f;
      std::vector<int8_t> q(static_cast<size_t>(block));
      int32_t sum = 0;
      const float scale = QuantizeBlockS8(a.data(), valid, block, order, q.data(), &sum);
      EXPECT_FLOAT_EQ(scale, 20.0f / 127.0f);
      int32_t want_sum = 0;
      for (int64_t k = 0; k < block; ++k) {
        const float want = k < valid ? std::nearbyint(a[static_cast<size_t>(k)] / scale) : 0.0f;
        EXPECT_EQ(q[static_cast<size_t>(Int8Position(order, block, k))], static_cast<int8_t>(want))
            << "block " << block << ", k " << k;
        want_sum += static_cast<int32_t>(want);
      }
      EXPECT_EQ(q[static_cast<size_t>(Int8Position(order, block, 5))], -127);
      EXPECT_EQ(sum, want_sum);
    }
  std::vector<float> zeros(32, 0.0f);
  std::vector<int8_t> q(32, 1);
  int32_t sum = 7;
  EXPECT_EQ(QuantizeBlockS8(zeros.data(), 32, 32, Int8Order::kLinear, q.data(), &sum), 0.0f);
  EXPECT_EQ(sum, 0);
  EXPECT_EQ(std::count(q.begin(), q.end(), 0), 32);
  for (float special : {std::nanf(""), INFINITY, -INFINITY}) {
    std::vector<float> a(32, 1.0f);
    a[9] = special;
    EXPECT_TRUE(std::isnan(QuantizeBlockS8(a.data(), 32, 32, Int8Order::kNibbleSlots, q.data(), &sum))) << special;
    EXPECT_EQ(sum, 0);
  }
}

// The int8 products against the quantized definition in float64: columns
// more than the prefetch distance and not a multiple of the prefill's panel
// of 8, nibbles and int8 values at their limits (0 and 15 against -127 and
// 127), per-block or uniform zero points.
void CheckInt8Products(bool prefill, int64_t block, int64_t m, bool uniform) {
  const Int8Order order = prefill ? Int8Order::kLinear : Int8Order::kNibbleSlots;
  const int64_t blocks = 3, bytes = block / 2, k = blocks * block, cols = prefill ? 13 : 7;
  std::vector<uint8_t> packed(static_cast<size_t>(cols * blocks * bytes));
  for (size_t i = 0; i < packed.size(); ++i) packed[i] = i % 5 == 0 ? 0xF0 : static_cast<uint8_t>(i * 73 + 29);
  std::vector<float> a(static_cast<size_t>(m * k));
  for (size_t i = 0; i < a.size(); ++i) a[i] = i % 7 == 0 ? 2.0f : std::sin(0.3f * static_cast<float>(i));
  a[1] = -2.0f;
  std::vector<int8_t> values(static_cast<size_t>(m * k));
  std::vector<float> a_scale(static_cast<size_t>(m * blocks)), sums(a_scale.size()), scaled_sum(a_scale.size());
  for (int64_t i = 0; i < m * blocks; ++i) {
    const size_t at = static_cast<size_t>(i);
    int32_t sum = 0;
    a_scale[at] = QuantizeBlockS8(a.data() + i * block, block, block, order, values.data() + i * block, &sum);
    sums[at] = static_cast<float>(sum);
    scaled_sum[at] = a_scale[at] * sums[at];
  }
  std::vector<float> w_scale, zero;
  for (int64_t i = 0; i < cols * blocks; ++i) {
    w_scale.push_back(0.01f * static_cast<float>(i % 4 + 1));
    zero.push_back(uniform ? 8.0f : static_cast<float>((i * 7) % 16));
  }
  const int64_t ldy = cols + 1;
  std::vector<float> y(static_cast<size_t>(m * ldy), -1.0f);
  const U4Columns w{packed.data(), w_scale.data(), uniform ? nullptr : zero.data(), 8.0f, cols, blocks, block};
  const Int8BlockRows rows{values.data(), a_scale.data(), scaled_sum.data(), sums.data()};
  if (prefill) PrefillDotU4S8(w, rows, m, y.data(), ldy);
  else ColumnsDotU4S8(w, rows, m, y.data(), ldy);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t n = 0; n < cols; ++n) {
      double want = 0;
      for (int64_t b = 0; b < blocks; ++b) {
        const size_t wb = static_cast<size_t>(n * blocks + b);
        int64_t dot = 0;
        for (int64_t kk = 0; kk < block; ++kk) {
          const int nibble =
              (packed[wb * static_cast<size_t>(bytes) + static_cast<size_t>(kk / 2)] >> (4 * (kk % 2))) & 15;
          dot += (nibble - static_cast<int64_t>(zero[wb])) *
                 values[static_cast<size_t>((r * blocks + b) * block + Int8Position(order, block, kk))];
        }
        want += static_cast<double>(w_scale[wb]) * a_scale[static_cast<size_t>(r * blocks + b)] *
                static_cast<double>(dot);
      }
      EXPECT_NEAR(y[static_cast<size_t>(r * ldy + n)], want, 1e-5 * (1 + std::fabs(want)))
          << (prefill ? "prefill" : "decode") << ", block " << block << ", row " << r << " of " << m << ", column "
          << n;
    }
    EXPECT_EQ(y[static_cast<size_t>(r * ldy + cols)], -1.0f);  // past the columns: untouched
  }
}

// On every target: every block size, a decode step's 1..4 rows and a
// prefill's rows (tiles of 4 and a remainder), both kinds of zero points.
TEST(SimdNBitsInt8, DecodeAndPrefillProductsMatchTheQuantizedSum) {
  test::OnEverySimdTarget([] {
    for (int64_t block : {16, 32, 64, 128, 256})
      for (bool uniform : {false, true}) {
        for (int64_t m = 1; m <= 4; ++m) CheckInt8Products(false, block, m, uniform);
        for (int64_t m : {1, 5, 9}) CheckInt8Products(true, block, m, uniform);
      }
  });
}

// accuracy_level 4 quantizes A to int8 per block, so the result may differ
// from the exact product by at most sum_k |w_k| * s_b / 2 (s_b A's block
// scale: each value is rounded to its nearest step), on 1 and 2 threads,
// where the int8 passes pay (a decode step on x86 from SSSE3, a prefill
// (M = 9) from AVX2); elsewhere A stays float and the result exact.
TEST(MatMulNBits, AccuracyLevel4DecodeStaysWithinTheInt8RoundingBound) {
  test::OnEverySimdTarget([] {
    const int64_t n = 40, k = 80, block = 32, blocks = 3, bytes = 16;
    std::vector<uint8_t> q(static_cast<size_t>(n * blocks * bytes));
    for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<uint8_t>(i * 37 + 5);
    std::vector<float> scale(static_cast<size_t>(n * blocks));
    for (size_t i = 0; i < scale.size(); ++i) scale[i] = 0.02f * static_cast<float>(i % 5 + 1);
    for (int64_t m : {1, 3, 9}) {
      std::vector<float> a(static_cast<size_t>(m * k));
      for (size_t i = 0; i < a.size(); ++i) a[i] = std::cos(0.7f * static_cast<float>(i)) * (i % 11 == 0 ? 4.f : 1.f);
      std::vector<float> exact(static_cast<size_t>(m * n)), bound(exact.size());
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < n; ++c) {
          double sum = 0, slack = 0;
          for (int64_t b = 0; b < blocks; ++b) {
            double amax = 0;
            for (int64_t j = b * block; j < std::min(k, (b + 1) * block); ++j)
              amax = std::max(amax, std::fabs(static_cast<double>(a[static_cast<size_t>(r * k + j)])));
            for (int64_t j = b * block; j < std::min(k, (b + 1) * block); ++j) {
              const double w = (PackedValue(q, blocks * bytes, c, block, 4, j) - 8) *
                               static_cast<double>(scale[static_cast<size_t>(c * blocks + b)]);
              sum += w * a[static_cast<size_t>(r * k + j)];
              slack += std::fabs(w) * amax / 127 / 2;
            }
          }
          exact[static_cast<size_t>(r * n + c)] = static_cast<float>(sum);
          bound[static_cast<size_t>(r * n + c)] = static_cast<float>(slack + 1e-5);
        }
      test::OpTest t("MatMulNBits", 1, "com.microsoft");
      t.Attr("K", k).Attr("N", n).Attr("bits", int64_t{4}).Attr("block_size", block).Attr("accuracy_level", int64_t{4});
      t.Input("A", test::T_<float>(a, {m, k}));
      t.ConstantInput("B", test::T_<uint8_t>(q, {n, blocks, bytes}));
      t.ConstantInput("scales", test::T_<float>(scale, {n, blocks}));
      t.UncheckedOutput("Y");
      for (int threads : {1, 2}) {
        SessionOptions options;
        options.intra_op_num_threads = threads;
        Session session(t.BuildModel(), options, MakeProviders({"cpu"}));
        const Tensor got = session.Run({{"A", Value(test::T_<float>(a, {m, k}))}})[0].tensor();
        const float* y = got.data<float>();
        bool differs = false;
        for (size_t i = 0; i < exact.size(); ++i) {
          EXPECT_LE(std::fabs(y[i] - exact[i]), bound[i]) << "M " << m << ", element " << i << ", " << threads;
          differs = differs || std::fabs(y[i] - exact[i]) > 1e-5f;
        }
        // The int8 path ran where it should: rounding A shows in some output.
        EXPECT_EQ(differs, m <= 4 ? Int8DecodePays() : Int8PrefillPays()) << "M " << m;
      }
    }
  });
}

}  // namespace
}  // namespace tessera::cpu
