// Reads ONNX files into Tessera's IR. Nothing from protobuf escapes this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "tessera/ir/graph.h"
#include "tessera/ir/value.h"

namespace tessera {

// Caps that keep a hostile model from exhausting memory or the stack.
struct LoadLimits {
  int64_t max_tensor_bytes = int64_t{16} << 30;        // one initializer or attribute tensor
  int64_t max_total_initializer_bytes = int64_t{64} << 30;
  int max_graph_nesting = 32;                          // If/Loop/Scan bodies inside bodies
  int64_t max_nodes = 10'000'000;                      // all graphs together
};

// A file that a model's external data names, held in the caller's memory
// (ORT's AddExternalInitializersFromFilesInMemory); keepalive pins it for
// as long as tensors borrow from it.
struct InMemoryFile {
  const unsigned char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keepalive;
};
// By external-data location, exactly as the model spells it.
using InMemoryFiles = std::unordered_map<std::string, InMemoryFile>;

// Loads a model file. External data is resolved against the file's folder;
// a location found in `files` is read from that memory instead of the disk.
Model LoadModelFromFile(const std::string& path, const LoadLimits& limits = {}, const InMemoryFiles& files = {});
// Loads a serialized model. External data (if any) is resolved against base_dir;
// with an empty base_dir a model that uses external data is refused, unless
// every location it names is in `files`.
Model LoadModelFromBytes(const void* data, size_t size, const std::string& base_dir = "",
                         const LoadLimits& limits = {}, const InMemoryFiles& files = {});

// Reads a serialized TensorProto / SequenceProto / OptionalProto / MapProto
// file (the ONNX test-data layout). `expected` says which one to parse.
Value LoadValueFile(const std::string& path, const TypeInfo& expected);
Tensor LoadTensorFile(const std::string& path);
Tensor ParseTensorBytes(const void* data, size_t size);

// Serialization, for saving optimized models and writing test data.
std::string SerializeModel(const Model& model);
// The same with every main-graph initializer of at least min_bytes moved
// into *data (at 64-byte aligned offsets) and recorded as external data in
// the file `location`, relative to the model's folder: for models past
// protobuf's 2 GB limit, or when asked.
std::string SerializeModelWithExternalData(const Model& model, const std::string& location, std::string* data,
                                           size_t min_bytes = 1024);
std::string SerializeTensor(const Tensor& tensor, const std::string& name = "");
std::string SerializeValue(const Value& value, const std::string& name = "");

}  // namespace tessera
