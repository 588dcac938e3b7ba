// Builders for the QDQ-to-QLinear pass tests: Q / DQ nodes with constant
// scalar parameters, seeded 8-bit inputs, and the verbose log of a pass.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "optimizer/fuse_test_util.h"

namespace tessera::test {

inline Tensor QBytes(DataType t, Shape s, uint32_t seed) {
  Tensor out(t, std::move(s));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < out.numel(); ++i) static_cast<uint8_t*>(out.raw_data())[i] = static_cast<uint8_t>(gen());
  return out;
}

inline Tensor ZeroPoint(DataType t, int v) {
  Tensor z(t, {});
  static_cast<uint8_t*>(z.raw_data())[0] = static_cast<uint8_t>(v);
  return z;
}

// A DequantizeLinear (or QuantizeLinear) of `in` to `out` whose parameters
// are initializers `out`_s and `out`_z.
inline Node QdqNode(Model& m, const char* op, const std::string& in, const std::string& out, float scale, DataType t,
                    int zero) {
  m.graph->initializers[out + "_s"] = Scalar(scale);
  m.graph->initializers[out + "_z"] = ZeroPoint(t, zero);
  return MakeNode(out + "_node", op, {in, out + "_s", out + "_z"}, {out});
}

// Runs `pass` on a copy of m with a verbose logger and returns the log.
inline std::string PassLog(const GraphPass& pass, const Model& m) {
  std::string log;
  SetLogSink([&](const std::string&, Severity, const std::string& msg) { log += msg + "\n"; });
  Logger logger("test", Severity::kVerbose);
  Model c = CopyModel(m);
  PassContext ctx = CpuContext(c);
  ctx.logger = &logger;
  ctx.pass_providers = pass.providers();
  pass.Apply(*c.graph, {}, ctx);
  SetLogSink(nullptr);
  return log;
}

// Integer outputs compare exactly in CompareValues: this allows the one
// quantization step the fused groups may differ by.
inline void ExpectWithinOneStep(const Value& got, const Value& want) {
  const Tensor& g = got.tensor();
  const Tensor& w = want.tensor();
  ASSERT_EQ(g.shape(), w.shape());
  int64_t off = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const int64_t d = std::abs(g.GetAsInt64(i) - w.GetAsInt64(i));
    EXPECT_LE(d, 1) << "element " << i;
    off += d != 0;
  }
  EXPECT_LE(off * 10, g.numel()) << off << " of " << g.numel() << " elements differ by a step";
}

// Applies `pass` to a copy of m and expects the same outputs within one step.
inline Model ApplyAndCompareQ(const GraphPass& pass, const Model& m, const Feeds& feeds, int* changes) {
  Model opt = CopyModel(m);
  *changes = ApplyPass(pass, opt);
  for (const char* domain : {kTesseraDomain, kMicrosoftDomain})
    if (opt.OpsetFor(domain) < 0) opt.opset_imports.push_back({domain, 1});
  const std::vector<Value> want = RunUnoptimized(m, feeds), got = RunUnoptimized(opt, feeds);
  EXPECT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) ExpectWithinOneStep(got[i], want[i]);
  return opt;
}

}  // namespace tessera::test
