#include "tessera/ops/kernel.h"

#include "tessera/ops/bound_outputs.h"

namespace tessera {

const Tensor* KernelInfo::constant_input(size_t i) const {
  if (owner_graph_ == nullptr || !has_input(i)) return nullptr;
  auto it = owner_graph_->initializers.find(node_.inputs[i]);
  if (it == owner_graph_->initializers.end()) return nullptr;
  // A graph input of the same name may override the initializer at run time.
  for (const auto& in : owner_graph_->inputs)
    if (in.name == node_.inputs[i]) return nullptr;
  return &it->second;
}

const Attribute& KernelInfo::attr(const std::string& name) const {
  const Attribute* a = node_.FindAttribute(name);
  if (a == nullptr) Fail("missing required attribute '", name, "'");
  return *a;
}

const Attribute& KernelInfo::Require(const std::string& name, AttributeType type) const {
  const Attribute& a = attr(name);
  if (a.type != type)
    Fail("attribute '", name, "' should be of type ", AttributeTypeName(type), " but is ", AttributeTypeName(a.type));
  return a;
}

int64_t KernelInfo::attr_int(const std::string& name) const { return Require(name, AttributeType::kInt).i; }
int64_t KernelInfo::attr_int(const std::string& name, int64_t d) const {
  return has_attr(name) ? attr_int(name) : d;
}
float KernelInfo::attr_float(const std::string& name) const { return Require(name, AttributeType::kFloat).f; }
float KernelInfo::attr_float(const std::string& name, float d) const {
  return has_attr(name) ? attr_float(name) : d;
}
std::string KernelInfo::attr_string(const std::string& name) const { return Require(name, AttributeType::kString).s; }
std::string KernelInfo::attr_string(const std::string& name, const std::string& d) const {
  return has_attr(name) ? attr_string(name) : d;
}
std::vector<int64_t> KernelInfo::attr_ints(const std::string& name) const {
  return Require(name, AttributeType::kInts).ints;
}
std::vector<int64_t> KernelInfo::attr_ints(const std::string& name, const std::vector<int64_t>& d) const {
  return has_attr(name) ? attr_ints(name) : d;
}
std::vector<float> KernelInfo::attr_floats(const std::string& name) const {
  return Require(name, AttributeType::kFloats).floats;
}
std::vector<float> KernelInfo::attr_floats(const std::string& name, const std::vector<float>& d) const {
  return has_attr(name) ? attr_floats(name) : d;
}
std::vector<std::string> KernelInfo::attr_strings(const std::string& name) const {
  return Require(name, AttributeType::kStrings).strings;
}
std::vector<std::string> KernelInfo::attr_strings(const std::string& name, const std::vector<std::string>& d) const {
  return has_attr(name) ? attr_strings(name) : d;
}
const Tensor& KernelInfo::attr_tensor(const std::string& name) const { return Require(name, AttributeType::kTensor).t; }
std::shared_ptr<Graph> KernelInfo::attr_graph(const std::string& name) const {
  return Require(name, AttributeType::kGraph).g;
}

const Value& KernelContext::input_value(size_t i) const {
  if (!has_input(i)) Fail("input ", i, " is required but was not given");
  return *inputs_[i];
}

const Tensor& KernelContext::input(size_t i) const {
  const Value& v = input_value(i);
  if (!v.is_tensor()) Fail("input ", i, " should be a tensor but is a ", v.Describe());
  return v.tensor();
}

Tensor& KernelContext::output(size_t i) {
  if (i >= outputs_->size() || !(*outputs_)[i].is_tensor()) Fail("output ", i, " holds no tensor yet");
  return (*outputs_)[i].tensor();
}

Tensor& KernelContext::allocate_output(size_t i, DataType dtype, Shape shape) {
  if (i >= outputs_->size()) Fail("kernel wrote output ", i, " but the node has ", outputs_->size(), " outputs");
  // A graph output whose memory the caller bound (IOBinding) is written there.
  if (i < node_.outputs.size())
    if (const Tensor* bound = ScopedBoundOutputs::Find(node_.outputs[i], dtype, shape)) {
      (*outputs_)[i] = Value(*bound);
      return (*outputs_)[i].tensor();
    }
  (*outputs_)[i] = Value(Tensor(dtype, std::move(shape)));
  return (*outputs_)[i].tensor();
}

void KernelContext::set_output(size_t i, Value value) {
  if (i >= outputs_->size()) Fail("kernel wrote output ", i, " but the node has ", outputs_->size(), " outputs");
  (*outputs_)[i] = std::move(value);
}

std::vector<Value> KernelContext::RunSubgraph(const Graph& graph, const std::vector<Value>& inputs) const {
  if (subgraphs_ == nullptr) Fail("subgraph execution is not available here");
  return subgraphs_->Run(graph, inputs);
}

}  // namespace tessera
