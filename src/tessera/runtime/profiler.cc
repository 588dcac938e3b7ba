#include "tessera/runtime/profiler.h"

#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <cstdio>
#include <ctime>
#include <fstream>

#include "tessera/base/json.h"
#include "tessera/base/status.h"

namespace tessera {

Profiler::Profiler()
    : origin_(std::chrono::steady_clock::now()),
      start_time_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()) {}

int64_t Profiler::NowMicros() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - origin_).count();
}

uint64_t Profiler::CurrentThreadId() { return static_cast<uint64_t>(::syscall(SYS_gettid)); }

void Profiler::Record(TraceEvent event) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(event));
}

std::vector<TraceEvent> Profiler::Events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

std::string Profiler::Quote(const std::string& s) { return "\"" + JsonEscape(s) + "\""; }

std::string Profiler::WriteTrace(const std::string& prefix) const {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d_%H-%M-%S", &tm);
  std::string path = prefix + "_" + stamp + "_" + std::to_string(::getpid()) + ".json";
  std::ofstream out(path);
  if (!out) TS_THROW(kIoError, "cannot write the profile to '", path, "'");
  std::vector<TraceEvent> events = Events();
  out << "{\"traceEvents\": [\n";
  int pid = ::getpid();
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    out << "{\"name\": " << Quote(e.name) << ", \"cat\": " << Quote(e.category) << ", \"ph\": \"X\", \"ts\": "
        << e.start_us << ", \"dur\": " << e.duration_us << ", \"pid\": " << pid << ", \"tid\": " << e.thread_id
        << ", \"args\": {";
    for (size_t a = 0; a < e.args.size(); ++a)
      out << (a ? ", " : "") << Quote(e.args[a].first) << ": " << e.args[a].second;
    out << "}}" << (i + 1 < events.size() ? "," : "") << "\n";
  }
  out << "], \"displayTimeUnit\": \"ms\"}\n";
  return path;
}

ScopedPhase::~ScopedPhase() {
  if (profiler_ == nullptr) return;
  TraceEvent e;
  e.name = name_;
  e.category = "session";
  e.start_us = start_;
  e.duration_us = profiler_->NowMicros() - start_;
  e.thread_id = Profiler::CurrentThreadId();
  profiler_->Record(std::move(e));
}

}  // namespace tessera
