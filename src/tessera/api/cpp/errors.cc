#include "tessera/errors.h"

#include "tessera/api/cpp/error_translation.h"
#include "tessera/version.h"

namespace tessera::v1 {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kInvalidModel: return "invalid model";
    case ErrorCode::kNotImplemented: return "not implemented";
    case ErrorCode::kOpsetMismatch: return "opset mismatch";
    case ErrorCode::kIoError: return "I/O error";
    case ErrorCode::kResourceExhausted: return "resource exhausted";
    case ErrorCode::kRuntimeError: return "runtime error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

Error::Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
Error::~Error() = default;

const char* Version() { return TESSERA_VERSION_STRING; }

namespace detail {

ErrorCode PublicErrorCode(::tessera::StatusCode code) {
  using ::tessera::StatusCode;
  switch (code) {
    case StatusCode::kInvalidArgument: return ErrorCode::kInvalidArgument;
    case StatusCode::kInvalidModel: return ErrorCode::kInvalidModel;
    case StatusCode::kNotImplemented: return ErrorCode::kNotImplemented;
    case StatusCode::kOpsetMismatch: return ErrorCode::kOpsetMismatch;
    case StatusCode::kIoError: return ErrorCode::kIoError;
    case StatusCode::kResourceExhausted: return ErrorCode::kResourceExhausted;
    case StatusCode::kRuntimeError: return ErrorCode::kRuntimeError;
    case StatusCode::kOk:  // a failed status is never kOk; treat it as a bug
    case StatusCode::kInternal: return ErrorCode::kInternal;
  }
  return ErrorCode::kInternal;
}

void ThrowPublic(const ::tessera::Status& status) { throw Error(PublicErrorCode(status.code()), status.message()); }

}  // namespace detail
}  // namespace tessera::v1
