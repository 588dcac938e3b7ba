// Internal to format/: conversions between wire messages and IR objects.
#pragma once

#include <memory>
#include <string>

#include "onnx_wire.pb.h"
#include "tessera/format/model_loader.h"

namespace tessera::format_internal {

// Where a model's tensors come from: the folder for external data, the limits,
// and a running total of initializer bytes.
struct LoadContext {
  std::string base_dir;  // "" = external data not allowed
  LoadLimits limits;
  int64_t total_initializer_bytes = 0;
  int64_t total_nodes = 0;
  std::string model_name;  // for error messages
};

Tensor TensorFromWire(const wire::Tensor& t, LoadContext* ctx, const std::string& what);
Tensor SparseTensorFromWire(const wire::SparseTensor& t, LoadContext* ctx, const std::string& what);
TypeInfo TypeFromWire(const wire::Type& t);
std::shared_ptr<Graph> GraphFromWire(const wire::Graph& g, LoadContext* ctx, int depth);
Value ValueFromSequence(const wire::Sequence& s);
Value ValueFromOptional(const wire::Optional& o);
Value ValueFromMap(const wire::Map& m);

void TensorToWire(const Tensor& t, wire::Tensor* out);
void TypeToWire(const TypeInfo& t, wire::Type* out);
void GraphToWire(const Graph& g, wire::Graph* out);

// Replaces calls of model-local functions by their bodies (recursively).
void InlineFunctions(const wire::Model& model, Graph* graph, const std::string& model_name);

}  // namespace tessera::format_internal
