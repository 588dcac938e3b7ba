// TESSERA_API marks what libtessera.so exports. The library is built with
// hidden visibility, so only the classes and functions of these headers are
// part of its ABI; everything of the runtime behind them stays internal.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define TESSERA_API __attribute__((visibility("default")))
#else
#define TESSERA_API
#endif
