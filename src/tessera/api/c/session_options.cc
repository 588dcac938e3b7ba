// OrtSessionOptions: ORT's setters mapped onto tessera::SessionOptions.
#include <algorithm>

#include "tessera/api/c/ort_objects.h"

const std::string* OrtSessionOptions::FindConfig(const std::string& key) const {
  for (const auto& [k, v] : config)
    if (k == key) return &v;
  return nullptr;
}

namespace tessera::capi {

namespace {

// Runs a setter on a checked options handle.
template <typename Fn>
OrtStatus* WithOptions(OrtSessionOptions* options, const char* entry, Fn&& fn) {
  return Guard([&] { fn(*Live(options, entry, "options")); });
}

// Sets mem_pattern or cpu_arena.
OrtStatus* SetMemorySwitch(OrtSessionOptions* options, const char* entry, bool OrtSessionOptions::*which, bool on) {
  return WithOptions(options, entry, [&](OrtSessionOptions& o) {
    o.*which = on;
    o.UpdateMemoryArena();
  });
}

// Config keys whose value Tessera acts on; every other key is stored (and
// reported back by GetSessionConfigEntry) as ORT stores unknown keys.
void ApplyConfigEntry(OrtSessionOptions& o, const std::string& key, const std::string& value) {
  auto flag = [&](bool* target) {
    if (value != "0" && value != "1")
      TS_THROW(kInvalidArgument, "AddSessionConfigEntry: '", key, "' takes \"0\" or \"1\", got \"", value, "\"");
    *target = value == "1";
  };
  if (key == "session.disable_cpu_ep_fallback") flag(&o.options.disable_cpu_fallback);
  else if (key == "tessera.winograd_convolutions") flag(&o.options.winograd_convolutions);
  else if (key == "tessera.max_isa") o.options.max_isa = value;
  else if (key == "session.disable_prepacking" || key == "session.intra_op.allow_spinning" ||
           key == "session.inter_op.allow_spinning" || key == "session.use_env_allocators" ||
           key == "session.set_denormal_as_zero") {
    bool ignored = false;  // checked only: Tessera behaves the same either way
    flag(&ignored);
  }
}

}  // namespace

OrtStatus* CreateSessionOptions(OrtSessionOptions** options) noexcept {
  return Guard([&] { *NotNull(options, "CreateSessionOptions", "options") = new OrtSessionOptions; });
}

OrtStatus* CloneSessionOptions(const OrtSessionOptions* in_options, OrtSessionOptions** out_options) noexcept {
  return Guard([&] {
    Live(in_options, "CloneSessionOptions", "in_options");
    *NotNull(out_options, "CloneSessionOptions", "out_options") = new OrtSessionOptions(*in_options);
  });
}

void ReleaseSessionOptions(OrtSessionOptions* input) noexcept { ReleaseHandle(input, "ReleaseSessionOptions"); }

OrtStatus* SetOptimizedModelFilePath(OrtSessionOptions* options, const ORTCHAR_T* optimized_model_filepath) noexcept {
  return WithOptions(options, "SetOptimizedModelFilePath", [&](OrtSessionOptions& o) {
    o.options.optimized_model_filepath =
        NotNull(optimized_model_filepath, "SetOptimizedModelFilePath", "optimized_model_filepath");
  });
}

OrtStatus* SetSessionExecutionMode(OrtSessionOptions* options, ExecutionMode execution_mode) noexcept {
  return WithOptions(options, "SetSessionExecutionMode", [&](OrtSessionOptions& o) {
    if (execution_mode != ORT_SEQUENTIAL && execution_mode != ORT_PARALLEL)
      TS_THROW(kInvalidArgument, "SetSessionExecutionMode: ", static_cast<int>(execution_mode),
               " is not an ExecutionMode (0 sequential, 1 parallel)");
    o.execution_mode = execution_mode;
  });
}

OrtStatus* GetSessionExecutionMode(const OrtSessionOptions* options, ExecutionMode* out) noexcept {
  return Guard([&] {
    *NotNull(out, "GetSessionExecutionMode", "out") = Live(options, "GetSessionExecutionMode", "options")->execution_mode;
  });
}

OrtStatus* EnableProfiling(OrtSessionOptions* options, const ORTCHAR_T* profile_file_prefix) noexcept {
  return WithOptions(options, "EnableProfiling", [&](OrtSessionOptions& o) {
    o.options.profile_file_prefix = NotNull(profile_file_prefix, "EnableProfiling", "profile_file_prefix");
    o.options.enable_profiling = true;
  });
}

OrtStatus* DisableProfiling(OrtSessionOptions* options) noexcept {
  return WithOptions(options, "DisableProfiling", [](OrtSessionOptions& o) { o.options.enable_profiling = false; });
}

// ORT's memory pattern (planned, reused activation memory) and its CPU arena
// are both what Tessera's memory planner does: turning either off turns the
// planner off.
OrtStatus* EnableMemPattern(OrtSessionOptions* options) noexcept {
  return SetMemorySwitch(options, "EnableMemPattern", &OrtSessionOptions::mem_pattern, true);
}
OrtStatus* DisableMemPattern(OrtSessionOptions* options) noexcept {
  return SetMemorySwitch(options, "DisableMemPattern", &OrtSessionOptions::mem_pattern, false);
}
OrtStatus* GetMemPatternEnabled(const OrtSessionOptions* options, int* out) noexcept {
  return Guard([&] { *NotNull(out, "GetMemPatternEnabled", "out") = Live(options, "GetMemPatternEnabled", "options")->mem_pattern; });
}
OrtStatus* EnableCpuMemArena(OrtSessionOptions* options) noexcept {
  return SetMemorySwitch(options, "EnableCpuMemArena", &OrtSessionOptions::cpu_arena, true);
}
OrtStatus* DisableCpuMemArena(OrtSessionOptions* options) noexcept {
  return SetMemorySwitch(options, "DisableCpuMemArena", &OrtSessionOptions::cpu_arena, false);
}

OrtStatus* SetSessionLogId(OrtSessionOptions* options, const char* logid) noexcept {
  return WithOptions(options, "SetSessionLogId",
                     [&](OrtSessionOptions& o) { o.options.log_id = NotNull(logid, "SetSessionLogId", "logid"); });
}

OrtStatus* SetSessionLogVerbosityLevel(OrtSessionOptions* options, int session_log_verbosity_level) noexcept {
  return WithOptions(options, "SetSessionLogVerbosityLevel",
                     [&](OrtSessionOptions& o) { o.log_verbosity = session_log_verbosity_level; });
}

OrtStatus* SetSessionLogSeverityLevel(OrtSessionOptions* options, int session_log_severity_level) noexcept {
  return WithOptions(options, "SetSessionLogSeverityLevel", [&](OrtSessionOptions& o) {
    if (session_log_severity_level < 0 || session_log_severity_level > 4)
      TS_THROW(kInvalidArgument, "SetSessionLogSeverityLevel: ", session_log_severity_level,
               " is not a severity (0 verbose .. 4 fatal)");
    o.options.log_severity_level = static_cast<Severity>(session_log_severity_level);
    o.log_severity_set = true;
  });
}

OrtStatus* SetSessionGraphOptimizationLevel(OrtSessionOptions* options,
                                            GraphOptimizationLevel graph_optimization_level) noexcept {
  return WithOptions(options, "SetSessionGraphOptimizationLevel", [&](OrtSessionOptions& o) {
    switch (graph_optimization_level) {
      case ORT_DISABLE_ALL: o.options.graph_optimization_level = OptimizationLevel::kDisabled; break;
      case ORT_ENABLE_BASIC: o.options.graph_optimization_level = OptimizationLevel::kBasic; break;
      case ORT_ENABLE_EXTENDED: o.options.graph_optimization_level = OptimizationLevel::kExtended; break;
      case ORT_ENABLE_LAYOUT: o.options.graph_optimization_level = OptimizationLevel::kLayout; break;
      case ORT_ENABLE_ALL: o.options.graph_optimization_level = OptimizationLevel::kAll; break;
      default:
        TS_THROW(kInvalidArgument, "SetSessionGraphOptimizationLevel: ", static_cast<int>(graph_optimization_level),
                 " is not a GraphOptimizationLevel (0, 1, 2, 3 or 99)");
    }
  });
}

OrtStatus* SetIntraOpNumThreads(OrtSessionOptions* options, int intra_op_num_threads) noexcept {
  return WithOptions(options, "SetIntraOpNumThreads", [&](OrtSessionOptions& o) {
    if (intra_op_num_threads < 0)
      TS_THROW(kInvalidArgument, "SetIntraOpNumThreads: thread count must be >= 0, got ", intra_op_num_threads);
    o.options.intra_op_num_threads = intra_op_num_threads;
  });
}

OrtStatus* SetInterOpNumThreads(OrtSessionOptions* options, int inter_op_num_threads) noexcept {
  return WithOptions(options, "SetInterOpNumThreads", [&](OrtSessionOptions& o) {
    if (inter_op_num_threads < 0)
      TS_THROW(kInvalidArgument, "SetInterOpNumThreads: thread count must be >= 0, got ", inter_op_num_threads);
    o.options.inter_op_num_threads = inter_op_num_threads;
  });
}

OrtStatus* SetDeterministicCompute(OrtSessionOptions* options, bool value) noexcept {
  // Tessera's kernels are deterministic already: a run repeats bit for bit.
  return WithOptions(options, "SetDeterministicCompute", [&](OrtSessionOptions& o) { o.deterministic = value; });
}

// Tessera loads a model in one step, so a flag set while a session is being
// created does not stop that load; a session created after the flag is set
// is refused with ORT_MODEL_LOAD_CANCELED.
OrtStatus* SessionOptionsSetLoadCancellationFlag(OrtSessionOptions* options, bool cancel) noexcept {
  return WithOptions(options, "SessionOptionsSetLoadCancellationFlag",
                     [&](OrtSessionOptions& o) { o.cancel_load = cancel; });
}

OrtStatus* SetUserLoggingFunction(OrtSessionOptions* options, OrtLoggingFunction user_logging_function,
                                  void* user_logging_param) noexcept {
  return WithOptions(options, "SetUserLoggingFunction", [&](OrtSessionOptions& o) {
    o.log_fn = user_logging_function;
    o.log_param = user_logging_param;
  });
}

// ---------------------------------------------------- overrides (model_overrides.h)

namespace {

// Both entries: the dimension matched by denotation or by name (`arg` is
// the C argument that names it).
OrtStatus* AddFreeDimension(OrtSessionOptions* options, const char* entry, const char* arg,
                            FreeDimensionOverride::Match match, const char* dim, int64_t dim_value) {
  return WithOptions(options, entry, [&](OrtSessionOptions& o) {
    NotNull(dim, entry, arg);
    if (dim_value < 0) TS_THROW(kInvalidArgument, entry, ": '", dim, "' = ", dim_value, ": must be >= 0");
    o.options.free_dimension_overrides.push_back({match, dim, dim_value});
  });
}

}  // namespace

OrtStatus* AddFreeDimensionOverride(OrtSessionOptions* options, const char* dim_denotation,
                                    int64_t dim_value) noexcept {
  return AddFreeDimension(options, "AddFreeDimensionOverride", "dim_denotation",
                          FreeDimensionOverride::Match::kDenotation, dim_denotation, dim_value);
}

OrtStatus* AddFreeDimensionOverrideByName(OrtSessionOptions* options, const char* dim_name,
                                          int64_t dim_value) noexcept {
  return AddFreeDimension(options, "AddFreeDimensionOverrideByName", "dim_name", FreeDimensionOverride::Match::kName,
                          dim_name, dim_value);
}

namespace {

void AddInitializerOverride(OrtSessionOptions& o, const char* name, const OrtValue* val, const char* entry) {
  NotNull(name, entry, "name");
  const Tensor& t = TensorOf(val, entry, "val");
  // The session keeps this tensor (sharing the caller's buffer when it is
  // one): ORT too requires the memory to outlive the session.
  for (auto& existing : o.options.initializer_overrides)
    if (existing.name == name) TS_THROW(kInvalidArgument, entry, ": initializer '", name, "' is added twice");
  o.options.initializer_overrides.push_back({name, t});
}

}  // namespace

OrtStatus* AddInitializer(OrtSessionOptions* options, const char* name, const OrtValue* val) noexcept {
  return WithOptions(options, "AddInitializer",
                     [&](OrtSessionOptions& o) { AddInitializerOverride(o, name, val, "AddInitializer"); });
}

OrtStatus* AddExternalInitializers(OrtSessionOptions* options, const char* const* initializer_names,
                                   const OrtValue* const* initializers, size_t num_initializers) noexcept {
  return WithOptions(options, "AddExternalInitializers", [&](OrtSessionOptions& o) {
    if (num_initializers == 0) return;
    NotNull(initializer_names, "AddExternalInitializers", "initializer_names");
    NotNull(initializers, "AddExternalInitializers", "initializers");
    for (size_t i = 0; i < num_initializers; ++i)
      AddInitializerOverride(o, initializer_names[i], initializers[i], "AddExternalInitializers");
  });
}

// The model's external-data files, from memory. The buffers are copied
// here, so each need only outlive this call; tensors borrow the copies.
OrtStatus* AddExternalInitializersFromFilesInMemory(OrtSessionOptions* options,
                                                    const ORTCHAR_T* const* external_initializer_file_names,
                                                    char* const* external_initializer_file_buffer_array,
                                                    const size_t* external_initializer_file_lengths,
                                                    size_t num_external_initializer_files) noexcept {
  const char* entry = "AddExternalInitializersFromFilesInMemory";
  return WithOptions(options, entry, [&](OrtSessionOptions& o) {
    if (num_external_initializer_files == 0) return;
    NotNull(external_initializer_file_names, entry, "external_initializer_file_names");
    NotNull(external_initializer_file_buffer_array, entry, "external_initializer_file_buffer_array");
    NotNull(external_initializer_file_lengths, entry, "external_initializer_file_lengths");
    for (size_t i = 0; i < num_external_initializer_files; ++i) {
      std::string name = NotNull(external_initializer_file_names[i], entry, "external_initializer_file_names[i]");
      const char* data = external_initializer_file_buffer_array[i];
      size_t size = external_initializer_file_lengths[i];
      if (size > 0 && !data) TS_THROW(kInvalidArgument, entry, ": the buffer of '", name, "' is NULL");
      auto copy = std::make_shared<std::vector<unsigned char>>(data, data + size);
      o.files_in_memory[name] = tessera::InMemoryFile{copy->data(), copy->size(), copy};
    }
  });
}

// --------------------------------------------------------------- config

OrtStatus* AddSessionConfigEntry(OrtSessionOptions* options, const char* config_key,
                                 const char* config_value) noexcept {
  return WithOptions(options, "AddSessionConfigEntry", [&](OrtSessionOptions& o) {
    std::string key = NotNull(config_key, "AddSessionConfigEntry", "config_key");
    std::string value = NotNull(config_value, "AddSessionConfigEntry", "config_value");
    if (key.empty()) TS_THROW(kInvalidArgument, "AddSessionConfigEntry: the key is empty");
    ApplyConfigEntry(o, key, value);
    for (auto& [k, v] : o.config)
      if (k == key) {
        v = value;
        return;
      }
    o.config.emplace_back(key, value);
  });
}

OrtStatus* HasSessionConfigEntry(const OrtSessionOptions* options, const char* config_key, int* out) noexcept {
  return Guard([&] {
    Live(options, "HasSessionConfigEntry", "options");
    *NotNull(out, "HasSessionConfigEntry", "out") =
        options->FindConfig(NotNull(config_key, "HasSessionConfigEntry", "config_key")) != nullptr;
  });
}

OrtStatus* GetSessionConfigEntry(const OrtSessionOptions* options, const char* config_key, char* config_value,
                                 size_t* size) noexcept {
  return Guard([&] {
    Live(options, "GetSessionConfigEntry", "options");
    const std::string* v = options->FindConfig(NotNull(config_key, "GetSessionConfigEntry", "config_key"));
    if (!v) throw Error(StatusCode::kInvalidArgument, std::string("GetSessionConfigEntry: no entry '") + config_key + "'");
    CopyToCallerBuffer(*v, config_value, size, true, "GetSessionConfigEntry");
  });
}

OrtStatus* GetSessionOptionsConfigEntries(const OrtSessionOptions* options, OrtKeyValuePairs** out) noexcept {
  return Guard([&] {
    Live(options, "GetSessionOptionsConfigEntries", "options");
    auto kvp = std::make_unique<OrtKeyValuePairs>();
    for (const auto& [k, v] : options->config) kvp->Set(k, v);
    *NotNull(out, "GetSessionOptionsConfigEntries", "out") = kvp.release();
  });
}

}  // namespace tessera::capi
