// OrtSession: creation from a path or bytes, inspection, Run and profiling.
// A session may be run from several threads at once (tessera::Session::Run
// is const and thread-safe), as ORT allows.
#include <atomic>
#include <chrono>
#include <thread>

#include "tessera/api/c/ort_objects.h"
#include "tessera/api/providers.h"

namespace tessera::capi {

namespace {

std::string UniqueLogId(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "#" + std::to_string(++counter);
}

template <typename Load>
OrtStatus* NewSession(const OrtEnv* env, const OrtSessionOptions* options, OrtSession** out, const char* entry,
                      Load&& load) {
  // Cancellation has ORT's own code, outside Tessera's error kinds.
  if (options && IsLiveHandle(options, HandleKind::kSessionOptions) && options->cancel_load)
    return MakeStatus(ORT_MODEL_LOAD_CANCELED,
                      std::string(entry) + ": the options' load cancellation flag is set; no model loaded");
  return Guard([&] {
    Live(env, entry, "env");
    NotNull(out, entry, "out");
    OrtSessionOptions defaults;
    const OrtSessionOptions& o = options ? *Live(options, entry, "options") : defaults;
    SessionOptions so = o.options;
    if (!o.log_severity_set) so.log_severity_level = static_cast<Severity>(static_cast<int>(env->severity));
    if (o.use_env_threads && env->has_global_threads) {
      so.intra_op_num_threads = env->global_intra_op_threads;
      so.inter_op_num_threads = env->global_inter_op_threads;
    }
    auto session = std::make_unique<OrtSession>();
    if (o.log_fn) {
      // Log lines reach the function by log id: make this session's its own.
      so.log_id = UniqueLogId(so.log_id);
      SetSessionLogger(so.log_id, o.log_fn, o.log_param);
      session->routes_logs = true;
    }
    session->log_id = so.log_id;
    try {
      std::vector<std::string> providers = o.providers.empty() ? DefaultProviders() : o.providers;
      session->profiling_start_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                              std::chrono::system_clock::now().time_since_epoch())
                                                              .count());
      session->session = load(so, MakeProviders(providers), o.files_in_memory);
    } catch (...) {
      if (session->routes_logs) RemoveSessionLogger(session->log_id);
      throw;
    }
    const Graph& graph = *session->session->model().graph;
    for (const auto& in : graph.inputs)
      if (graph.initializers.count(in.name)) session->overridable.push_back(in);
    *out = session.release();
  });
}

const OrtSession* LiveSession(const OrtSession* s, const char* entry) { return Live(s, entry, "session"); }

const ValueInfo& At(const std::vector<ValueInfo>& list, size_t index, const char* what, const char* entry) {
  if (index >= list.size())
    TS_THROW(kInvalidArgument, entry, ": index ", index, " is out of range: the model has ", list.size(), " ", what);
  return list[index];
}

}  // namespace

OrtStatus* CreateSession(const OrtEnv* env, const ORTCHAR_T* model_path, const OrtSessionOptions* options,
                         OrtSession** out) noexcept {
  return NewSession(env, options, out, "CreateSession",
                    [&](const SessionOptions& so, ProviderList providers, const InMemoryFiles& files) {
    return Session::FromFile(NotNull(model_path, "CreateSession", "model_path"), so, std::move(providers), files);
  });
}

OrtStatus* CreateSessionFromArray(const OrtEnv* env, const void* model_data, size_t model_data_length,
                                  const OrtSessionOptions* options, OrtSession** out) noexcept {
  return NewSession(env, options, out, "CreateSessionFromArray",
                    [&](const SessionOptions& so, ProviderList providers, const InMemoryFiles& files) {
    if (model_data_length == 0) TS_THROW(kInvalidArgument, "CreateSessionFromArray: the model is 0 bytes");
    return Session::FromBytes(NotNull(model_data, "CreateSessionFromArray", "model_data"), model_data_length, so,
                              std::move(providers), files);
  });
}

