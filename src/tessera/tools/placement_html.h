// `tessera partition MODEL --html OUT.html`: the placement map, one
// self-contained page (inline SVG laid out by Graphviz at export time, inline
// script and style, nothing fetched when it is viewed).
#pragma once

#include <string>
#include <vector>

#include "tessera/tools/placement_plan.h"

namespace tessera::cli {

struct PlacementMapOptions {
  std::string model;                   // the model's path, for the title
  std::vector<std::string> providers;  // as requested
  std::string profile;                 // a Chrome trace (run --profile) to shade nodes by time; "" = none
};

// The whole page. Throws kNotImplemented when the build lacks Graphviz and
// kInvalidArgument for an unreadable profile.
std::string PlacementMapHtml(const Plan& plan, const PlacementMapOptions& options);

}  // namespace tessera::cli
