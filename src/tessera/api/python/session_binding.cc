#include "tessera/api/python/session_binding.h"

#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/api/python/numpy_convert.h"
#include "tessera/api/python/session_options_binding.h"
#include "tessera/api/session_option_table.h"
#include "tessera/format/model_loader.h"
#include "tessera/ops/bound_outputs.h"
#include "tessera/runtime/kv_cache.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

// ---------------------------------------------------------------- metadata

py::object DimsToPy(const TypeInfo& t) {
  py::list shape;
  if (t.kind != TypeInfo::Kind::kTensor || !t.shape) return shape;
  for (const Dim& d : *t.shape) {
    if (d.known())
      shape.append(py::int_(d.value));
    else if (!d.param.empty())
      shape.append(py::str(d.param));
    else
      shape.append(py::none());
  }
  return shape;
}

py::tuple ValueInfoToPy(const ValueInfo& v) {
  return py::make_tuple(v.name, v.type.TypeString(), DimsToPy(v.type), v.doc_string);
}

// ------------------------------------------------------------------ session

struct SessionConfig {
  // {attribute: value} of SessionOptions, one per row of the option table
  // (api/session_option_table.h).
  py::dict options;
  // What log_severity_level -1 stands for (set_default_logger_severity).
  int default_log_severity = 2;
  std::vector<std::string> disabled_optimizers;
  // Initializers of the optimized model of at least this many bytes go to
  // this file, next to the model ("" = all inside the model).
  std::string optimized_model_external_file;
  int64_t optimized_model_external_min_bytes = 1024;
  bool winograd_convolutions = true;
  // SessionOptions::max_isa ("" = TESSERA_MAX_ISA or the machine's best).
  std::string max_isa;
  // (by_denotation, key, value) per add_free_dimension_override_by_*.
  std::vector<std::tuple<bool, std::string, int64_t>> free_dimension_overrides;
  // (name, numpy array or OrtValue) per add_initializer / add_external_initializers.
  std::vector<std::pair<std::string, py::object>> initializers;
  // ORT_LOAD_CONFIG_FROM_MODEL=1: the model's "ort_config" metadata decides.
  bool read_config_from_model = false;
  // (external-data location, buffer) per add_external_initializers_from_files_in_memory.
  std::vector<std::pair<std::string, py::object>> files_in_memory;
};

class PySession {
 public:
  PySession(const py::object& source, const SessionConfig& config, const std::vector<std::string>& providers) {
    options_.log_severity_level = SeverityFor(config.default_log_severity);
    ApplyPythonSessionOptions(options_, config.options);
    options_.disabled_optimizers = config.disabled_optimizers;
    options_.optimized_model_external_file = config.optimized_model_external_file;
    options_.optimized_model_external_min_bytes =
        static_cast<size_t>(std::max<int64_t>(0, config.optimized_model_external_min_bytes));
    options_.winograd_convolutions = config.winograd_convolutions;
    options_.max_isa = config.max_isa;
    InMemoryFiles files;
    for (const auto& [name, obj] : config.files_in_memory) {
      py::buffer_info info = py::reinterpret_borrow<py::buffer>(obj).request();
      if (!PyBuffer_IsContiguous(info.view(), 'C')) ThrowInvalid("the buffer for file '" + name + "' is not contiguous");
      files[name] = InMemoryFile{static_cast<const unsigned char*>(info.ptr),
                                 static_cast<size_t>(info.size * info.itemsize), PyKeepalive(obj)};
    }
    for (const auto& [by_denotation, key, value] : config.free_dimension_overrides) {
      FreeDimensionOverride o;
      o.match = by_denotation ? FreeDimensionOverride::Match::kDenotation : FreeDimensionOverride::Match::kName;
      o.key = key;
      o.value = value;
      options_.free_dimension_overrides.push_back(std::move(o));
    }
    for (const auto& [name, obj] : config.initializers) {
      Value v = PyToValue(obj, nullptr, "initializer '" + name + "'");
      if (!v.is_tensor()) ThrowInvalid("initializer '" + name + "' must be a tensor");
      options_.initializer_overrides.push_back({name, v.tensor()});
    }
    if (py::isinstance<py::bytes>(source)) {
      std::string_view bytes = source.cast<std::string_view>();
      py::gil_scoped_release release;
      model_ = std::make_shared<const Model>(
          LoadModelFromBytes(bytes.data(), bytes.size(), "", options_.load_limits, files));
    } else {
      std::string path = source.cast<std::string>();
      py::gil_scoped_release release;
      model_ = std::make_shared<const Model>(LoadModelFromFile(path, options_.load_limits, files));
    }
    if (config.read_config_from_model) ApplyConfigFromModel();
    Reset(providers);
  }

