#include "tessera/partition/copy_insertion.h"

#include <algorithm>

namespace tessera {

namespace {

// Moves a tensor between host memory and a provider's memory.
class CopyKernel final : public OpKernel {
 public:
  CopyKernel(const ExecutionProvider& provider, bool to_host) : provider_(provider), to_host_(to_host) {}
  void Compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_tensor())
      ctx.Fail("only tensors can move between memory spaces; '", ctx.node().inputs[0], "' is a ", v.Describe());
    ctx.set_output(0, to_host_ ? provider_.CopyToHost(v.tensor()) : provider_.CopyFromHost(v.tensor()));
  }

 private:
  const ExecutionProvider& provider_;
  bool to_host_;
};

std::string BytesPerRun(const TypeInfo* t) {
  if (t == nullptr || !t->is_tensor() || !t->shape) return "?";
  int64_t known = std::max<int64_t>(1, static_cast<int64_t>(ElementBits(t->elem_type) / 8));
  std::string symbols;
  for (const Dim& d : *t->shape) {
    if (d.known()) known *= d.value;
    else symbols += (d.param.empty() ? std::string("?") : d.param) + "*";
  }
  return symbols + std::to_string(known);
}

}  // namespace

CopyInserter::CopyInserter(const Graph& graph, const ProviderList& providers, const GraphTypes& types,
                           std::function<int(const std::string&)> slot_of, CopySinks sinks)
    : graph_(graph), providers_(providers), types_(types), slot_of_(std::move(slot_of)), sinks_(sinks) {}

std::string CopyInserter::SpaceOf(const std::string& value) const {
  auto it = space_of_.find(value);
  return it == space_of_.end() ? std::string(kHostSpace) : it->second;
}

std::string CopyInserter::Place(const std::string& value, const std::string& to, size_t to_provider) {
  const std::string from = SpaceOf(value);
  if (from == to) return value;
  auto done = copied_.find({value, to});
  if (done != copied_.end()) return done->second;
  if (from != kHostSpace && to != kHostSpace) {
    // Between two devices: through the host.
    std::string on_host = Place(value, kHostSpace, to_provider);
    std::string r = Place(on_host, to, to_provider);
    copied_[{value, to}] = r;
    return r;
  }
  // Constants move to a device once, now, rather than on every run.
  if (to != kHostSpace && IsConstant(value)) return Upload(value, to, to_provider);
  return AddCopyStep(value, from, to, to_provider);
}

// An initializer no graph input of the same name may override.
bool CopyInserter::IsConstant(const std::string& value) const {
  if (!graph_.initializers.count(value)) return false;
  return std::none_of(graph_.inputs.begin(), graph_.inputs.end(),
                      [&](const ValueInfo& in) { return in.name == value; });
}

std::string CopyInserter::Upload(const std::string& value, const std::string& to, size_t to_provider) {
  const Tensor& host = graph_.initializers.at(value);
  std::string name = value + "@" + to;
  sinks_.initializer_slots.emplace_back(slot_of_(name), providers_[to_provider]->CopyFromHost(host));
  space_of_[name] = to;
  copied_[{value, to}] = name;
  sinks_.uploads.push_back({value, kHostSpace, to, std::to_string(host.nbytes())});
  return name;
}

std::string CopyInserter::AddCopyStep(const std::string& value, const std::string& from, const std::string& to,
                                      size_t to_provider) {
  const bool to_host = to == kHostSpace;
  // The copy runs on the device side's provider.
  size_t device = to_host ? 0 : to_provider;
  if (to_host) {
    for (size_t p = 0; p < providers_.size(); ++p)
      if (providers_[p]->memory_space() == from) device = p;
  }
  std::string name = value + "@" + to;
  Node& copy = sinks_.synthetic_nodes.emplace_back();
  copy.name = "copy " + value + " " + from + "->" + to;
  copy.op_type = to_host ? "CopyToHost" : "CopyFromHost";
  copy.domain = kTesseraDomain;
  copy.inputs = {value};
  copy.outputs = {name};
  PlacedStep step;
  step.node = &copy;
  step.provider = device;
  step.is_copy = true;
  step.kernel = std::make_unique<CopyKernel>(*providers_[device], to_host);
  step.inputs = {slot_of_(value)};
  step.outputs = {slot_of_(name)};
  sinks_.steps.push_back(std::move(step));
  space_of_[name] = to;
  copied_[{value, to}] = name;
  auto type = types_.types.find(value);
  sinks_.copies.push_back({value, from, to, BytesPerRun(type == types_.types.end() ? nullptr : &type->second)});
  return name;
}

}  // namespace tessera
