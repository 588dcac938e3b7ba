// Fuzz harness (fuzz_model_inputs.cc, and the regression test): fixed valid
// models (built here, in memory) fed input tensors decoded from the fuzz
// bytes: which model, then for each graph input its dtype (usually the
// declared one), rank, dims and values. Any
// tessera::Error is an accepted outcome; a crash, sanitizer report, other
// exception, timeout or OOM is a bug.
//
// Byte layout: [model] [flags] then per input [dtype] [rank] [dims...]
// [values...]; missing bytes read as zero. Ranks and dims are capped per input
// (a shape operand gets at most 4 small values) so that ops whose output
// size comes from values (Expand, Tile, Pad, OneHot) stay small: those are
// harness caps, not runtime limits.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tests/support/model_builder.h"
#include "tessera/base/status.h"
#include "tessera/runtime/session.h"

namespace tessera_fuzz {

using tessera::Attribute;
using tessera::AttributeType;
using tessera::DataType;
using tessera::Dim;
using tessera::Node;
using tessera::TypeInfo;
using tessera::ValueInfo;
using tessera::test::IntAttr;
using tessera::test::IntsAttr;
using tessera::test::StrAttr;

// How one graph input is decoded.
enum class Kind {
  kData,   // any rank <= 4, dims <= 6, values anywhere
  kShape,  // rank 1, <= 4 values in [-4, 11] (floats in [0, 3.75]): shapes, repeats, pads, axes, scales
  kIndex,  // rank <= 3, dims <= 6, values in [-128, 127]
  kScalar, // rank 0 or 1 (one element), values in [-4, 11]
};

struct InputSpec {
  std::string name;
  DataType dtype;
  Kind kind = Kind::kData;
};

struct Case {
  std::vector<InputSpec> inputs;
  std::unique_ptr<tessera::Session> session;
};

inline Node MakeNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
              std::vector<Attribute> attrs = {}) {
  Node n;
  n.name = op + "_node";
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attributes = std::move(attrs);
  return n;
}

// Inputs are declared with unknown rank, so every shape reaches the kernels
// (feed validation is exercised through the dtype byte instead).
inline tessera::Model MakeModel(const std::vector<InputSpec>& inputs, std::vector<Node> nodes,
                         const std::vector<std::pair<std::string, DataType>>& outputs) {
  tessera::Model m;
  m.ir_version = 8;
  m.opset_imports.push_back({tessera::kOnnxDomain, 17});
  m.opset_imports.push_back({tessera::kMicrosoftDomain, 1});
  m.graph = std::make_shared<tessera::Graph>();
  m.graph->name = "fuzz_" + nodes.front().op_type;
  m.graph->nodes = std::move(nodes);
  for (const auto& in : inputs) m.graph->inputs.push_back(ValueInfo{in.name, TypeInfo::Tensor(in.dtype), ""});
  for (const auto& [name, dtype] : outputs) m.graph->outputs.push_back(ValueInfo{name, TypeInfo::Tensor(dtype), ""});
  return m;
}

// ONNX Runtime's contrib ops: their packed formats (4-bit weights, KV caches,
// masks in several forms) meet arbitrary shapes and values.
inline Node MsNode(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                   std::vector<Attribute> attrs = {}) {
  Node n = MakeNode(op, std::move(in), std::move(out), std::move(attrs));
  n.domain = tessera::kMicrosoftDomain;
  return n;
}

