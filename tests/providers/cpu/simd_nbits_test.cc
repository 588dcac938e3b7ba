// RowDotNBits and SlotBlockNBits (simd_nbits.h) against the definition on
// every SIMD target, and MatMulNBits's checks of its inputs.
#include "tessera/providers/cpu/simd_nbits.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "support/op_test.h"
#include "support/simd_targets.h"

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

}  // namespace
}  // namespace tessera::cpu
