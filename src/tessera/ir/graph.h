// The in-memory model: graphs of nodes connected by named values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ir/attribute.h"
#include "tessera/ir/tensor.h"
#include "tessera/ir/type_info.h"

namespace tessera {

inline constexpr const char* kOnnxDomain = "ai.onnx";
inline constexpr const char* kOnnxMlDomain = "ai.onnx.ml";
inline constexpr const char* kTesseraDomain = "ai.tessera";
// ONNX Runtime's contrib ops (its quantized QLinear* ops among them), opset 1.
inline constexpr const char* kMicrosoftDomain = "com.microsoft";

// "" and "ai.onnx" name the same domain; the IR always uses "ai.onnx".
std::string CanonicalDomain(const std::string& domain);

struct ValueInfo {
  std::string name;
  TypeInfo type;
  std::string doc_string;
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain = kOnnxDomain;
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::vector<Attribute> attributes;
  std::string doc_string;

  const Attribute* FindAttribute(const std::string& attr_name) const;
  // "name [ai.onnx:Conv]" for error messages.
  std::string Label() const;
};

class Graph {
 public:
  std::string name;
  std::string doc_string;
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::map<std::string, Tensor> initializers;

  // Orders nodes so every producer precedes its consumers. Names not produced
  // in this graph must be in outer_scope (for subgraphs). Throws
  // kInvalidModel naming the node on a cycle or a dangling input.
  void SortTopologically(const std::vector<std::string>& outer_scope = {});
  // Names this graph (and its nested subgraphs) read but do not define.
  std::vector<std::string> FreeVariables() const;
  // Looks up the declared type of a value (input, output or value_info).
  const ValueInfo* FindValueInfo(const std::string& value_name) const;
  // Multi-line human-readable summary.
  std::string Summary() const;
  // A copy whose nodes and nested subgraphs are all its own (tensors still
  // share their buffers), so it can be reordered without touching this one.
  std::shared_ptr<Graph> DeepCopy() const;
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
};

struct Model {
  int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;  // domains canonicalized
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc_string;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<Graph> graph;
  std::string path;  // file the model came from, "" when loaded from bytes

  // Opset version imported for a domain, or -1.
  int64_t OpsetFor(const std::string& domain) const;
  // "resnet50.onnx" or "<bytes>" for error messages.
  std::string DisplayName() const;
};

}  // namespace tessera
