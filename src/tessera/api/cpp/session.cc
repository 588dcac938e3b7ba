#include "tessera/session.h"

#include "tessera/api/cpp/error_translation.h"
#include "tessera/api/cpp/tensor_impl.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera::v1 {

using detail::Guarded;

struct Session::Impl {
  std::unique_ptr<::tessera::Session> session;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};

namespace {

::tessera::SessionOptions InternalOptions(const SessionOptions& options) {
  ::tessera::SessionOptions o;
  TS_CHECK(options.intra_op_threads >= 0, kInvalidArgument, "intra_op_threads must be >= 0, got ",
           options.intra_op_threads);
  o.intra_op_num_threads = options.intra_op_threads;
  o.graph_optimization_level = static_cast<::tessera::OptimizationLevel>(options.optimization_level);
  o.log_severity_level = static_cast<::tessera::Severity>(options.log_level);
  o.log_id = options.log_id;
  for (const auto& d : options.dimension_overrides) {
    ::tessera::FreeDimensionOverride fixed;
    fixed.key = d.name;
    fixed.value = d.value;
    o.free_dimension_overrides.push_back(std::move(fixed));
  }
  o.disable_cpu_fallback = options.disable_cpu_fallback;
  o.enable_memory_arena = options.enable_memory_arena;
  o.enable_profiling = options.enable_profiling;
  o.profile_file_prefix = options.profile_file_prefix;
  o.optimized_model_filepath = options.optimized_model_path;
  return o;
}

::tessera::ProviderList Providers(const SessionOptions& options) {
  return ::tessera::MakeProviders(options.providers.empty() ? ::tessera::DefaultProviders() : options.providers);
}

TensorInfo PublicInfo(const ::tessera::ValueInfo& v) {
  TensorInfo info;
  info.name = v.name;
  info.is_tensor = v.type.is_tensor();
  if (!info.is_tensor) return info;
  info.type = detail::PublicType(v.type.elem_type);
  info.rank_known = v.type.shape.has_value();
  if (!info.rank_known) return info;
  for (const auto& dim : *v.type.shape) {
    info.shape.push_back(dim.known() ? dim.value : -1);
    info.symbolic_dims.push_back(dim.known() ? std::string() : dim.param);
  }
  return info;
}

std::unique_ptr<Session::Impl> MakeImpl(std::unique_ptr<::tessera::Session> session) {
  auto impl = std::make_unique<Session::Impl>();
  for (const auto& v : session->inputs()) impl->inputs.push_back(PublicInfo(v));
  for (const auto& v : session->outputs()) impl->outputs.push_back(PublicInfo(v));
  impl->session = std::move(session);
  return impl;
}

}  // namespace

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

Session Session::Load(const std::string& path, const SessionOptions& options) {
  return Session(Guarded([&] {
    return MakeImpl(::tessera::Session::FromFile(path, InternalOptions(options), Providers(options)));
  }));
}

Session Session::FromBytes(const void* data, size_t size, const SessionOptions& options) {
  return Session(Guarded([&] {
    TS_CHECK(data != nullptr && size > 0, kInvalidArgument, "Session::FromBytes: no model bytes");
    return MakeImpl(::tessera::Session::FromBytes(data, size, InternalOptions(options), Providers(options)));
  }));
}

const std::vector<TensorInfo>& Session::inputs() const noexcept { return impl_->inputs; }
const std::vector<TensorInfo>& Session::outputs() const noexcept { return impl_->outputs; }

std::vector<std::string> Session::providers() const {
  return Guarded([&] {
    std::vector<std::string> names;
    for (const auto& p : impl_->session->providers()) names.push_back(p->name());
    return names;
  });
}

std::vector<Tensor> Session::Run(const Feeds& feeds, const std::vector<std::string>& output_names) const {
  return Guarded([&] {
    ::tessera::Feeds internal;
    internal.reserve(feeds.size());
    for (const auto& [name, tensor] : feeds) {
      TS_CHECK(!tensor.empty(), kInvalidArgument, "feed '", name, "' is an empty tensor");
      internal.emplace_back(name, ::tessera::Value(tensor.impl()->tensor));
    }
    std::vector<::tessera::Value> values = impl_->session->Run(internal, output_names);
    std::vector<Tensor> outputs;
    outputs.reserve(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string& name = output_names.empty() ? impl_->outputs[i].name : output_names[i];
      TS_CHECK(values[i].is_tensor(), kNotImplemented, "output '", name, "' is a ", values[i].Describe(),
               "; the C++ API returns tensors only");
      const ::tessera::Tensor& t = values[i].tensor();
      TS_CHECK(detail::PublicType(t.dtype()) != ElementType::kUndefined, kNotImplemented, "output '", name,
               "' has element type ", ::tessera::DataTypeName(t.dtype()), ", which the C++ API does not carry");
      outputs.push_back(detail::WrapTensor(t));
    }
    return outputs;
  });
}

std::string Session::EndProfiling() {
  return Guarded([&] { return impl_->session->EndProfiling(); });
}

}  // namespace tessera::v1
