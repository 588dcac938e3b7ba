// Errors of Tessera's public C++ API. Every function of these headers
// reports failure by throwing tessera::v1::Error; its code says what kind of
// failure it is and what() names the input, node or option at fault.
#pragma once

#include <stdexcept>
#include <string>

#include "tessera/export.h"

namespace tessera::v1 {

enum class ErrorCode {
  kInvalidArgument = 1,  // a bad feed, option, provider name or tensor argument
  kInvalidModel,         // the model file is malformed or inconsistent
  kNotImplemented,       // an operator, type or attribute Tessera does not support
  kOpsetMismatch,        // the model asks for an opset Tessera does not implement
  kIoError,              // a file is missing or unreadable
  kResourceExhausted,    // out of memory, or a configured limit was exceeded
  kRuntimeError,         // a kernel failed while running
  kInternal,             // a bug in Tessera
};

// "invalid argument", "invalid model"...
TESSERA_API const char* ErrorCodeName(ErrorCode code);

class TESSERA_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  // Out of line so the class has one vtable and type_info, the library's:
  // catch clauses in the application then match what the library throws.
  ~Error() override;
  Error(const Error&) = default;
  Error& operator=(const Error&) = default;

  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace tessera::v1
