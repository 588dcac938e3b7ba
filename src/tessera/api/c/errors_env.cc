// Statuses, the environment, logging and process-wide settings.
#include <cstdio>
#include <map>
#include <mutex>

#include "tessera/api/c/ort_objects.h"
#include "tessera/base/logging.h"

namespace tessera::capi {

// ------------------------------------------------------------------ statuses

OrtStatus* CreateStatus(OrtErrorCode code, const char* msg) noexcept {
  return MakeStatus(code, msg ? msg : "");
}

OrtErrorCode GetErrorCode(const OrtStatus* status) noexcept { return status ? status->code : ORT_OK; }

const char* GetErrorMessage(const OrtStatus* status) noexcept { return status ? status->message.c_str() : ""; }

void ReleaseStatus(OrtStatus* input) noexcept {
  // Statuses are not registered (clients create and drop one per failed
  // call); the static out-of-memory status must not be freed.
  if (input && input != OutOfMemoryStatus()) delete input;
}

// ------------------------------------------------------------------- logging

namespace {

struct LogRoute {
  OrtLoggingFunction fn = nullptr;
  void* param = nullptr;
};

struct LogRoutes {
  std::mutex mutex;
  LogRoute env;
  std::map<std::string, LogRoute> sessions;  // by session log id
  bool installed = false;
};

LogRoutes& Routes() {
  static LogRoutes* routes = new LogRoutes;
  return *routes;
}

// Tessera's sink is process-wide; this one dispatches each line to the
// session's function, else the environment's, else stderr.
void InstallSink() {
  auto& r = Routes();
  if (r.installed) return;
  r.installed = true;
  SetLogSink([](const std::string& log_id, Severity severity, const std::string& message) {
    LogRoute route;
    {
      auto& routes = Routes();
      std::lock_guard<std::mutex> lock(routes.mutex);
      auto it = routes.sessions.find(log_id);
      route = it != routes.sessions.end() ? it->second : routes.env;
    }
    if (route.fn) {
      route.fn(route.param, static_cast<OrtLoggingLevel>(static_cast<int>(severity)), "tessera", log_id.c_str(), "",
               message.c_str());
    } else {
      std::fprintf(stderr, "[%s] %s: %s\n", SeverityName(severity), log_id.c_str(), message.c_str());
    }
  });
}

}  // namespace

void SetEnvLogger(OrtLoggingFunction fn, void* param) {
  auto& r = Routes();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.env = {fn, param};
  InstallSink();
}

void SetSessionLogger(const std::string& log_id, OrtLoggingFunction fn, void* param) {
  auto& r = Routes();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sessions[log_id] = {fn, param};
  InstallSink();
}

void RemoveSessionLogger(const std::string& log_id) {
  auto& r = Routes();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sessions.erase(log_id);
}

// ----------------------------------------------------------------------- env

namespace {

void CheckLevel(int level, const char* entry) {
  if (level < ORT_LOGGING_LEVEL_VERBOSE || level > ORT_LOGGING_LEVEL_FATAL)
    TS_THROW(kInvalidArgument, entry, ": log severity ", level, " is not an OrtLoggingLevel (0 verbose .. 4 fatal)");
}

OrtStatus* NewEnv(const char* entry, OrtLoggingFunction fn, void* param, OrtLoggingLevel level, const char* logid,
                  const OrtThreadingOptions* threading, OrtEnv** out) {
  return Guard([&] {
    NotNull(out, entry, "out");
    CheckLevel(level, entry);
    if (threading) Live(threading, entry, "tp_options");
    auto env = std::make_unique<OrtEnv>();
    env->severity = level;
    env->log_id = logid ? logid : "";
    env->log_fn = fn;
    env->log_param = param;
    if (threading) {
      env->has_global_threads = true;
      env->global_intra_op_threads = threading->intra_op_threads;
      env->global_inter_op_threads = threading->inter_op_threads;
    }
    SetEnvLogger(fn, param);
    *out = env.release();
  });
}

}  // namespace

OrtStatus* CreateEnv(OrtLoggingLevel log_severity_level, const char* logid, OrtEnv** out) noexcept {
  return NewEnv("CreateEnv", nullptr, nullptr, log_severity_level, logid, nullptr, out);
}

OrtStatus* CreateEnvWithCustomLogger(OrtLoggingFunction logging_function, void* logger_param,
                                     OrtLoggingLevel log_severity_level, const char* logid, OrtEnv** out) noexcept {
  if (!logging_function)
    return MakeStatus(ORT_INVALID_ARGUMENT, "CreateEnvWithCustomLogger: 'logging_function' is NULL");
  return NewEnv("CreateEnvWithCustomLogger", logging_function, logger_param, log_severity_level, logid, nullptr,
                out);
}

OrtStatus* CreateEnvWithGlobalThreadPools(OrtLoggingLevel log_severity_level, const char* logid,
                                          const OrtThreadingOptions* tp_options, OrtEnv** out) noexcept {
  return NewEnv("CreateEnvWithGlobalThreadPools", nullptr, nullptr, log_severity_level, logid, tp_options, out);
}

OrtStatus* CreateEnvWithCustomLoggerAndGlobalThreadPools(OrtLoggingFunction logging_function, void* logger_param,
                                                         OrtLoggingLevel log_severity_level, const char* logid,
                                                         const struct OrtThreadingOptions* tp_options,
                                                         OrtEnv** out) noexcept {
  return NewEnv("CreateEnvWithCustomLoggerAndGlobalThreadPools", logging_function, logger_param, log_severity_level,
                logid, tp_options, out);
}

OrtStatus* CreateEnvWithOptions(const OrtEnvCreationOptions* options, OrtEnv** out) noexcept {
  if (!options) return MakeStatus(ORT_INVALID_ARGUMENT, "CreateEnvWithOptions: 'options' is NULL");
  if (options->version < 24 || options->version > ORT_API_VERSION)
    return MakeStatus(ORT_INVALID_ARGUMENT, "CreateEnvWithOptions: options version " +
                                                std::to_string(options->version) + " is not 24.." +
                                                std::to_string(ORT_API_VERSION));
  return NewEnv("CreateEnvWithOptions", options->custom_logging_function, options->custom_logging_param,
                static_cast<OrtLoggingLevel>(options->logging_severity_level), options->log_id,
                options->threading_options, out);
}

void ReleaseEnv(OrtEnv* input) noexcept {
  if (input && IsLiveHandle(input, HandleKind::kEnv) && input->log_fn) SetEnvLogger(nullptr, nullptr);
  ReleaseHandle(input, "ReleaseEnv");
}

OrtStatus* UpdateEnvWithCustomLogLevel(OrtEnv* ort_env, OrtLoggingLevel log_severity_level) noexcept {
  return Guard([&] {
    Live(ort_env, "UpdateEnvWithCustomLogLevel", "ort_env");
    CheckLevel(log_severity_level, "UpdateEnvWithCustomLogLevel");
    ort_env->severity = log_severity_level;
  });
}

// Telemetry: Tessera sends none, so there is nothing to switch.
OrtStatus* EnableTelemetryEvents(const OrtEnv* env) noexcept {
  return Guard([&] { Live(env, "EnableTelemetryEvents", "env"); });
}
OrtStatus* DisableTelemetryEvents(const OrtEnv* env) noexcept {
  return Guard([&] { Live(env, "DisableTelemetryEvents", "env"); });
}

OrtStatus* SetLanguageProjection(const OrtEnv* ort_env, OrtLanguageProjection projection) noexcept {
  return Guard([&] {
    Live(ort_env, "SetLanguageProjection", "ort_env");
    if (projection < ORT_PROJECTION_C || projection > ORT_PROJECTION_NODEJS)
      TS_THROW(kInvalidArgument, "SetLanguageProjection: ", static_cast<int>(projection),
               " is not an OrtLanguageProjection");
  });
}

// ------------------------------------------------------- threading options

OrtStatus* CreateThreadingOptions(OrtThreadingOptions** out) noexcept {
  return Guard([&] { *NotNull(out, "CreateThreadingOptions", "out") = new OrtThreadingOptions; });
}

void ReleaseThreadingOptions(OrtThreadingOptions* input) noexcept { ReleaseHandle(input, "ReleaseThreadingOptions"); }

OrtStatus* SetGlobalIntraOpNumThreads(OrtThreadingOptions* tp_options, int intra_op_num_threads) noexcept {
  return Guard([&] {
    Live(tp_options, "SetGlobalIntraOpNumThreads", "tp_options");
    if (intra_op_num_threads < 0)
      TS_THROW(kInvalidArgument, "SetGlobalIntraOpNumThreads: thread count must be >= 0, got ", intra_op_num_threads);
    tp_options->intra_op_threads = intra_op_num_threads;
  });
}

OrtStatus* SetGlobalInterOpNumThreads(OrtThreadingOptions* tp_options, int inter_op_num_threads) noexcept {
  return Guard([&] {
    Live(tp_options, "SetGlobalInterOpNumThreads", "tp_options");
    if (inter_op_num_threads < 0)
      TS_THROW(kInvalidArgument, "SetGlobalInterOpNumThreads: thread count must be >= 0, got ", inter_op_num_threads);
    tp_options->inter_op_threads = inter_op_num_threads;
  });
}

OrtStatus* SetGlobalSpinControl(OrtThreadingOptions* tp_options, int allow_spinning) noexcept {
  return Guard([&] {
    Live(tp_options, "SetGlobalSpinControl", "tp_options");
    if (allow_spinning != 0 && allow_spinning != 1)
      TS_THROW(kInvalidArgument, "SetGlobalSpinControl: allow_spinning must be 0 or 1, got ", allow_spinning);
    tp_options->allow_spinning = allow_spinning == 1;
  });
}

OrtStatus* SetGlobalDenormalAsZero(OrtThreadingOptions* tp_options) noexcept {
  return Guard([&] { Live(tp_options, "SetGlobalDenormalAsZero", "tp_options")->denormal_as_zero = true; });
}

// Sessions always own their thread pool in Tessera: one created with these
// options gets the global thread counts of its environment instead.
OrtStatus* DisablePerSessionThreads(OrtSessionOptions* options) noexcept {
  return Guard([&] { Live(options, "DisablePerSessionThreads", "options")->use_env_threads = true; });
}

}  // namespace tessera::capi