void ReleaseSession(OrtSession* input) noexcept {
  if (input && IsLiveHandle(input, HandleKind::kSession) && input->routes_logs) RemoveSessionLogger(input->log_id);
  ReleaseHandle(input, "ReleaseSession");
}

// ---------------------------------------------------------------- inspection

OrtStatus* SessionGetInputCount(const OrtSession* session, size_t* out) noexcept {
  return Guard([&] {
    *NotNull(out, "SessionGetInputCount", "out") = LiveSession(session, "SessionGetInputCount")->session->inputs().size();
  });
}
OrtStatus* SessionGetOutputCount(const OrtSession* session, size_t* out) noexcept {
  return Guard([&] {
    *NotNull(out, "SessionGetOutputCount", "out") = LiveSession(session, "SessionGetOutputCount")->session->outputs().size();
  });
}
OrtStatus* SessionGetOverridableInitializerCount(const OrtSession* session, size_t* out) noexcept {
  return Guard([&] {
    *NotNull(out, "SessionGetOverridableInitializerCount", "out") =
        LiveSession(session, "SessionGetOverridableInitializerCount")->overridable.size();
  });
}

namespace {

enum class Listing { kInputs, kOutputs, kOverridableInitializers };

const ValueInfo& Listed(const OrtSession* s, Listing which, size_t index, const char* entry) {
  switch (which) {
    case Listing::kInputs: return At(s->session->inputs(), index, "inputs", entry);
    case Listing::kOutputs: return At(s->session->outputs(), index, "outputs", entry);
    case Listing::kOverridableInitializers: break;
  }
  return At(s->overridable, index, "overridable initializers", entry);
}

OrtStatus* TypeInfoAt(const OrtSession* session, size_t index, OrtTypeInfo** type_info, const char* entry,
                      Listing which) {
  return Guard([&] {
    TypeInfo type = Listed(LiveSession(session, entry), which, index, entry).type;
    // An output whose type was not inferred before running: ORT reports a
    // tensor of unknown element type and rank, clients expect a tensor.
    if (type.kind == TypeInfo::Kind::kUnknown) type = TypeInfo::Tensor(DataType::kUndefined);
    *NotNull(type_info, entry, "type_info") = MakeTypeInfo(type).release();
  });
}

OrtStatus* NameAt(const OrtSession* session, size_t index, OrtAllocator* allocator, char** value, const char* entry,
                  Listing which) {
  return Guard([&] {
    const ValueInfo& info = Listed(LiveSession(session, entry), which, index, entry);
    *NotNull(value, entry, "value") = AllocString(allocator, info.name, entry);
  });
}

}  // namespace

OrtStatus* SessionGetInputTypeInfo(const OrtSession* session, size_t index, OrtTypeInfo** type_info) noexcept {
  return TypeInfoAt(session, index, type_info, "SessionGetInputTypeInfo", Listing::kInputs);
}
OrtStatus* SessionGetOutputTypeInfo(const OrtSession* session, size_t index, OrtTypeInfo** type_info) noexcept {
  return TypeInfoAt(session, index, type_info, "SessionGetOutputTypeInfo", Listing::kOutputs);
}
OrtStatus* SessionGetOverridableInitializerTypeInfo(const OrtSession* session, size_t index,
                                                    OrtTypeInfo** type_info) noexcept {
  return TypeInfoAt(session, index, type_info, "SessionGetOverridableInitializerTypeInfo", Listing::kOverridableInitializers);
}
OrtStatus* SessionGetInputName(const OrtSession* session, size_t index, OrtAllocator* allocator, char** value) noexcept {
  return NameAt(session, index, allocator, value, "SessionGetInputName", Listing::kInputs);
}
OrtStatus* SessionGetOutputName(const OrtSession* session, size_t index, OrtAllocator* allocator, char** value) noexcept {
  return NameAt(session, index, allocator, value, "SessionGetOutputName", Listing::kOutputs);
}
OrtStatus* SessionGetOverridableInitializerName(const OrtSession* session, size_t index, OrtAllocator* allocator,
                                                char** value) noexcept {
  return NameAt(session, index, allocator, value, "SessionGetOverridableInitializerName", Listing::kOverridableInitializers);
}

