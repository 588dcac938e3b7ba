// Lays a graph out with Graphviz's dot (libgvc) and renders it to SVG, once,
// at export time: the placement map's browser side only shows and hides what
// is already placed, so it stays responsive at thousands of nodes.
#pragma once

#include <string>
#include <vector>

namespace tessera::cli {

struct LayoutGraph {
  struct Node {
    std::string id;     // SVG element id
    std::string label;  // lines separated by '\n'
    std::string css_class;
    std::string fill, border;  // colors, "#rrggbb"
    std::string shape = "box";
    double pen_width = 1.0;
    int cluster = -1;  // index into clusters, -1 = none
  };
  struct Edge {
    std::string from, to;  // node ids
    std::string id, css_class, label, color;
    double pen_width = 1.0;
  };
  struct Cluster {
    std::string id, label, css_class, fill, border;
  };
  std::string id = "graph";  // the drawing's root group id (unique per page)
  std::string rankdir = "TB";  // dot's direction: TB (top to bottom) or LR
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
};

// Whether this build has Graphviz (libgraphviz-dev at configure time).
bool HaveGraphviz();
// The <svg> element dot draws for the graph (top to bottom). Throws
// kNotImplemented when the build lacks Graphviz, kInternal when dot fails.
std::string LayoutToSvg(const LayoutGraph& graph);

}  // namespace tessera::cli
