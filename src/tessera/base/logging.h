// Severity-filtered logging with a per-session log id.
#pragma once

#include <functional>
#include <mutex>
#include <sstream>
#include <string>

namespace tessera {

enum class Severity { kVerbose = 0, kInfo = 1, kWarning = 2, kError = 3, kFatal = 4 };

const char* SeverityName(Severity s);

// Where log lines go: stderr by default. An application (or a test) may
// route them elsewhere; the sink receives the log id, severity and message
// and is called under a lock, one line at a time. Pass nullptr to restore
// stderr.
using LogSink = std::function<void(const std::string& log_id, Severity severity, const std::string& message)>;
void SetLogSink(LogSink sink);

class Logger {
 public:
  explicit Logger(std::string log_id = "tessera", Severity min_severity = Severity::kWarning)
      : log_id_(std::move(log_id)), min_severity_(min_severity) {}

  bool Enabled(Severity s) const { return static_cast<int>(s) >= static_cast<int>(min_severity_); }
  void Log(Severity s, const std::string& message) const;
  Severity min_severity() const { return min_severity_; }
  const std::string& log_id() const { return log_id_; }

 private:
  std::string log_id_;
  Severity min_severity_;
};

}  // namespace tessera

// Builds the message only when the severity is enabled.
#define TS_LOG(logger, severity, ...)                                     \
  do {                                                                    \
    if ((logger).Enabled(::tessera::Severity::severity)) {                \
      std::ostringstream ts_log_os__;                                     \
      ts_log_os__ << __VA_ARGS__;                                         \
      (logger).Log(::tessera::Severity::severity, ts_log_os__.str());     \
    }                                                                     \
  } while (0)
