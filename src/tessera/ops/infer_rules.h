// What the infer_<family>.cc files share: their schema tables (joined by
// op_schema.cc), entry constructors, type constructors, attribute and
// constant readers, broadcasting, and the rules other families reuse.
// Internal to ops/.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ops/kernel_table.h"
#include "tessera/ops/op_schema.h"
#include "tessera/ops/shape_inference.h"

namespace tessera::shape_inference {

using Dims = std::vector<Dim>;

inline TypeInfo Unknown() { return TypeInfo{}; }
inline TypeInfo TensorOf(DataType t, Dims d) { return TypeInfo::Tensor(t, std::move(d)); }
inline TypeInfo TensorOf(DataType t) { return TypeInfo::Tensor(t); }

inline bool HasShape(const TypeInfo& t) { return t.is_tensor() && t.shape.has_value(); }
inline int64_t RankOf(const TypeInfo& t) { return static_cast<int64_t>(t.shape->size()); }

int64_t AttrInt(const Node& n, const std::string& name, int64_t d);
std::vector<int64_t> AttrInts(const Node& n, const std::string& name);
inline bool HasAttr(const Node& n, const std::string& name) { return n.FindAttribute(name) != nullptr; }

// Input i's value as integers when it is a known integer constant.
std::optional<std::vector<int64_t>> ConstInts(const InferenceInput& in, size_t i);

// Wraps a negative axis; false when it is out of range.
bool Normalize(int64_t& axis, int64_t rank);

// Multidirectional broadcast; nullopt when a rank is unknown or dims clash.
std::optional<Dims> Broadcast(const std::vector<TypeInfo>& ts);

// The schema tables, one per family.
std::vector<OpSchema> ElementwiseSchemas();   // infer_elementwise.cc
std::vector<OpSchema> ComputeSchemas();       // infer_compute.cc
std::vector<OpSchema> MovementSchemas();      // infer_movement.cc
std::vector<OpSchema> ContribSchemas();       // infer_contrib.cc: ai.tessera and com.microsoft
std::vector<OpSchema> RuntimeTypedSchemas();  // infer_runtime_typed.cc

// Entries for every version of an op that Tessera knows: one rule and one
// set of traits serves them all (a rule reads InferenceInput::opset where
// versions differ).
constexpr OpSchema Onnx(std::string_view op, OutputTypeRule rule, uint32_t traits = 0) {
  return {kOnnxDomain, op, 1, kMaxOnnxOpset, rule, traits};
}
constexpr OpSchema OnnxMl(std::string_view op, OutputTypeRule rule = nullptr) {
  return {kOnnxMlDomain, op, 1, kMaxOnnxMlOpset, rule, 0};
}
constexpr OpSchema Microsoft(std::string_view op, OutputTypeRule rule) { return {kMicrosoftDomain, op, 1, 1, rule, 0}; }
constexpr OpSchema Fused(std::string_view op, OutputTypeRule rule) { return {kTesseraDomain, op, 1, 1, rule, 0}; }

// Rules other families reuse.
std::vector<TypeInfo> SameAsInput0(const InferenceInput& in);
std::vector<TypeInfo> ElementTypeOfInput0(const InferenceInput& in);

// The types of a node as those of the ai.onnx op `onnx_op` (at opset 22)
// read from `inputs`, without the node's attributes `dropped`; the node's
// constants are passed on when `with_constants`.
std::vector<TypeInfo> InferAsOnnxOp(const InferenceInput& in, const char* onnx_op, std::vector<TypeInfo> inputs,
                                    std::initializer_list<const char*> dropped, bool with_constants);

}  // namespace tessera::shape_inference
