// Int8GemmS32 (int8_gemm.h) against a scalar reference on every SIMD target:
// every pairing of int8 and uint8 operands, values and zero points at the
// ends of their ranges (where a 16-bit pair sum would saturate), K odd and
// across the k-blocks, M = 1 and row counts around the tile height, columns
// off the panel width, per-row and per-column zero points, column ranges,
// and the pooled split.
#include "tessera/providers/cpu/int8_gemm.h"

#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/int8_forms.h"
#include "support/simd_targets.h"
#include "tessera/providers/cpu/simd_int32.h"
#include "tessera/base/thread_pool.h"

namespace tessera::cpu {
namespace {

struct Operand {
  bool is_signed;
  std::vector<uint8_t> bytes;  // int8 values stored as their bytes when signed
  int32_t At(size_t i) const { return is_signed ? static_cast<int8_t>(bytes[i]) : bytes[i]; }
};

// Random bytes with runs at the range ends (the saturating case).
Operand Make(bool is_signed, size_t n, uint32_t seed, bool extremes) {
  std::mt19937 rng(seed);
  Operand o{is_signed, std::vector<uint8_t>(n)};
  for (size_t i = 0; i < n; ++i) {
    uint8_t v = static_cast<uint8_t>(rng());
    if (extremes) v = is_signed ? (rng() % 2 ? 0x80 : 0x7f) : (rng() % 2 ? 0 : 255);
    o.bytes[i] = v;
  }
  return o;
}

std::vector<int32_t> Reference(int64_t m, int64_t n, int64_t k, const Operand& a, const std::vector<int32_t>& za,
                               const Operand& b, const std::vector<int32_t>& zb) {
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t p = 0; p < k; ++p)
        s += int64_t{a.At(static_cast<size_t>(i * k + p)) - za[za.size() == 1 ? 0 : static_cast<size_t>(i)]} *
             (b.At(static_cast<size_t>(p * n + j)) - zb[zb.size() == 1 ? 0 : static_cast<size_t>(j)]);
      c[static_cast<size_t>(i * n + j)] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(s)));
    }
  return c;
}

struct Shape3 {
  int64_t m, n, k;
};

// Both forms where the CPU has VNNI: pairs (0), quads with vpdpbusd (-1).
class VnniChoices : public testing::TestWithParam<int> {
 protected:
  void SetUp() override { SetInt8GemmVnniForTest(GetParam()); }
  void TearDown() override { SetInt8GemmVnniForTest(-1); }
};

const Shape3 kShapes[] = {{1, 1, 1},   {1, 40, 257}, {5, 16, 3},  {6, 17, 256}, {7, 33, 513},
                          {13, 48, 64}, {25, 5, 31},  {200, 20, 40}, {9, 32, 1030}};

// One product of the exactness sweep: operands (seeded, or at the range
// ends) and zero points per row / column at the opposite range end.
struct Case {
  Shape3 s;
  bool a_signed, b_signed;
  Operand a, b;
  std::vector<int32_t> za, zb;
};

// Calls body(case) on every target for every pairing of int8 and uint8
// operands, random and range-end values, and every shape of kShapes.
template <typename Body>
void ForEveryCase(uint32_t seed, const Body& body) {
  test::OnEverySimdTarget([&] {
    for (bool a_signed : {false, true})
      for (bool b_signed : {false, true})
        for (bool extremes : {false, true})
          for (const Shape3& s : kShapes) {
            SCOPED_TRACE(testing::Message() << (a_signed ? "s8" : "u8") << (b_signed ? "s8" : "u8") << " " << s.m
                                            << "x" << s.n << "x" << s.k << (extremes ? " at the range ends" : ""));
            Case c{s, a_signed, b_signed, Make(a_signed, static_cast<size_t>(s.m * s.k), seed, extremes),
                   Make(b_signed, static_cast<size_t>(s.k * s.n), seed + 1, extremes),
                   std::vector<int32_t>(static_cast<size_t>(s.m)), std::vector<int32_t>(static_cast<size_t>(s.n))};
            for (size_t i = 0; i < c.za.size(); ++i) c.za[i] = a_signed ? (i % 2 ? 127 : -128) : (i % 2 ? 255 : 0);
            for (size_t j = 0; j < c.zb.size(); ++j) c.zb[j] = b_signed ? (j % 3 ? -128 : 5) : (j % 3 ? 255 : 7);
            body(c);
          }
  });
}

