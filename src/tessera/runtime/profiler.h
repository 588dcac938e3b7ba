// Records session phases and per-node executions as Chrome trace events
// (the JSON that chrome://tracing and Perfetto open).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

struct TraceEvent {
  std::string name;
  std::string category;  // "session", "node", "copy", "partition"
  int64_t start_us = 0;
  int64_t duration_us = 0;
  uint64_t thread_id = 0;
  std::vector<std::pair<std::string, std::string>> args;  // values are JSON literals
};

class Profiler {
 public:
  Profiler();
  int64_t NowMicros() const;
  // When the trace starts (its time 0), in nanoseconds since the Unix epoch.
  int64_t StartTimeNs() const { return start_time_ns_; }
  void Record(TraceEvent event);
  // Writes the trace to `prefix_<timestamp>.json` and returns the path.
  std::string WriteTrace(const std::string& prefix) const;
  std::vector<TraceEvent> Events() const;

  static uint64_t CurrentThreadId();
  static std::string Quote(const std::string& s);  // JSON string literal

 private:
  std::chrono::steady_clock::time_point origin_;
  int64_t start_time_ns_ = 0;
  mutable std::mutex mu_;
  std::vector<TraceEvent> events_;
};

// Times a scope into the profiler (no-op when profiler is null).
class ScopedPhase {
 public:
  ScopedPhase(Profiler* profiler, std::string name)
      : profiler_(profiler), name_(std::move(name)), start_(profiler ? profiler->NowMicros() : 0) {}
  ~ScopedPhase();
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  Profiler* profiler_;
  std::string name_;
  int64_t start_;
};

}  // namespace tessera