// Every input and output lives in host memory.
OrtStatus* SessionGetMemoryInfoForInputs(const OrtSession* session, const OrtMemoryInfo** inputs_memory_info,
                                         size_t num_inputs) noexcept {
  return Guard([&] {
    size_t n = LiveSession(session, "SessionGetMemoryInfoForInputs")->session->inputs().size();
    if (num_inputs != n) TS_THROW(kInvalidArgument, "SessionGetMemoryInfoForInputs: the model has ", n, " inputs, not ", num_inputs);
    if (n > 0) NotNull(inputs_memory_info, "SessionGetMemoryInfoForInputs", "inputs_memory_info");
    for (size_t i = 0; i < n; ++i) inputs_memory_info[i] = CpuMemoryInfo();
  });
}
OrtStatus* SessionGetMemoryInfoForOutputs(const OrtSession* session, const OrtMemoryInfo** outputs_memory_info,
                                          size_t num_outputs) noexcept {
  return Guard([&] {
    size_t n = LiveSession(session, "SessionGetMemoryInfoForOutputs")->session->outputs().size();
    if (num_outputs != n) TS_THROW(kInvalidArgument, "SessionGetMemoryInfoForOutputs: the model has ", n, " outputs, not ", num_outputs);
    if (n > 0) NotNull(outputs_memory_info, "SessionGetMemoryInfoForOutputs", "outputs_memory_info");
    for (size_t i = 0; i < n; ++i) outputs_memory_info[i] = CpuMemoryInfo();
  });
}

// ----------------------------------------------------------------- profiling

OrtStatus* SessionEndProfiling(OrtSession* session, OrtAllocator* allocator, char** out) noexcept {
  return Guard([&] {
    Live(session, "SessionEndProfiling", "session");
    NotNull(allocator, "SessionEndProfiling", "allocator");
    NotNull(out, "SessionEndProfiling", "out");
    *out = AllocString(allocator, session->session->EndProfiling(), "SessionEndProfiling");
  });
}

OrtStatus* SessionGetProfilingStartTimeNs(const OrtSession* session, uint64_t* out) noexcept {
  return Guard([&] {
    *NotNull(out, "SessionGetProfilingStartTimeNs", "out") =
        LiveSession(session, "SessionGetProfilingStartTimeNs")->profiling_start_ns;
  });
}

// ----------------------------------------------------------------------- run

void CheckRunOptions(const OrtRunOptions* run_options, const char* entry) {
  if (!run_options) return;
  Live(run_options, entry, "run_options");
  if (run_options->terminate)
    throw Error(StatusCode::kInternal, std::string(entry) + ": the run options' terminate flag is set (tag '" +
                                           run_options->tag + "'); no run started");
}