TEST_P(VnniChoices, MatchesTheExactIntegerProductOnEveryTarget) {
  ForEveryCase(1, [](const Case& c) {
    const Shape3& s = c.s;
    for (bool per_line : {false, true}) {
      const std::vector<int32_t> za_used = per_line ? c.za : std::vector<int32_t>{c.za.back()};
      const std::vector<int32_t> zb_used = per_line ? c.zb : std::vector<int32_t>{c.zb.front()};
      PackedInt8B packed(c.b_signed, s.k, s.n, c.b.bytes.data(), s.n, {zb_used.data(), per_line});
      std::vector<int32_t> out(static_cast<size_t>(s.m * s.n), -7);
      Int8GemmS32(s.m, 0, s.n, c.a_signed, c.a.bytes.data(), s.k, {za_used.data(), per_line}, packed, out.data(), s.n);
      EXPECT_EQ(out, Reference(s.m, s.n, s.k, c.a, za_used, c.b, zb_used)) << (per_line ? "per line" : "one each");
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Int8Gemm, VnniChoices, testing::Values(0, -1),
                         [](const testing::TestParamInfo<int>& p) { return p.param == 0 ? "Pairs" : "Quads"; });

// B packed as quads under an AVX-512 VNNI target, run under every target
// (the portable quad loop where VNNI is not dispatched).
TEST(Int8Gemm, QuadsPackedUnderOneTargetRunUnderAnother) {
  std::vector<int64_t> targets = test::SimdTargetsToTest();
  std::unique_ptr<PackedInt8B> packed;
  const int64_t m = 14, n = 35, k = 263;
  const Operand a = Make(true, static_cast<size_t>(m * k), 8, true), b = Make(false, static_cast<size_t>(k * n), 9, true);
  std::vector<int32_t> za(static_cast<size_t>(m)), zb = {250};
  for (size_t i = 0; i < za.size(); ++i) za[i] = i % 2 ? 127 : -128;
  {
    test::ScopedSimdTarget best(targets.front());
    packed = std::make_unique<PackedInt8B>(false, k, n, b.bytes.data(), n, ZeroPoints{zb.data(), false});
  }
  if (!packed->quads()) GTEST_SKIP() << "no AVX512_VNNI here: B was packed as pairs";
  const std::vector<int32_t> want = Reference(m, n, k, a, za, b, zb);
  test::OnEverySimdTarget([&] {
    std::vector<int32_t> c(static_cast<size_t>(m * n), 3);
    Int8GemmS32(m, 0, n, true, a.bytes.data(), k, {za.data(), true}, *packed, c.data(), n);
    EXPECT_EQ(c, want);
  });
}

TEST(Int8Gemm, VnniFollowsTheChoice) {
  SetInt8GemmVnniForTest(0);
  EXPECT_FALSE(Int8GemmUsesVnni());
  SetInt8GemmVnniForTest(-1);
}

TEST(Int8Gemm, ColumnRangesAndThePooledSplitWriteTheSameProduct) {
  const int64_t m = 9, n = 70, k = 300;
  const Operand a = Make(false, static_cast<size_t>(m * k), 3, false), b = Make(true, static_cast<size_t>(k * n), 4, false);
  const std::vector<int32_t> za = {128}, zb = {-3};
  PackedInt8B packed(true, k, n, b.bytes.data(), n, {zb.data(), false});
  const std::vector<int32_t> want = Reference(m, n, k, a, za, b, zb);
  std::vector<int32_t> c(static_cast<size_t>(m * n), 0);
  for (int64_t j0 = 0; j0 < n; j0 += 2 * PackedInt8B::kPanel)
    Int8GemmS32(m, j0, std::min(n, j0 + 2 * PackedInt8B::kPanel), false, a.bytes.data(), k, {za.data(), false}, packed,
                c.data(), n);
  EXPECT_EQ(c, want);
  ThreadPool pool(2);
  for (int64_t rows : {m, int64_t{400}}) {  // columns split, then rows (taller than wide)
    const Operand tall = Make(false, static_cast<size_t>(rows * k), 5, false);
    std::vector<int32_t> got(static_cast<size_t>(rows * n), 0);
    Int8GemmS32Pooled(&pool, rows, false, tall.bytes.data(), k, {za.data(), false}, packed, got.data(), n);
    EXPECT_EQ(got, Reference(rows, n, k, tall, za, b, zb)) << rows << " rows";
  }
}

// B packed with its panels split over a pool, A packed once as the
// convolutions pack their weights, per-line zero points: the same product on
// every target and in both forms, split by columns and by rows.
TEST_P(VnniChoices, PooledPackingAndPackedWeightsGiveTheExactProduct) {
  const int64_t n = 40 * PackedInt8B::kPanel + 5, k = 301;
  ThreadPool pool(2);
  test::OnEverySimdTarget([&] {
    for (int64_t m : {int64_t{7}, int64_t{1000}}) {  // columns split, then rows (taller than wide)
      SCOPED_TRACE(testing::Message() << m << " rows");
      const Operand a = Make(true, static_cast<size_t>(m * k), 11, false);
      const Operand b = Make(false, static_cast<size_t>(k * n), 12, false);
      std::vector<int32_t> za(static_cast<size_t>(m)), zb(static_cast<size_t>(n));
      for (size_t i = 0; i < za.size(); ++i) za[i] = static_cast<int32_t>(i % 7) - 3;
      for (size_t j = 0; j < zb.size(); ++j) zb[j] = static_cast<int32_t>(j % 250);
      PackedInt8B packed;
      packed.Repack(false, k, n, b.bytes.data(), n, {zb.data(), true}, &pool);
      const PackedInt8A packed_a(true, m, k, a.bytes.data(), k, {za.data(), true});
      std::vector<int32_t> c(static_cast<size_t>(m * n), -1);
      Int8GemmS32Pooled(&pool, m, true, a.bytes.data(), k, {za.data(), true}, packed, c.data(), n, nullptr, &packed_a);
      EXPECT_EQ(c, Reference(m, n, k, a, za, b, zb));
    }
  });
}

// B packed block by block as the product goes (the convolutions' path):
// every form on every target, over a pool and on the calling thread, wide
// and tall outputs, A packed or not, weights' zero points all 0 or not,
// sums and requantized bytes alike.
TEST(Int8Gemm, PackingBAsItMultipliesGivesTheExactProduct) {
  const int64_t n = 45 * PackedInt8B::kPanel + 9, k = 299;
  ThreadPool pool(2);
  for (const test::Int8Form& form : test::kInt8Forms) {
    const test::ScopedInt8Form scoped(form);
    test::OnEverySimdTarget([&] {
      for (int64_t m : {int64_t{13}, int64_t{900}})  // blocks of columns, then rows (too few panels to share)
        for (ThreadPool* p : {&pool, static_cast<ThreadPool*>(nullptr)})
          for (bool a_packed : {true, false})
            for (bool symmetric : {false, true}) {  // weights' zero points all 0: B's column sums skipped
              SCOPED_TRACE(testing::Message() << form.name << ", " << m << " rows" << (p ? ", pooled" : "")
                                              << (a_packed ? ", A packed" : "") << (symmetric ? ", symmetric" : ""));
              const int64_t cols = m > 100 ? 3 * PackedInt8B::kPanel : n;
              const Operand a = Make(true, static_cast<size_t>(m * k), 41, false);
              const Operand b = Make(false, static_cast<size_t>(k * cols), 42, true);
              std::vector<int32_t> za(static_cast<size_t>(m)), zb = {37};
              for (size_t i = 0; i < za.size(); ++i) za[i] = symmetric ? 0 : static_cast<int32_t>(i % 5) - 2;
              std::vector<const uint8_t*> rows(static_cast<size_t>(k));
              for (int64_t r = 0; r < k; ++r) rows[static_cast<size_t>(r)] = b.bytes.data() + r * cols;
              const PackedInt8A packed_a(true, m, k, a.bytes.data(), k, {za.data(), true});
              const std::vector<int32_t> want = Reference(m, cols, k, a, za, b, zb);
              PackedInt8B packed;
              std::vector<int32_t> c(static_cast<size_t>(m * cols), -1);
              Int8GemmPackingBPooled(p, m, true, a.bytes.data(), k, {za.data(), true}, a_packed ? &packed_a : nullptr,
                                     false, k, cols, rows.data(), {zb.data(), false}, packed, c.data(), cols);
              EXPECT_EQ(c, want);
              // Requantized: bytes as RequantizeOne gives them from the sums.
              std::vector<double> scale(static_cast<size_t>(m), 1.0 / 4096);
              std::vector<uint8_t> got(static_cast<size_t>(m * cols), 0), bytes(got.size());
              for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = RequantizeOne(want[i], 0, 1.0 / 4096, 100, false);
              const Int8Requant rq{nullptr, scale.data(), 100, false, got.data(), cols};
              Int8GemmPackingBPooled(p, m, true, a.bytes.data(), k, {za.data(), true}, a_packed ? &packed_a : nullptr,
                                     false, k, cols, rows.data(), {zb.data(), false}, packed, c.data(), cols, &rq);
              EXPECT_EQ(got, bytes);
            }
    });
  }
}

// Weights packed under the best target and run under each (the pair tile
// height differs between targets: a product then packs A itself).
TEST(Int8Gemm, WeightsPackedUnderOneTargetRunUnderAnother) {
  std::vector<int64_t> targets = test::SimdTargetsToTest();
  const int64_t m = 31, n = 50, k = 77;
  const Operand a = Make(false, static_cast<size_t>(m * k), 13, true), b = Make(true, static_cast<size_t>(k * n), 14, true);
  const std::vector<int32_t> za = {3}, zb = {-128};
  std::unique_ptr<PackedInt8A> packed_a;
  {
    test::ScopedSimdTarget best(targets.front());
    packed_a = std::make_unique<PackedInt8A>(false, m, k, a.bytes.data(), k, ZeroPoints{za.data(), false});
  }
  const std::vector<int32_t> want = Reference(m, n, k, a, za, b, zb);
  test::OnEverySimdTarget([&] {
    const PackedInt8B packed(true, k, n, b.bytes.data(), n, {zb.data(), false});
    std::vector<int32_t> c(static_cast<size_t>(m * n), 5);
    Int8GemmS32(m, 0, n, false, a.bytes.data(), k, {za.data(), false}, packed, c.data(), n, nullptr, packed_a.get());
    EXPECT_EQ(c, want);
  });
}

// The byte-quad form (int8_gemm_maddubs.h), forced on every target: A
// packed once (its saturating weight pairs split), or not packed (the
// product packs it), with the range ends where vpmaddubsw would saturate.
TEST(ByteQuads, MatchesTheExactIntegerProductOnEveryTarget) {
  const test::ScopedInt8Form byte_quads(test::kByteQuadsForm);
  ForEveryCase(21, [](const Case& c) {
    const Shape3& s = c.s;
    const PackedInt8A packed_a(c.a_signed, s.m, s.k, c.a.bytes.data(), s.k, {c.za.data(), true});
    ASSERT_NE(packed_a.byte_quads(), nullptr);
    PackedInt8B packed;
    packed.Repack(c.b_signed, s.k, s.n, c.b.bytes.data(), s.n, {c.zb.data(), true}, nullptr, &packed_a);
    ASSERT_TRUE(packed.byte_quads());
    const std::vector<int32_t> want = Reference(s.m, s.n, s.k, c.a, c.za, c.b, c.zb);
    for (bool a_packed : {true, false}) {
      std::vector<int32_t> out(static_cast<size_t>(s.m * s.n), -7);
      Int8GemmS32(s.m, 0, s.n, c.a_signed, c.a.bytes.data(), s.k, {c.za.data(), true}, packed, out.data(), s.n,
                  nullptr, a_packed ? &packed_a : nullptr);
      EXPECT_EQ(out, want) << (a_packed ? "A packed once" : "A packed by the product");
    }
  });
}

// Requantized in each form's store: bytes as RequantizeOne gives them from
// the exact sums, scales that put many sums on half steps (the float lanes
// must defer to the double formula there), K past one k-block, partial
// panels and tiles, int8 and uint8 out.
TEST(Int8Gemm, RequantizesInTheStoreAsTheDoubleFormula) {
  const int64_t m = 7, n = 37, k = 1100;  // two k-blocks in every form
  const Operand a = Make(true, static_cast<size_t>(m * k), 31, false), b = Make(false, static_cast<size_t>(k * n), 32, false);
  const std::vector<int32_t> za = {0}, zb = {128};
  const std::vector<int32_t> sums = Reference(m, n, k, a, za, b, zb);
  std::vector<int32_t> bias(static_cast<size_t>(m));
  std::vector<double> scale(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    bias[static_cast<size_t>(i)] = static_cast<int32_t>(i * 301 - 900);
    scale[static_cast<size_t>(i)] = i % 2 ? 0.5 / 64 : 1.0 / (300.0 + static_cast<double>(i));  // 2^-7: half steps
  }
  for (const test::Int8Form& form : test::kInt8Forms) {
    const test::ScopedInt8Form scoped(form);
    const PackedInt8A packed_a(true, m, k, a.bytes.data(), k, {za.data(), false});
    PackedInt8B packed;
    packed.Repack(false, k, n, b.bytes.data(), n, {zb.data(), false}, nullptr, &packed_a);
    for (bool out_signed : {false, true}) {
      SCOPED_TRACE(testing::Message() << form.name << (out_signed ? ", s8" : ", u8"));
      const int32_t zero = out_signed ? -5 : 120;
      std::vector<uint8_t> got(static_cast<size_t>(m * n), 0), want(got.size());
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          want[static_cast<size_t>(i * n + j)] = RequantizeOne(sums[static_cast<size_t>(i * n + j)],
                                                               bias[static_cast<size_t>(i)],
                                                               scale[static_cast<size_t>(i)], zero, out_signed);
      const Int8Requant rq{bias.data(), scale.data(), zero, out_signed, got.data(), n};
      std::vector<int32_t> scratch(static_cast<size_t>(m * n));
      Int8GemmS32(m, 0, n, true, a.bytes.data(), k, {za.data(), false}, packed, scratch.data(), n, &rq, &packed_a);
      EXPECT_EQ(got, want);
    }
  }
}

// The transposed product's way back: every element in place, shapes on
// and off the 8 x 8 blocks, over a pool, on every target.
TEST(Int8Gemm, TransposeInt32MovesEveryElement) {
  ThreadPool pool(2);
  test::OnEverySimdTarget([&] {
    for (const auto& [rows, cols] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {8, 8}, {13, 37}, {768, 40}}) {
      std::vector<int32_t> src(static_cast<size_t>(rows * cols)), dst(src.size(), -1);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int32_t>(i * 2654435761u);
      TransposeInt32(src.data(), rows, cols, dst.data(), &pool);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          ASSERT_EQ(dst[static_cast<size_t>(c * rows + r)], src[static_cast<size_t>(r * cols + c)])
              << rows << "x" << cols << " at " << r << "," << c;
    }
  });
}

TEST(Int8Gemm, EmptyKGivesZeros) {
  const std::vector<uint8_t> none;
  PackedInt8B packed(false, 0, 3, none.data(), 3, {});
  std::vector<int32_t> c(6, 9);
  Int8GemmS32(2, 0, 3, false, none.data(), 0, {}, packed, c.data(), 3);
  EXPECT_EQ(c, std::vector<int32_t>(6, 0));
}

}  // namespace
}  // namespace tessera::cpu
