// The placement map's page: style, script and layout around the SVG dot drew
// and the JSON the script reads (placement_html.cc makes both).
#pragma once

#include <string>

namespace tessera::cli {

// verdict: the text report's last line, shown as is (the page reads it
// without its script too). overview: the partition-level drawing, "" for a
// single partition, shown open when overview_open (large graphs).
std::string PlacementPage(const std::string& title, const std::string& verdict, const std::string& data_json,
                          const std::string& svg, const std::string& overview, bool overview_open);

}  // namespace tessera::cli
