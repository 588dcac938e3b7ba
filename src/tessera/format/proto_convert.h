// Internal to format/: conversions between wire messages and IR objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "onnx_wire.pb.h"
#include "tessera/format/model_loader.h"

namespace tessera::format_internal {

// A tensor's raw_data left in the serialized bytes (see payload_split.cc).
struct RawPayload {
  const uint8_t* data = nullptr;
  size_t size = 0;
};
using RawPayloads = std::unordered_map<const wire::Tensor*, RawPayload>;

// Where a model's tensors come from: the folder for external data, the limits,
// and a running total of initializer bytes.
struct LoadContext {
  std::string base_dir;  // "" = external data not allowed (except from in_memory_files)
  const InMemoryFiles* in_memory_files = nullptr;  // consulted before the disk
  LoadLimits limits;
  int64_t total_initializer_bytes = 0;
  int64_t total_nodes = 0;
  std::string model_name;  // for error messages
  // raw_data kept out of the parsed messages, by tensor message.
  RawPayloads payloads;
  // The payloads lie in a private mapping of the model file that nothing
  // reads after loading: their pages are dropped once copied.
  bool drop_payload_pages = false;
};

Tensor TensorFromWire(const wire::Tensor& t, LoadContext* ctx, const std::string& what);
Tensor SparseTensorFromWire(const wire::SparseTensor& t, LoadContext* ctx, const std::string& what);
TypeInfo TypeFromWire(const wire::Type& t);
std::shared_ptr<Graph> GraphFromWire(const wire::Graph& g, LoadContext* ctx, int depth);
Value ValueFromSequence(const wire::Sequence& s);
Value ValueFromOptional(const wire::Optional& o);
Value ValueFromMap(const wire::Map& m);

// Parses a ModelProto like ParseFromCodedStream, except that the main graph's
// initializers' raw_data stay in `data` and are listed in payloads. False
// when the bytes are not a well-formed message (or use groups).
bool ParseModelSplittingPayloads(const uint8_t* data, size_t size, int recursion_limit, wire::Model* model,
                                 RawPayloads* payloads);
// Tells the kernel that the whole pages inside [data, data+size) of a file
// mapping are no longer needed, so they leave the process's RSS.
void DropMappedPages(const void* data, size_t size);

void TensorToWire(const Tensor& t, wire::Tensor* out);
void TypeToWire(const TypeInfo& t, wire::Type* out);
void GraphToWire(const Graph& g, wire::Graph* out);

// Replaces calls of model-local functions by their bodies (recursively).
void InlineFunctions(const wire::Model& model, Graph* graph, const std::string& model_name);

}  // namespace tessera::format_internal