OrtStatus* Run(OrtSession* session, const OrtRunOptions* run_options, const char* const* input_names,
               const OrtValue* const* inputs, size_t input_len, const char* const* output_names,
               size_t output_names_len, OrtValue** outputs) noexcept {
  return Guard([&] {
    Live(session, "Run", "session");
    CheckRunOptions(run_options, "Run");
    if (input_len > 0) {
      NotNull(input_names, "Run", "input_names");
      NotNull(inputs, "Run", "inputs");
    }
    if (output_names_len == 0) TS_THROW(kInvalidArgument, "Run: no outputs requested (output_names_len is 0)");
    NotNull(output_names, "Run", "output_names");
    NotNull(outputs, "Run", "outputs");
    Feeds feeds;
    feeds.reserve(input_len);
    for (size_t i = 0; i < input_len; ++i) {
      const char* name = NotNull(input_names[i], "Run", "input_names[i]");
      if (!inputs[i]) TS_THROW(kInvalidArgument, "Run: the value for input '", name, "' is NULL");
      feeds.emplace_back(name, Live(inputs[i], "Run", name)->value);
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < output_names_len; ++i) {
      names.push_back(NotNull(output_names[i], "Run", "output_names[i]"));
      if (outputs[i]) Live(outputs[i], "Run", "outputs[i] (a preallocated output)");
    }
    std::vector<const Value*> preallocated(output_names_len);
    for (size_t i = 0; i < output_names_len; ++i) preallocated[i] = outputs[i] ? &outputs[i]->value : nullptr;
    const BoundOutputMap bound = BoundTargets(names, preallocated);
    std::vector<Value> results;
    {
      ScopedBoundOutputs in_place(bound.empty() ? nullptr : &bound);
      results = session->session->Run(feeds, names);
    }
    // Build every new output before handing any out, so a failure leaves
    // the caller's array as it was.
    std::vector<std::unique_ptr<OrtValue>> created(output_names_len);
    for (size_t i = 0; i < output_names_len; ++i) {
      if (outputs[i]) CopyIntoPreallocated(results[i], outputs[i]->value, names[i]);
      else created[i] = std::make_unique<OrtValue>(DetachOutput(std::move(results[i])));
    }
    for (size_t i = 0; i < output_names_len; ++i)
      if (created[i]) outputs[i] = created[i].release();
  });
}

}  // namespace tessera::capi

namespace tessera::capi {

// Runs on a thread of its own and reports through the callback, which owns
// the status it gets (NULL on success). The names and values are copied
// now; the client's memory behind the inputs and the `output` array must
// stay valid until the callback, as ORT requires.
OrtStatus* RunAsync(OrtSession* session, const OrtRunOptions* run_options, const char* const* input_names,
                    const OrtValue* const* input, size_t input_len, const char* const* output_names,
                    size_t output_names_len, OrtValue** output, RunAsyncCallbackFn run_async_callback,
                    void* user_data) noexcept {
  return Guard([&] {
    Live(session, "RunAsync", "session");
    NotNull(run_async_callback, "RunAsync", "run_async_callback");
    NotNull(output, "RunAsync", "output");
    if (input_len > 0) {
      NotNull(input_names, "RunAsync", "input_names");
      NotNull(input, "RunAsync", "input");
    }
    if (output_names_len > 0) NotNull(output_names, "RunAsync", "output_names");
    // Copies the run keeps: OrtValues of the inputs (sharing their buffers)
    // and the names.
    auto values = std::make_shared<std::vector<std::unique_ptr<OrtValue>>>();
    auto in_names = std::make_shared<std::vector<std::string>>();
    for (size_t i = 0; i < input_len; ++i) {
      in_names->push_back(NotNull(input_names[i], "RunAsync", "input_names[i]"));
      values->push_back(std::make_unique<OrtValue>(Live(input[i], "RunAsync", "input[i]")->value));
    }
    auto out_names = std::make_shared<std::vector<std::string>>();
    for (size_t i = 0; i < output_names_len; ++i) out_names->push_back(NotNull(output_names[i], "RunAsync", "output_names[i]"));
    std::thread([=] {
      std::vector<const char*> in_ptrs, out_ptrs;
      std::vector<const OrtValue*> in_values;
      for (size_t i = 0; i < in_names->size(); ++i) {
        in_ptrs.push_back((*in_names)[i].c_str());
        in_values.push_back((*values)[i].get());
      }
      for (const auto& n : *out_names) out_ptrs.push_back(n.c_str());
      OrtStatus* status = Run(session, run_options, in_ptrs.data(), in_values.data(), in_ptrs.size(), out_ptrs.data(),
                              out_ptrs.size(), output);
      run_async_callback(user_data, output, out_ptrs.size(), status);
    }).detach();
  });
}

}  // namespace tessera::capi
