// Graph optimization levels. Levels run in order; a session at level L runs
// every pass whose level is at most L.
#pragma once

#include <string>

namespace tessera {

enum class OptimizationLevel { kDisabled = 0, kBasic = 1, kExtended = 2, kLayout = 3, kAll = 4 };

// "disabled" | "basic" | "extended" | "layout" | "all" (also ORT's spellings
// ORT_DISABLE_ALL, ORT_ENABLE_BASIC, ORT_ENABLE_EXTENDED, ORT_ENABLE_LAYOUT,
// ORT_ENABLE_ALL and the numbers 0-4). Throws kInvalidArgument otherwise.
OptimizationLevel ParseOptimizationLevel(const std::string& text);
const char* OptimizationLevelName(OptimizationLevel level);

}  // namespace tessera
