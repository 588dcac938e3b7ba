// Reads ONNX files into Tessera's IR. Nothing from protobuf escapes this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "tessera/ir/graph.h"
#include "tessera/ir/value.h"

namespace tessera {

// Caps that keep a hostile model from exhausting memory or the stack.
struct LoadLimits {
  int64_t max_tensor_bytes = int64_t{16} << 30;        // one initializer or attribute tensor
  int64_t max_total_initializer_bytes = int64_t{64} << 30;
  int max_graph_nesting = 32;                          // If/Loop/Scan bodies inside bodies
  int64_t max_nodes = 10'000'000;                      // all graphs together
  // External-data files the caller holds in memory (ORT's
  // AddExternalInitializersFromFilesInMemory), by location as the model
  // writes it; consulted before the model's folder. Tensors are copied out,
  // so the memory need only outlive loading. (Behind a pointer: GCC 12 warns
  // falsely about a std::map member of aggregates built with designators.)
  using FilesInMemory = std::map<std::string, std::pair<const void*, size_t>>;
  std::shared_ptr<const FilesInMemory> external_files_in_memory;
};

// Loads a model file. External data is resolved against the file's folder.
Model LoadModelFromFile(const std::string& path, const LoadLimits& limits = {});
// Loads a serialized model. External data (if any) is resolved against base_dir;
// with an empty base_dir a model that uses external data is refused.
Model LoadModelFromBytes(const void* data, size_t size, const std::string& base_dir = "",
                         const LoadLimits& limits = {});

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