  void Reset(const std::vector<std::string>& providers) {
    ProviderList list = MakeProviders(providers);
    py::gil_scoped_release release;
    auto fresh = std::make_shared<Session>(*model_, options_, std::move(list));
    std::lock_guard<std::mutex> lock(mu_);
    session_ = std::move(fresh);
  }

  // A run keeps its session alive even if set_providers replaces it meanwhile.
  std::shared_ptr<Session> session() const {
    std::lock_guard<std::mutex> lock(mu_);
    return session_;
  }

  py::list Inputs() const {
    py::list out;
    for (const auto& v : session()->inputs()) out.append(ValueInfoToPy(v));
    return out;
  }
  py::list Outputs() const {
    py::list out;
    for (const auto& v : session()->outputs()) out.append(ValueInfoToPy(v));
    return out;
  }
  py::list OverridableInitializers() const {
    auto s = session();
    py::list out;
    for (const auto& v : s->model().graph->inputs)
      if (s->model().graph->initializers.count(v.name)) out.append(ValueInfoToPy(v));
    return out;
  }
  py::dict Metadata() const {
    const Model& m = *model_;
    py::dict d;
    d["producer_name"] = m.producer_name;
    d["producer_version"] = m.producer_version;
    d["graph_name"] = m.graph ? m.graph->name : std::string();
    d["graph_description"] = m.graph ? m.graph->doc_string : std::string();
    d["domain"] = m.domain;
    d["description"] = m.doc_string;
    d["version"] = m.model_version;
    d["ir_version"] = m.ir_version;
    py::dict custom;
    for (const auto& [k, v] : m.metadata) custom[py::str(k)] = v;
    d["custom_metadata_map"] = custom;
    py::dict opsets;
    for (const auto& o : m.opset_imports) opsets[py::str(o.domain)] = o.version;
    d["opset_imports"] = opsets;
    return d;
  }
  std::vector<std::string> Providers() const {
    std::vector<std::string> out;
    for (const auto& p : session()->providers()) out.push_back(p->name());
    return out;
  }
  py::list Placement() const {
    py::list out;
    for (const auto& p : session()->Placement()) {
      py::dict d;
      d["node"] = p.node;
      d["op_type"] = p.op_type;
      d["domain"] = p.domain;
      d["provider"] = p.provider;
      out.append(d);
    }
    return out;
  }
  // (past, present, shares_buffer) per cache slot (runtime/kv_cache.h).
  py::list KvCacheSlotList() const {
    py::list out;
    for (const auto& slot : KvCacheSlots(*session())) out.append(py::make_tuple(slot.past, slot.present, slot.shares_buffer));
    return out;
  }
  py::dict InstructionSets() const {
    py::dict d;
    for (const auto& [library, isa] : session()->IsaInUse()) d[py::str(library)] = isa;
    return d;
  }
  // The session options the model's "ort_config" set (read_config_from_model).
  py::dict ConfigFromModel() const { return config_from_model_; }

  // Path of the trace written, "" when profiling was off (or is unsupported).
  std::string EndProfiling() {
    auto s = session();
    py::gil_scoped_release release;
    return s->EndProfiling();
  }
  int64_t ProfilingStartTimeNs() const { return session()->ProfilingStartTimeNs(); }

  py::list Run(const py::object& output_names, const py::dict& feed) const {
    auto s = session();
    std::vector<std::string> names = OutputNames(*s, output_names);
    Feeds feeds = ToFeeds(*s, feed);
    std::vector<Value> results;
    {
      py::gil_scoped_release release;
      results = s->Run(feeds, names);
    }
    feeds.clear();
    py::list out;
    for (auto& r : results) {
      Value v = std::move(r);
      r = Value();
      out.append(ValueToPy(v));
    }
    return out;
  }

