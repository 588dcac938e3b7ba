// OrtRunOptions: a tag and log level for one Run, config entries, and the
// terminate flag. Tessera checks the flag when a run starts (a run already
// executing finishes): a run begun after RunOptionsSetTerminate fails.
#include "tessera/api/c/ort_objects.h"

namespace tessera::capi {

OrtStatus* CreateRunOptions(OrtRunOptions** out) noexcept {
  return Guard([&] { *NotNull(out, "CreateRunOptions", "out") = new OrtRunOptions; });
}

void ReleaseRunOptions(OrtRunOptions* input) noexcept { ReleaseHandle(input, "ReleaseRunOptions"); }

OrtStatus* RunOptionsSetRunLogVerbosityLevel(OrtRunOptions* options, int log_verbosity_level) noexcept {
  return Guard([&] { Live(options, "RunOptionsSetRunLogVerbosityLevel", "options")->log_verbosity = log_verbosity_level; });
}

OrtStatus* RunOptionsSetRunLogSeverityLevel(OrtRunOptions* options, int log_severity_level) noexcept {
  return Guard([&] {
    Live(options, "RunOptionsSetRunLogSeverityLevel", "options");
    if (log_severity_level < 0 || log_severity_level > 4)
      TS_THROW(kInvalidArgument, "RunOptionsSetRunLogSeverityLevel: ", log_severity_level,
               " is not a severity (0 verbose .. 4 fatal)");
    options->log_severity = log_severity_level;
  });
}

OrtStatus* RunOptionsSetRunTag(OrtRunOptions* options, const char* run_tag) noexcept {
  return Guard([&] {
    Live(options, "RunOptionsSetRunTag", "options")->tag = NotNull(run_tag, "RunOptionsSetRunTag", "run_tag");
  });
}

OrtStatus* RunOptionsGetRunLogVerbosityLevel(const OrtRunOptions* options, int* log_verbosity_level) noexcept {
  return Guard([&] {
    *NotNull(log_verbosity_level, "RunOptionsGetRunLogVerbosityLevel", "log_verbosity_level") =
        Live(options, "RunOptionsGetRunLogVerbosityLevel", "options")->log_verbosity;
  });
}

OrtStatus* RunOptionsGetRunLogSeverityLevel(const OrtRunOptions* options, int* log_severity_level) noexcept {
  return Guard([&] {
    *NotNull(log_severity_level, "RunOptionsGetRunLogSeverityLevel", "log_severity_level") =
        Live(options, "RunOptionsGetRunLogSeverityLevel", "options")->log_severity;
  });
}

OrtStatus* RunOptionsGetRunTag(const OrtRunOptions* options, const char** run_tag) noexcept {
  return Guard([&] {
    *NotNull(run_tag, "RunOptionsGetRunTag", "run_tag") = Live(options, "RunOptionsGetRunTag", "options")->tag.c_str();
  });
}

OrtStatus* RunOptionsSetTerminate(OrtRunOptions* options) noexcept {
  return Guard([&] { Live(options, "RunOptionsSetTerminate", "options")->terminate = true; });
}

OrtStatus* RunOptionsUnsetTerminate(OrtRunOptions* options) noexcept {
  return Guard([&] { Live(options, "RunOptionsUnsetTerminate", "options")->terminate = false; });
}

OrtStatus* AddRunConfigEntry(OrtRunOptions* options, const char* config_key, const char* config_value) noexcept {
  return Guard([&] {
    Live(options, "AddRunConfigEntry", "options");
    std::string key = NotNull(config_key, "AddRunConfigEntry", "config_key");
    if (key.empty()) TS_THROW(kInvalidArgument, "AddRunConfigEntry: the key is empty");
    options->config.Set(key, NotNull(config_value, "AddRunConfigEntry", "config_value"));
  });
}

const char* GetRunConfigEntry(const OrtRunOptions* options, const char* config_key) noexcept {
  if (!options || !config_key || !IsLiveHandle(options, HandleKind::kRunOptions)) return nullptr;
  const std::string* v = options->config.Find(config_key);
  return v ? v->c_str() : nullptr;
}

}  // namespace tessera::capi
