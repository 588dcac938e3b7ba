// The public API's one error boundary: the runtime throws tessera::Error
// (base/status.h); every exported function runs its body through Guarded,
// which turns whatever escapes into tessera::v1::Error.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include "tessera/base/status.h"
#include "tessera/errors.h"

namespace tessera::v1::detail {

ErrorCode PublicErrorCode(::tessera::StatusCode code);
// Throws the public error for a failed status.
[[noreturn]] void ThrowPublic(const ::tessera::Status& status);

template <typename Fn>
auto Guarded(Fn&& fn) -> std::invoke_result_t<Fn&> {
  using Result = std::invoke_result_t<Fn&>;
  if constexpr (std::is_void_v<Result>) {
    ::tessera::Status status = ::tessera::CatchStatus(fn);
    if (!status.ok()) ThrowPublic(status);
  } else {
    std::optional<Result> result;
    ::tessera::Status status = ::tessera::CatchStatus([&] { result.emplace(fn()); });
    if (!status.ok()) ThrowPublic(status);
    return std::move(*result);
  }
}

}  // namespace tessera::v1::detail
