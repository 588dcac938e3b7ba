// Helpers for the fusion-pass tests: seeded inputs, string/float-list
// attributes, and a check that one pass keeps a model's results.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "optimizer/optimizer_test_util.h"
#include "tessera/optimizer/fusion_passes.h"

namespace tessera::test {

inline Tensor RandomFloats(Shape s, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(DataType::kFloat, std::move(s));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

inline Tensor Scalar(float v) { return Tensor::FromVector<float>({v}, {}); }

inline const Node* FindOp(const Graph& g, const std::string& op) {
  for (const auto& n : g.nodes)
    if (n.op_type == op) return &n;
  return nullptr;
}

inline std::string AttrS(const Node& n, const std::string& name) {
  const Attribute* a = n.FindAttribute(name);
  return a ? a->s : "";
}

// Applies `pass` to a copy of m (validated), runs both unoptimized and
// expects the same outputs; returns the rewritten model and the count.
inline Model ApplyAndCompare(const GraphPass& pass, const Model& m, const Feeds& feeds, int* changes,
                             double rtol = 1e-5, double atol = 1e-6) {
  Model opt = CopyModel(m);
  *changes = ApplyPass(pass, opt);
  // As the pass manager does once a fused node appears.
  for (const char* domain : {kTesseraDomain, kMicrosoftDomain})
    if (opt.OpsetFor(domain) < 0) opt.opset_imports.push_back({domain, 1});
  std::vector<Value> want = RunUnoptimized(m, feeds), got = RunUnoptimized(opt, feeds);
  EXPECT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    CompareResult c = CompareValues(got[i], want[i], rtol, atol);
    EXPECT_TRUE(c.match) << "output " << i << ": " << c.message;
  }
  return opt;
}

}  // namespace tessera::test
