// What the shape-inference files share (shape_inference.cc dispatches to
// the per-op rules of shape_inference_compute.cc, _movement.cc and
// _contrib.cc): type constructors, attribute and constant readers,
// broadcasting, and the rules' declarations. Internal to ops/.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

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

// Compute ops (shape_inference_compute.cc).
std::vector<TypeInfo> Pool(const InferenceInput& in, bool global);  // also Conv
std::vector<TypeInfo> Reduce(const InferenceInput& in);
std::vector<TypeInfo> MatMul(const InferenceInput& in);
std::vector<TypeInfo> Recurrent(const InferenceInput& in);
std::vector<TypeInfo> Gemm(const InferenceInput& in);

// Ops that only move or describe data (shape_inference_movement.cc).
std::vector<TypeInfo> Reshape(const InferenceInput& in);
std::vector<TypeInfo> Transpose(const InferenceInput& in);
std::vector<TypeInfo> Concat(const InferenceInput& in);
std::vector<TypeInfo> Unsqueeze(const InferenceInput& in);
std::vector<TypeInfo> Squeeze(const InferenceInput& in);
std::vector<TypeInfo> Flatten(const InferenceInput& in);
std::vector<TypeInfo> Gather(const InferenceInput& in);
std::vector<TypeInfo> ShapeOp(const InferenceInput& in);
std::vector<TypeInfo> Split(const InferenceInput& in);
std::vector<TypeInfo> Slice(const InferenceInput& in);
std::vector<TypeInfo> ConstantOp(const InferenceInput& in);

// The optimizer's fused ops (ai.tessera) and ONNX Runtime's contrib ops
// (com.microsoft) (shape_inference_contrib.cc).
std::vector<TypeInfo> InferTesseraOutputTypes(const InferenceInput& in);
std::vector<TypeInfo> InferMicrosoftOutputTypes(const InferenceInput& in);

}  // namespace tessera::shape_inference