  // Runs with OrtValue (or numpy) feeds; results stay OrtValues. A bound
  // output (an OrtValue in `bound`, keyed by output name) receives its
  // result in its own memory and is returned as itself.
  std::vector<PyOrtValue> RunWithOrtValues(const py::object& output_names, const py::dict& feed,
                                           const py::dict& bound) const {
    auto s = session();
    std::vector<std::string> names = OutputNames(*s, output_names);
    if (names.empty())
      for (const auto& o : s->outputs()) names.push_back(o.name);
    Feeds feeds = ToFeeds(*s, feed);
    // Kernels producing a bound output write into its memory when they can
    // (bound_outputs.h); CopyInto copies the others in.
    BoundOutputMap targets;
    for (auto [k, v] : bound) {
      const PyOrtValue& target = v.cast<const PyOrtValue&>();
      if (target.value.is_tensor() && !target.read_only) targets[k.cast<std::string>()] = target.value.tensor();
    }
    std::vector<Value> results;
    {
      py::gil_scoped_release release;
      ScopedBoundOutputs scope(targets.empty() ? nullptr : &targets);
      results = s->Run(feeds, names);
    }
    std::vector<PyOrtValue> out(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      py::str key(names[i]);
      if (bound.contains(key)) {
        PyOrtValue& target = bound[key].cast<PyOrtValue&>();
        CopyInto(target, results[i], names[i]);
        out[i] = target;
      } else {
        out[i].value = std::move(results[i]);
      }
    }
    return out;
  }

 private:
  static Severity SeverityFor(int level) {
    if (level < 0 || level > 4) ThrowInvalid("the default logger severity must be 0..4, got " + std::to_string(level));
    return static_cast<Severity>(level);
  }

  // onnxruntime's ORT_LOAD_CONFIG_FROM_MODEL: the JSON in the model's
  // "ort_config" metadata, {"session_options": {...}}, overrides the
  // caller's options for the keys onnxruntime reads; other keys are ignored.
  void ApplyConfigFromModel() {
    auto it = model_->metadata.find("ort_config");
    if (it == model_->metadata.end()) return;
    py::object parsed;
    try {
      parsed = py::module_::import("json").attr("loads")(it->second);
    } catch (py::error_already_set& e) {
      ThrowInvalid("model '" + model_->DisplayName() + "': the JSON in its 'ort_config' metadata cannot be parsed: " +
                   std::string(e.what()));
    }
    if (!py::isinstance<py::dict>(parsed)) ThrowInvalid("model '" + model_->DisplayName() + "': 'ort_config' must be a JSON object");
    py::dict root = parsed;
    if (!root.contains("session_options")) return;
    py::object so = root["session_options"];
    if (!py::isinstance<py::dict>(so)) ThrowInvalid("model '" + model_->DisplayName() + "': 'session_options' must be a JSON object");
    for (auto [k, v] : py::dict(so)) {
      std::string key = py::str(k);
      bool known = key == "intra_op_num_threads" || key == "inter_op_num_threads" || key == "execution_mode" ||
                   key == "graph_optimization_level" || key == "enable_profiling";
      if (!known) continue;
      if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
        ThrowInvalid(key + " option in the model file must be an integer");
      int value = v.cast<int>();
      // onnxruntime's own checks and wording for the values in a model.
      if (key == "intra_op_num_threads" || key == "inter_op_num_threads") {
        if (value < 0) ThrowInvalid("Unsupported value for " + key + ": " + std::to_string(value));
      } else if (key == "execution_mode") {
        if (value != 0 && value != 1) ThrowInvalid("Unsupported execution_mode value in ORT config: " + std::to_string(value));
      } else if (key == "graph_optimization_level") {
        if (value != 0 && value != 1 && value != 2 && value != 3 && value != 99)
          ThrowInvalid("Unsupported graph_optimization_level value in ORT config: " + std::to_string(value));
      } else if (value != 0 && value != 1) {
        ThrowInvalid("Unsupported value for enable_profiling option: " + std::to_string(value));
      }
      ApplySessionOption(options_, key, SessionOptionValue{value, ""});
      config_from_model_[py::str(key)] = value;
    }
  }

  std::vector<std::string> OutputNames(const Session& s, const py::object& output_names) const {
    std::vector<std::string> names;
    if (output_names.is_none()) return names;
    for (py::handle n : output_names) {
      if (!py::isinstance<py::str>(n)) ThrowInvalid("output names must be str");
      names.push_back(n.cast<std::string>());
    }
    for (const auto& name : names) {
      bool found = false;
      for (const auto& o : s.outputs()) found = found || o.name == name;
      if (!found) {
        std::string all;
        for (const auto& o : s.outputs()) all += (all.empty() ? "" : ", ") + o.name;
        ThrowInvalid("model '" + s.model().DisplayName() + "': '" + name + "' is not an output of the model (outputs: " +
                     all + ")");
      }
    }
    return names;
  }

