// The auto_pad attribute of the windowed ops (convolutions, pools).
#pragma once

#include <string>

#include "tessera/ops/kernel.h"

namespace tessera::cpu {

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

inline AutoPad ParseAutoPad(const KernelInfo& info) {
  std::string s = info.attr_string("auto_pad", "NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "VALID") return AutoPad::kValid;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  info.Fail("unknown auto_pad value '", s, "'");
}

}  // namespace tessera::cpu