inline std::vector<Case> BuildCases() {
  constexpr DataType F = DataType::kFloat;
  constexpr DataType I64 = DataType::kInt64;
  constexpr DataType I32 = DataType::kInt32;
  struct Def {
    std::vector<InputSpec> inputs;
    std::vector<Node> nodes;
    std::vector<std::pair<std::string, DataType>> outputs;
  };
  std::vector<Def> defs = {
      {{{"x", F}, {"y", F}}, {MakeNode("Add", {"x", "y"}, {"s"}), MakeNode("Relu", {"s"}, {"z"})}, {{"z", F}}},
      {{{"a", F}, {"b", F}}, {MakeNode("MatMul", {"a", "b"}, {"c"})}, {{"c", F}}},
      {{{"x", F}, {"shape", I64, Kind::kShape}}, {MakeNode("Reshape", {"x", "shape"}, {"y"})}, {{"y", F}}},
      {{{"data", F}, {"idx", I64, Kind::kIndex}},
       {MakeNode("Gather", {"data", "idx"}, {"y"}, {IntAttr("axis", 1)})}, {{"y", F}}},
      {{{"x", F}, {"starts", I64, Kind::kShape}, {"ends", I64, Kind::kShape}, {"axes", I64, Kind::kShape},
        {"steps", I64, Kind::kShape}},
       {MakeNode("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"w", F}, {"b", F}}, {MakeNode("Conv", {"x", "w", "b"}, {"y"})}, {{"y", F}}},
      {{{"a", F}, {"b", F}}, {MakeNode("Concat", {"a", "b"}, {"c"}, {IntAttr("axis", 1)})}, {{"c", F}}},
      {{{"x", F}}, {MakeNode("Transpose", {"x"}, {"y"}, {IntsAttr("perm", {1, 0, 2})})}, {{"y", F}}},
      {{{"x", F}, {"shape", I64, Kind::kShape}}, {MakeNode("Expand", {"x", "shape"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"k", I64, Kind::kScalar}}, {MakeNode("TopK", {"x", "k"}, {"v", "i"})}, {{"v", F}, {"i", I64}}},
      {{{"x", F}, {"pads", I64, Kind::kShape}, {"value", F, Kind::kScalar}},
       {MakeNode("Pad", {"x", "pads", "value"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"axes", I64, Kind::kShape}},
       {MakeNode("ReduceSum", {"x", "axes"}, {"r"}, {IntAttr("keepdims", 0)}),
        MakeNode("Softmax", {"r"}, {"y"})},
       {{"y", F}}},
      {{{"c", DataType::kBool}, {"x", F}, {"y", F}}, {MakeNode("Where", {"c", "x", "y"}, {"z"})}, {{"z", F}}},
      {{{"x", F}},
       {MakeNode("Cast", {"x"}, {"i"}, {IntAttr("to", 6)}), MakeNode("Cast", {"x"}, {"u"}, {IntAttr("to", 2)}),
        MakeNode("Cast", {"x"}, {"h"}, {IntAttr("to", 10)})},
       {{"i", I32}, {"u", DataType::kUInt8}, {"h", DataType::kFloat16}}},
      {{{"x", F}, {"repeats", I64, Kind::kShape}}, {MakeNode("Tile", {"x", "repeats"}, {"y"})}, {{"y", F}}},
      {{{"data", F}, {"idx", I64, Kind::kIndex}, {"upd", F}},
       {MakeNode("ScatterElements", {"data", "idx", "upd"}, {"y"}, {IntAttr("axis", 0)})}, {{"y", F}}},
      {{{"idx", I64, Kind::kIndex}, {"depth", I64, Kind::kScalar}, {"values", F}},
       {MakeNode("OneHot", {"idx", "depth", "values"}, {"y"})}, {{"y", F}}},
      {{{"start", F, Kind::kScalar}, {"limit", F, Kind::kScalar}, {"delta", F, Kind::kScalar}},
       {MakeNode("Range", {"start", "limit", "delta"}, {"y"})}, {{"y", F}}},
      {{{"x", F}}, {MakeNode("MaxPool", {"x"}, {"y"}, {IntsAttr("kernel_shape", {2, 2}), IntsAttr("strides", {2, 1})})},
       {{"y", F}}},
      {{{"x", F}, {"scale", F}, {"b", F}, {"mean", F}, {"var", F}},
       {MakeNode("BatchNormalization", {"x", "scale", "b", "mean", "var"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"split", I64, Kind::kShape}},
       {MakeNode("Split", {"x", "split"}, {"p", "q"}, {IntAttr("axis", 0)})}, {{"p", F}, {"q", F}}},
      {{{"a", F}, {"b", F}},
       {MakeNode("Einsum", {"a", "b"}, {"c"}, {StrAttr("equation", "ij,jk->ik")})}, {{"c", F}}},
      {{{"x", F}, {"axis", I64, Kind::kScalar}}, {MakeNode("CumSum", {"x", "axis"}, {"y"})}, {{"y", F}}},
      {{{"data", F}, {"idx", I64, Kind::kIndex}}, {MakeNode("GatherND", {"data", "idx"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"axes", I64, Kind::kShape}},
       {MakeNode("Unsqueeze", {"x", "axes"}, {"u"}), MakeNode("Squeeze", {"u", "axes"}, {"y"})}, {{"y", F}}},
      {{{"x", F}}, {MakeNode("ArgMax", {"x"}, {"y"}, {IntAttr("axis", 1)})}, {{"y", I64}}},
      {{{"x", F}, {"scale", F}, {"b", F}},
       {MakeNode("LayerNormalization", {"x", "scale", "b"}, {"y"}, {IntAttr("axis", -1)})}, {{"y", F}}},
      {{{"a", I32, Kind::kIndex}, {"b", I32, Kind::kIndex}},
       {MakeNode("Div", {"a", "b"}, {"q"}), MakeNode("Mod", {"a", "b"}, {"r"})}, {{"q", I32}, {"r", I32}}},
      {{{"x", F}}, {MakeNode("NonZero", {"x"}, {"y"})}, {{"y", I64}}},
      {{{"x", F}}, {MakeNode("DepthToSpace", {"x"}, {"y"}, {IntAttr("blocksize", 2)})}, {{"y", F}}},
      {{{"x", F}, {"k", I64, Kind::kScalar}}, {MakeNode("Trilu", {"x", "k"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"c", DataType::kBool}}, {MakeNode("Compress", {"x", "c"}, {"y"}, {IntAttr("axis", 0)})}, {{"y", F}}},
      {{{"x", F}}, {MakeNode("Shape", {"x"}, {"s"}), MakeNode("ConstantOfShape", {"s"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"roi", F}, {"scales", F, Kind::kShape}},
       {MakeNode("Resize", {"x", "roi", "scales"}, {"y"}, {StrAttr("mode", "linear")})}, {{"y", F}}},
      {{{"x", DataType::kString}}, {MakeNode("Identity", {"x"}, {"y"})}, {{"y", DataType::kString}}},
      // com.microsoft (keep these last: a model's index is its first byte).
      {{{"a", F}, {"b", DataType::kUInt8}, {"scales", F}, {"zp", DataType::kUInt8}},
       {MsNode("MatMulNBits", {"a", "b", "scales", "zp"}, {"y"},
               {IntAttr("K", 32), IntAttr("N", 3), IntAttr("bits", 4), IntAttr("block_size", 16)})},
       {{"y", F}}},
      {{{"q", F}, {"k", F}, {"v", F}, {"pk", F}, {"pv", F}, {"seqlens", I32, Kind::kIndex},
        {"total", I32, Kind::kScalar}},
       {MsNode("GroupQueryAttention", {"q", "k", "v", "pk", "pv", "seqlens", "total"}, {"o", "ok", "ov"},
               {IntAttr("num_heads", 2), IntAttr("kv_num_heads", 1)})},
       {{"o", F}, {"ok", F}, {"ov", F}}},
      {{{"x", F}, {"w", F}, {"b", F}, {"mask", I32, Kind::kIndex}, {"past", F}},
       {MsNode("Attention", {"x", "w", "b", "mask", "past"}, {"y", "present"}, {IntAttr("num_heads", 2)})},
       {{"y", F}, {"present", F}}},
      {{{"q", F}, {"k", F}, {"v", F}, {"mask", I32, Kind::kIndex}},
       {MsNode("MultiHeadAttention", {"q", "k", "v", "", "mask"}, {"y"}, {IntAttr("num_heads", 2)})}, {{"y", F}}},
      {{{"x", F}, {"pos", I64, Kind::kIndex}, {"cos", F}, {"sin", F}},
       {MsNode("RotaryEmbedding", {"x", "pos", "cos", "sin"}, {"y"})}, {{"y", F}}},
      {{{"x", F}, {"skip", F}, {"gamma", F}, {"beta", F}},
       {MsNode("SkipLayerNormalization", {"x", "skip", "gamma", "beta"}, {"y", "", "", "s"})}, {{"y", F}, {"s", F}}},
      {{{"ids", I32, Kind::kIndex}, {"seg", I32, Kind::kIndex}, {"word", F}, {"pos", F}, {"segemb", F}, {"g", F},
        {"b", F}, {"mask", I32, Kind::kIndex}},
       {MsNode("EmbedLayerNormalization", {"ids", "seg", "word", "pos", "segemb", "g", "b", "mask"}, {"y", "mi"})},
       {{"y", F}, {"mi", I32}}},
      {{{"x", DataType::kUInt8}, {"xs", F, Kind::kScalar}, {"xz", DataType::kUInt8, Kind::kScalar},
        {"ys", F, Kind::kScalar}, {"yz", DataType::kUInt8, Kind::kScalar}},
       {MsNode("QLinearSoftmax", {"x", "xs", "xz", "ys", "yz"}, {"y"}, {IntAttr("opset", 13)})},
       {{"y", DataType::kUInt8}}},
      {{{"x", F}, {"bias", F}}, {MsNode("BiasSplitGelu", {"x", "bias"}, {"y"})}, {{"y", F}}},
      {{{"d", F}, {"bias", F}}, {MsNode("BiasSoftmax", {"d", "bias"}, {"y"}, {IntAttr("is_inner_broadcast", 0)})},
       {{"y", F}}},
  };
  tessera::SessionOptions options;
  options.intra_op_num_threads = 1;
  options.log_severity_level = tessera::Severity::kFatal;
  tessera::ProviderList providers = tessera::MakeProviders({"cpu"});
  std::vector<Case> cases;
  for (auto& def : defs) {
    tessera::Model m = MakeModel(def.inputs, std::move(def.nodes), def.outputs);
    Case c;
    c.inputs = def.inputs;
    c.session = std::make_unique<tessera::Session>(std::move(m), options, providers);
    cases.push_back(std::move(c));
  }
  return cases;
}

inline std::vector<Case>& AllCases() {
  static std::vector<Case> cases = BuildCases();
  return cases;
}
// How many models the first byte chooses among.
inline int NumCases() { return static_cast<int>(AllCases().size()); }

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Mostly small values, plus the values kernels get wrong: NaN, infinities,
// -0, huge, tiny and denormal.
inline double FloatFromByte(uint8_t b) {
  static const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    -0.0,
                                    1e30,
                                    -1e30,
                                    1e-30,
                                    65504.0,
                                    3.4e38,
                                    -3.4e38,
                                    1.4e-45,
                                    1e6,
                                    2147483648.0,
                                    -2147483649.0,
                                    9.3e18,
                                    0.5};
  if (b >= 240) return kSpecial[b - 240];
  return (static_cast<int>(b) - 120) / 4.0;
}

// Scalars drive sizes (Range's start/limit/delta, TopK's k): huge values
// beyond int64 or non-finite ones must be refused, but a legal 1e9-element
// Range is only slow, so values in that band are replaced.
inline double ScalarFromByte(uint8_t b) {
  double v = FloatFromByte(b);
  return std::fabs(v) >= 1e5 && std::fabs(v) <= 1e20 ? 0.5 : v;
}

constexpr DataType kOtherTypes[] = {DataType::kFloat, DataType::kInt64,   DataType::kInt32,
                                    DataType::kBool,  DataType::kUInt8,   DataType::kDouble,
                                    DataType::kFloat16, DataType::kString, DataType::kInt8};

inline tessera::Tensor DecodeInput(const InputSpec& spec, Reader& r) {
  uint8_t type_byte = r.Byte();
  DataType dtype = type_byte < 224 ? spec.dtype : kOtherTypes[type_byte % std::size(kOtherTypes)];
  int max_rank = 4, max_dim = 6;
  if (spec.kind == Kind::kShape) max_rank = 1, max_dim = 4;
  if (spec.kind == Kind::kIndex) max_rank = 3;
  if (spec.kind == Kind::kScalar) max_rank = 1, max_dim = 1;
  int rank = r.Byte() % (max_rank + 1);
  tessera::Shape shape;
  for (int i = 0; i < rank; ++i) shape.push_back(r.Byte() % (max_dim + 1));
  tessera::Tensor t(dtype, shape);
  bool small_ints = spec.kind == Kind::kShape || spec.kind == Kind::kScalar;
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint8_t b = r.Byte();
    int64_t iv = small_ints ? static_cast<int64_t>(b % 16) - 4 : static_cast<int8_t>(b);
    // Float shape operands (Resize scales) stay small: 0 to 3.75.
    double fv = spec.kind == Kind::kShape    ? (b % 16) / 4.0
                : spec.kind == Kind::kScalar ? ScalarFromByte(b)
                                             : FloatFromByte(b);
    switch (dtype) {
      case DataType::kFloat: t.data<float>()[i] = static_cast<float>(fv); break;
      case DataType::kDouble: t.data<double>()[i] = fv; break;
      case DataType::kInt64: t.data<int64_t>()[i] = iv; break;
      case DataType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(iv); break;
      case DataType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(iv); break;
      case DataType::kUInt8: t.data<uint8_t>()[i] = b; break;
      case DataType::kBool: t.data<bool>()[i] = (b & 1) != 0; break;
      case DataType::kFloat16: {
        uint16_t bits = static_cast<uint16_t>(b | (r.Byte() << 8));
        std::memcpy(t.data<uint16_t>() + i, &bits, 2);
        break;
      }
      case DataType::kString: {
        // Arbitrary bytes, invalid UTF-8 included.
        std::string s;
        for (int k = b % 5; k > 0; --k) s.push_back(static_cast<char>(r.Byte()));
        t.data<std::string>()[i] = s;
        break;
      }
      default: break;
    }
  }
  return t;
}


// One fuzz input; shared by the libFuzzer target and the regression test.
inline void RunInputsHarness(const uint8_t* data, size_t size) {
  std::vector<Case>& cases = AllCases();
  Reader r(data, size);
  Case& c = cases[r.Byte() % cases.size()];
  uint8_t flags = r.Byte();
  tessera::Feeds feeds;
  for (const auto& spec : c.inputs) feeds.emplace_back(spec.name, DecodeInput(spec, r));
  // Rarely: a missing feed, or one the model does not declare.
  if ((flags & 0xF0) == 0xF0 && !feeds.empty()) feeds.pop_back();
  if ((flags & 0x0F) == 0x0F) feeds.emplace_back("not_an_input", tessera::Tensor(DataType::kFloat, {1}));
  try {
    std::vector<tessera::Value> out = c.session->Run(feeds);
    // Read each output (a byte per cache line and the last one) so a
    // mis-sized buffer shows up under ASan.
    volatile uint8_t sink = 0;
    for (const auto& v : out)
      if (v.is_tensor() && v.tensor().dtype() != DataType::kString && v.tensor().nbytes() > 0) {
        const auto* p = static_cast<const uint8_t*>(v.tensor().raw_data());
        for (size_t k = 0; k < v.tensor().nbytes(); k += 64) sink = sink ^ p[k];
        sink = sink ^ p[v.tensor().nbytes() - 1];
      }
  } catch (const tessera::Error&) {
  }
}

}  // namespace tessera_fuzz
