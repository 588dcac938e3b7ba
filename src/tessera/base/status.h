// Error model: internal code throws tessera::Error; API boundaries convert it
// into a Status so callers of the C/C++/Python APIs never see an exception
// escape unexpectedly.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tessera {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // bad feed, bad option, bad CLI argument
  kInvalidModel,      // model file malformed or inconsistent
  kNotImplemented,    // op / type / attribute we do not support
  kOpsetMismatch,     // model asks for an opset we do not implement
  kIoError,           // file missing, unreadable
  kResourceExhausted, // a configured limit was exceeded
  kRuntimeError,      // a kernel failed while running
  kInternal,          // a bug in Tessera
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  StatusCode code() const { return code_; }
  Status ToStatus() const { return Status(code_, what()); }

 private:
  StatusCode code_;
};

namespace detail {
template <typename... Args>
std::string Concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}
}  // namespace detail

template <typename... Args>
[[noreturn]] void Throw(StatusCode code, Args&&... args) {
  throw Error(code, detail::Concat(std::forward<Args>(args)...));
}

// Runs fn, turning any exception into a Status.
template <typename Fn>
Status CatchStatus(Fn&& fn) {
  try {
    fn();
    return Status::Ok();
  } catch (const Error& e) {
    return e.ToStatus();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, "out of memory");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
}

}  // namespace tessera

#define TS_THROW(code, ...) ::tessera::Throw(::tessera::StatusCode::code, __VA_ARGS__)

// Checks a condition that depends on user input (model, feeds, options).
#define TS_CHECK(cond, code, ...) \
  do {                            \
    if (!(cond)) TS_THROW(code, __VA_ARGS__); \
  } while (0)
