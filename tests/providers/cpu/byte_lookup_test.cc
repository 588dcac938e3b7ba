// LookupBytes (byte_lookup.h) against table[x[i]]: every index value, every
// length around the 64- and 32-byte vectors (the tails), on the VBMI path
// or the AVX2 one where this machine and the cap allow them, and on the
// plain loop under the ISA matrix's caps.
#include "tessera/providers/cpu/byte_lookup.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace tessera::cpu {
namespace {

TEST(ByteLookup, MatchesTheTableForEveryIndexAndLength) {
  std::vector<uint8_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 167 + 29) ^ (i >> 3));
  std::vector<uint8_t> x(600);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>(i * 97 + (i >> 2));
  for (int64_t n : {0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 200, 256, 600}) {
    std::vector<uint8_t> y(static_cast<size_t>(n) + 1, 0xAB);
    LookupBytes(table.data(), x.data(), n, y.data());
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[static_cast<size_t>(i)], table[x[static_cast<size_t>(i)]]) << "length " << n << " at " << i;
    EXPECT_EQ(y[static_cast<size_t>(n)], 0xAB) << "writes past n";
  }
  // All 256 index values in one call.
  std::vector<uint8_t> all(256), out(256);
  for (int i = 0; i < 256; ++i) all[static_cast<size_t>(i)] = static_cast<uint8_t>(255 - i);
  LookupBytes(table.data(), all.data(), 256, out.data());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], table[static_cast<size_t>(255 - i)]) << i;
  RecordProperty("path", LookupBytesUsesVbmi() ? "vbmi" : LookupBytesUsesAvx2() ? "avx2" : "loop");
}

}  // namespace
}  // namespace tessera::cpu
