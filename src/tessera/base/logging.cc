#include "tessera/base/logging.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace tessera {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kVerbose: return "V";
    case Severity::kInfo: return "I";
    case Severity::kWarning: return "W";
    case Severity::kError: return "E";
    case Severity::kFatal: return "F";
  }
  return "?";
}

namespace {
std::mutex& LogMutex() {
  static std::mutex mu;
  return mu;
}
LogSink& Sink() {
  static LogSink sink;
  return sink;
}
}  // namespace

void SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(LogMutex());
  Sink() = std::move(sink);
}

void Logger::Log(Severity s, const std::string& message) const {
  std::lock_guard<std::mutex> lock(LogMutex());
  if (Sink()) {
    Sink()(log_id_, s, message);
    return;
  }
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
  std::fprintf(stderr, "%s [%s:%s] %s\n", stamp, SeverityName(s), log_id_.c_str(), message.c_str());
}

}  // namespace tessera
