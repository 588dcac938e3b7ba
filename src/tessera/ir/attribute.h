// Node attributes, one struct for every ONNX attribute kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/tensor.h"
#include "tessera/ir/type_info.h"

namespace tessera {

class Graph;

enum class AttributeType {
  kUndefined = 0,
  kFloat = 1,
  kInt = 2,
  kString = 3,
  kTensor = 4,
  kGraph = 5,
  kFloats = 6,
  kInts = 7,
  kStrings = 8,
  kTensors = 9,
  kGraphs = 10,
  kSparseTensor = 11,
  kSparseTensors = 12,
  kTypeProto = 13,
  kTypeProtos = 14,
};

const char* AttributeTypeName(AttributeType t);

struct Attribute {
  std::string name;
  AttributeType type = AttributeType::kUndefined;
  // Inside a function body: the name of the caller's attribute this one takes.
  std::string ref_attr_name;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;  // sparse tensors are densified at load
  std::shared_ptr<Graph> g;
  TypeInfo tp;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  std::vector<TypeInfo> type_protos;
};

}  // namespace tessera
