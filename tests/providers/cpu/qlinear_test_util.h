// Helpers for the com.microsoft QLinear kernel tests: seeded 8-bit tensors,
// the dequantize / quantize reference formulas written out, a one-node
// com.microsoft model run on the CPU EP, and a check that a result is within
// one quantization step of its reference (counting the exact elements).
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera::test::qlinear {

inline Tensor Bytes(DataType t, Shape s, uint32_t seed) {
  Tensor out(t, std::move(s));
  std::mt19937 gen(seed);
  for (int64_t i = 0; i < out.numel(); ++i) static_cast<uint8_t*>(out.raw_data())[i] = static_cast<uint8_t>(gen());
  return out;
}
inline Tensor ScaleT(float v) { return Tensor::FromVector<float>({v}, {}); }
inline Tensor ZeroT(DataType t, int v) {
  Tensor z(t, {});
  static_cast<uint8_t*>(z.raw_data())[0] = static_cast<uint8_t>(v);
  return z;
}
// Element i of an int8/uint8 tensor.
inline int Q(const Tensor& t, int64_t i) {
  const uint8_t b = static_cast<const uint8_t*>(t.raw_data())[i];
  return t.dtype() == DataType::kInt8 ? static_cast<int8_t>(b) : b;
}
// The ONNX formulas, in float as QuantizeLinear / DequantizeLinear have them.
inline float Dq(int q, float s, int z) { return static_cast<float>(q - z) * s; }
inline int Qz(float v, float s, int z, bool is_signed) {
  float q = v / s;
  if (q != q) q = 0;
  q = std::nearbyint(std::clamp(q, -1e7f, 1e7f)) + static_cast<float>(z);
  return static_cast<int>(std::clamp(q, is_signed ? -128.f : 0.f, is_signed ? 127.f : 255.f));
}

struct Operand {
  std::string name;
  Tensor value;
  bool constant = false;  // an initializer, else a graph input fed at run time
};

// Runs one com.microsoft node over `inputs` ("" for an omitted one) and
// returns its output.
inline Tensor RunNode(const std::string& op, const std::vector<Operand>& inputs, std::vector<Attribute> attrs = {},
                      int threads = 1) {
  Node n = MakeNode("node", op, {}, {"y"});
  n.domain = "com.microsoft";
  n.attributes = std::move(attrs);
  std::vector<ValueInfo> ins;
  Feeds feeds;
  for (const Operand& o : inputs) {
    n.inputs.push_back(o.name);
    if (o.name.empty() || o.constant) continue;
    Shape s = o.value.shape();
    ins.push_back(TensorInfo(o.name, o.value.dtype(), std::vector<int64_t>(s.begin(), s.end())));
    feeds.push_back({o.name, o.value});
  }
  Model m = MakeModel({n}, ins, {ValueInfo{"y", TypeInfo{}, ""}}, 17);
  m.opset_imports.push_back({"com.microsoft", 1});
  for (const Operand& o : inputs)
    if (!o.name.empty() && o.constant) m.graph->initializers[o.name] = o.value;
  SessionOptions so;
  so.intra_op_num_threads = threads;
  Session s(std::move(m), so, MakeProviders({"cpu"}));
  std::vector<Value> out = s.Run(feeds);
  return out.at(0).tensor();
}

// Expects got within one step of want everywhere, and at least
// `min_exact` of the elements equal; returns the exact fraction.
inline double ExpectWithinOneStep(const Tensor& got, const std::vector<int>& want, double min_exact = 0.9) {
  EXPECT_EQ(got.numel(), static_cast<int64_t>(want.size()));
  if (got.numel() != static_cast<int64_t>(want.size())) return 0;
  int64_t exact = 0, far = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const int d = std::abs(Q(got, i) - want[static_cast<size_t>(i)]);
    exact += d == 0;
    if (d > 1 && far++ < 5) ADD_FAILURE() << "element " << i << ": got " << Q(got, i) << ", want " << want[static_cast<size_t>(i)];
  }
  const double fraction = got.numel() ? static_cast<double>(exact) / static_cast<double>(got.numel()) : 1.0;
  EXPECT_GE(fraction, min_exact);
  return fraction;
}

}  // namespace tessera::test::qlinear
