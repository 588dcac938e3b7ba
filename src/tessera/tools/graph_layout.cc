#include "tessera/tools/graph_layout.h"

#include "tessera/base/status.h"

#ifdef TESSERA_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

namespace tessera::cli {

#ifdef TESSERA_HAVE_GRAPHVIZ

namespace {

// cgraph takes char* for names and values it only reads.
void Set(void* obj, const char* key, const std::string& value) {
  agsafeset(obj, const_cast<char*>(key), const_cast<char*>(value.c_str()), const_cast<char*>(""));
}

std::string Pen(double w) { return std::to_string(w); }

// dot reads backslash escapes in labels ("\n" = a centered line break, "\N"
// = the node's name): keep names' backslashes literal, turn newlines into breaks.
std::string Label(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

bool HaveGraphviz() { return true; }

std::string LayoutToSvg(const LayoutGraph& graph) {
  GVC_t* gvc = gvContext();
  if (gvc == nullptr) TS_THROW(kInternal, "Graphviz: cannot create a context");
  Agraph_t* g = agopen(const_cast<char*>("placement"), Agdirected, nullptr);
  Set(g, "id", graph.id);
  Set(g, "rankdir", graph.rankdir);
  Set(g, "fontname", "Helvetica");
  Set(g, "nodesep", "0.25");
  Set(g, "ranksep", "0.35");
  // Large graphs: bound dot's crossing minimization and network simplex so
  // a 6,000-node model lays out in seconds rather than minutes.
  if (graph.nodes.size() > 1500) {
    Set(g, "mclimit", "0.2");
    Set(g, "nslimit", "2");
    Set(g, "nslimit1", "2");
    Set(g, "searchsize", "10");
  }
  std::vector<Agraph_t*> clusters;
  for (size_t i = 0; i < graph.clusters.size(); ++i) {
    const auto& c = graph.clusters[i];
    std::string name = "cluster_" + std::to_string(i);
    Agraph_t* s = agsubg(g, const_cast<char*>(name.c_str()), 1);
    Set(s, "id", c.id);
    Set(s, "label", Label(c.label));
    Set(s, "class", c.css_class);
    Set(s, "style", "rounded,filled");
    Set(s, "fillcolor", c.fill);
    Set(s, "color", c.border);
    Set(s, "fontname", "Helvetica");
    Set(s, "fontsize", "11");
    Set(s, "labeljust", "l");
    clusters.push_back(s);
  }
  std::vector<Agnode_t*> nodes;
  for (const auto& n : graph.nodes) {
    Agraph_t* owner = n.cluster >= 0 && static_cast<size_t>(n.cluster) < clusters.size() ? clusters[n.cluster] : g;
    Agnode_t* v = agnode(owner, const_cast<char*>(n.id.c_str()), 1);
    Set(v, "id", n.id);
    Set(v, "label", Label(n.label));
    Set(v, "class", n.css_class);
    Set(v, "shape", n.shape);
    Set(v, "style", n.shape == "box" ? "rounded,filled" : "filled");
    Set(v, "fillcolor", n.fill);
    Set(v, "color", n.border);
    Set(v, "penwidth", Pen(n.pen_width));
    Set(v, "fontname", "Helvetica");
    Set(v, "fontsize", "10");
    Set(v, "margin", "0.08,0.03");
    Set(v, "height", "0.3");
    nodes.push_back(v);
  }
  for (const auto& e : graph.edges) {
    Agnode_t* a = agnode(g, const_cast<char*>(e.from.c_str()), 0);
    Agnode_t* b = agnode(g, const_cast<char*>(e.to.c_str()), 0);
    if (a == nullptr || b == nullptr) continue;
    Agedge_t* x = agedge(g, a, b, const_cast<char*>(e.id.c_str()), 1);
    Set(x, "id", e.id);
    Set(x, "class", e.css_class);
    if (!e.label.empty()) {
      Set(x, "label", Label(e.label));
      Set(x, "fontsize", "9");
      Set(x, "fontname", "Helvetica");
      Set(x, "fontcolor", e.color);
    }
    Set(x, "color", e.color);
    Set(x, "penwidth", Pen(e.pen_width));
    Set(x, "arrowsize", "0.6");
  }
  int rc = gvLayout(gvc, g, "dot");
  char* data = nullptr;
  unsigned int length = 0;
  if (rc == 0) rc = gvRenderData(gvc, g, "svg", &data, &length);
  std::string svg = rc == 0 && data != nullptr ? std::string(data, length) : std::string();
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  if (svg.empty()) TS_THROW(kInternal, "Graphviz could not lay the graph out (dot returned ", rc, ")");
  size_t start = svg.find("<svg");
  return start == std::string::npos ? svg : svg.substr(start);
}

#else

bool HaveGraphviz() { return false; }

std::string LayoutToSvg(const LayoutGraph&) {
  TS_THROW(kNotImplemented,
           "this build of tessera lacks Graphviz, which the placement map (--html) lays the graph out with: "
           "install libgraphviz-dev (scripts/setup.sh) and rebuild");
}

#endif

}  // namespace tessera::cli