  Feeds ToFeeds(const Session& s, const py::dict& feed) const {
    Feeds feeds;
    for (auto [k, v] : feed) {
      if (!py::isinstance<py::str>(k)) ThrowInvalid("input names must be str");
      std::string name = k.cast<std::string>();
      const TypeInfo* declared = nullptr;
      if (const ValueInfo* vi = s.model().graph->FindValueInfo(name)) declared = &vi->type;
      feeds.emplace_back(name, PyToValue(py::reinterpret_borrow<py::object>(v), declared, "input '" + name + "'"));
    }
    return feeds;
  }

  // Fills a bound output's own memory with the run's result, unless the
  // kernel already wrote it there: one copy at the end of the run.
  static void CopyInto(PyOrtValue& target, const Value& result, const std::string& name) {
    if (!target.value.is_tensor()) ThrowInvalid("output '" + name + "' is bound to a value that is not a tensor");
    if (target.read_only) ThrowInvalid("output '" + name + "' is bound to a read-only array");
    if (!result.is_tensor()) ThrowInvalid("output '" + name + "' is a " + result.Describe() + ", not a tensor");
    Tensor& dst = target.value.tensor();
    const Tensor& src = result.tensor();
    if (dst.dtype() != src.dtype() || dst.shape() != src.shape())
      ThrowInvalid("output '" + name + "' is " + DataTypeName(src.dtype()) + " " + ShapeToString(src.shape()) +
                   " but the memory bound to it holds " + DataTypeName(dst.dtype()) + " " + ShapeToString(dst.shape()));
    if (src.dtype() == DataType::kString) {
      for (int64_t i = 0; i < src.numel(); ++i) dst.data<std::string>()[i] = src.data<std::string>()[i];
      return;
    }
    if (dst.raw_data() != src.raw_data() && src.nbytes() > 0) std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
  }

  SessionOptions options_;
  std::shared_ptr<const Model> model_;  // as loaded: sessions compile their own copy
  py::dict config_from_model_;
  mutable std::mutex mu_;
  std::shared_ptr<Session> session_;
};

}  // namespace

void BindSession(py::module_& m) {
  py::class_<SessionConfig>(m, "SessionConfig")
      .def(py::init<>())
      .def_readwrite("options", &SessionConfig::options)
      .def_readwrite("default_log_severity", &SessionConfig::default_log_severity)
      .def_readwrite("disabled_optimizers", &SessionConfig::disabled_optimizers)
      .def_readwrite("optimized_model_external_file", &SessionConfig::optimized_model_external_file)
      .def_readwrite("optimized_model_external_min_bytes", &SessionConfig::optimized_model_external_min_bytes)
      .def_readwrite("winograd_convolutions", &SessionConfig::winograd_convolutions)
      .def_readwrite("max_isa", &SessionConfig::max_isa)
      .def_readwrite("free_dimension_overrides", &SessionConfig::free_dimension_overrides)
      .def_readwrite("initializers", &SessionConfig::initializers)
      .def_readwrite("read_config_from_model", &SessionConfig::read_config_from_model)
      .def_readwrite("files_in_memory", &SessionConfig::files_in_memory);

  py::class_<PySession>(m, "Session")
      .def(py::init<const py::object&, const SessionConfig&, const std::vector<std::string>&>(), py::arg("source"),
           py::arg("config"), py::arg("providers"))
      .def("reset_providers", &PySession::Reset, py::arg("providers"))
      .def("inputs", &PySession::Inputs)
      .def("outputs", &PySession::Outputs)
      .def("overridable_initializers", &PySession::OverridableInitializers)
      .def("metadata", &PySession::Metadata)
      .def("providers", &PySession::Providers)
      .def("placement", &PySession::Placement)
      .def("instruction_sets", &PySession::InstructionSets)
      .def("kv_cache_slots", &PySession::KvCacheSlotList)
      .def("config_from_model", &PySession::ConfigFromModel)
      .def("end_profiling", &PySession::EndProfiling)
      .def("profiling_start_time_ns", &PySession::ProfilingStartTimeNs)
      .def("run", &PySession::Run, py::arg("output_names"), py::arg("feed"))
      .def("run_with_ort_values", &PySession::RunWithOrtValues, py::arg("output_names"), py::arg("feed"),
           py::arg("bound") = py::dict());
}

}  // namespace tessera
