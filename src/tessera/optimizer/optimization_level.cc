#include "tessera/optimizer/optimization_level.h"

#include <cctype>

#include "tessera/base/status.h"

namespace tessera {

OptimizationLevel ParseOptimizationLevel(const std::string& text) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "disabled" || t == "none" || t == "0" || t == "ort_disable_all") return OptimizationLevel::kDisabled;
  if (t == "basic" || t == "1" || t == "ort_enable_basic") return OptimizationLevel::kBasic;
  if (t == "extended" || t == "2" || t == "ort_enable_extended") return OptimizationLevel::kExtended;
  if (t == "layout" || t == "3" || t == "ort_enable_layout") return OptimizationLevel::kLayout;
  if (t == "all" || t == "4" || t == "99" || t == "ort_enable_all") return OptimizationLevel::kAll;
  TS_THROW(kInvalidArgument, "unknown graph optimization level '", text,
           "' (expected disabled, basic, extended, layout or all)");
}

const char* OptimizationLevelName(OptimizationLevel level) {
  switch (level) {
    case OptimizationLevel::kDisabled: return "disabled";
    case OptimizationLevel::kBasic: return "basic";
    case OptimizationLevel::kExtended: return "extended";
    case OptimizationLevel::kLayout: return "layout";
    case OptimizationLevel::kAll: return "all";
  }
  return "?";
}

}  // namespace tessera
