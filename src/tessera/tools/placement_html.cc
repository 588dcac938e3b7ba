#include "tessera/tools/placement_html.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "tessera/base/json.h"
#include "tessera/base/mapped_file.h"
#include "tessera/tools/graph_layout.h"
#include "tessera/tools/placement_page.h"

namespace tessera::cli {

namespace {

// Above this many nodes the page opens with partitions collapsed.
constexpr size_t kCollapseAbove = 1500;

struct Palette {
  int light[3], dark[3];
};

// Light fill and dark border per provider, in the order providers appear.
Palette ProviderPalette(const std::string& provider, size_t index) {
  if (provider == "cpu") return {{198, 219, 239}, {33, 113, 181}};
  if (provider == "opencl") return {{253, 208, 162}, {217, 72, 1}};
  if (provider == "dnnl") return {{199, 233, 192}, {35, 139, 69}};
  static const Palette others[] = {{{218, 218, 235}, {106, 81, 163}}, {{252, 197, 192}, {174, 1, 126}},
                                   {{217, 217, 217}, {82, 82, 82}}};
  return others[index % 3];
}

std::string Hex(const int rgb[3]) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

// t in [0, 1]: white .. light .. dark.
std::string Shade(const Palette& p, double t) {
  int rgb[3];
  for (int c = 0; c < 3; ++c) {
    double a = t < 0.5 ? 255 + (p.light[c] - 255) * (t * 2) : p.light[c] + (p.dark[c] - p.light[c]) * ((t - 0.5) * 2);
    rgb[c] = static_cast<int>(std::lround(a));
  }
  return Hex(rgb);
}

// Long names keep a third of their head (the layer) and the rest from the
// tail (the op's own name); cuts never split a UTF-8 sequence.
std::string Shorten(const std::string& s, size_t n = 40) {
  if (s.size() <= n) return s;
  auto continuation = [&](size_t i) { return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
  size_t head = n / 3, tail = s.size() - (n - head - 1);
  while (head > 0 && continuation(head)) --head;
  while (tail < s.size() && continuation(tail)) ++tail;
  return s.substr(0, head) + "…" + s.substr(tail);
}

std::string CssName(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

std::string Quoted(const std::string& s) { return "\"" + JsonEscape(s) + "\""; }

std::string CopyLabel(const std::string& bytes) {
  if (bytes.empty() || bytes.find_first_not_of("0123456789") != std::string::npos) return "copy dynamic";
  double b = std::stod(bytes);
  char buf[48];
  if (b >= 1e6) std::snprintf(buf, sizeof(buf), "copy %.2f MB", b / 1e6);
  else if (b >= 1e3) std::snprintf(buf, sizeof(buf), "copy %.1f kB", b / 1e3);
  else std::snprintf(buf, sizeof(buf), "copy %s B", bytes.c_str());
  return buf;
}

// Node time in microseconds per node name, summed over a trace's runs.
std::unordered_map<std::string, double> ReadProfile(const std::string& path, int* runs) {
  Json trace = ParseJson(ReadFileToString(path));
  const Json* events = trace.Find("traceEvents");
  if (events == nullptr || events->type != Json::Type::kArray)
    TS_THROW(kInvalidArgument, "--profile: '", path, "' has no traceEvents array (write one with tessera run --profile)");
  std::unordered_map<std::string, double> us;
  *runs = 0;
  for (const Json& e : events->array) {
    std::string cat = e.StringOr("cat", "");
    if (cat == "node") us[e.StringOr("name", "")] += e.NumberOr("dur", 0);
    if (cat == "session" && e.StringOr("name", "") == "model_run") ++*runs;
  }
  return us;
}

std::string TypeOf(const Session& s, const std::string& value) {
  const TypeInfo* t = s.ValueType(value);
  return t == nullptr ? "dynamic" : t->ToString();
}

}  // namespace

std::string PlacementMapHtml(const Plan& plan, const PlacementMapOptions& options) {
  const Session& session = *plan.session;
  const Graph& graph = *session.model().graph;
  std::vector<std::string> providers;  // the session's, in priority order (the legend lists them all)
  for (const auto& p : session.providers()) providers.push_back(p->name());
  for (const auto& n : plan.nodes)
    if (std::find(providers.begin(), providers.end(), n.provider) == providers.end()) providers.push_back(n.provider);
  std::map<std::string, Palette> palette;
  for (size_t i = 0; i < providers.size(); ++i) palette[providers[i]] = ProviderPalette(providers[i], i);

  std::unordered_map<std::string, double> node_us;
  int runs = 0;
  double max_us = 0, total_us = 0;
  if (!options.profile.empty()) {
    node_us = ReadProfile(options.profile, &runs);
    for (const auto& n : plan.nodes) {
      auto it = node_us.find(n.node);
      if (it == node_us.end()) continue;
      max_us = std::max(max_us, it->second);
      total_us += it->second;
    }
  }
  auto time_of = [&](const std::string& name) {
    auto it = node_us.find(name);
    return it == node_us.end() ? -1.0 : it->second;
  };

  LayoutGraph layout;
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    const std::string& ep = plan.nodes[plan.partitions[p].front()].provider;
    double us = 0;
    for (size_t i : plan.partitions[p]) us += std::max(0.0, time_of(plan.nodes[i].node));
    std::ostringstream label;
    label << "#" << p << " " << ep << " · " << plan.partitions[p].size() << " node" << (plan.partitions[p].size() == 1 ? "" : "s");
    if (total_us > 0) {
      char share[32];
      std::snprintf(share, sizeof(share), " · %.1f%% of time", 100.0 * us / total_us);
      label << share;
    }
    const Palette& pal = palette[ep];
    layout.clusters.push_back({"p" + std::to_string(p), label.str(), "part ep-" + CssName(ep), Shade(pal, 0.12),
                               Hex(pal.dark)});
  }
  std::unordered_map<std::string, std::string> producer;  // value -> layout node id
  std::unordered_map<std::string, std::string> space_of;  // layout node id -> memory space
  std::set<std::string> initializers;
  for (const auto& [name, t] : graph.initializers) initializers.insert(name);
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const auto& in = graph.inputs[k];
    if (initializers.count(in.name)) continue;
    std::string id = "gi" + std::to_string(k);
    layout.nodes.push_back({id, Shorten(in.name), "io input", "#eeeeee", "#777777", "ellipse", 1.0, -1});
    producer[in.name] = id;
    space_of[id] = "host";
  }
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    std::string id = "n" + std::to_string(i);
    bool fell_back = !n.declined.empty();
    double t = time_of(n.node);
    std::string fill = max_us > 0 ? Shade(palette[n.provider], t < 0 ? 0.0 : 0.15 + 0.85 * std::sqrt(t / max_us))
                                  : Shade(palette[n.provider], 0.5);
    std::string cls = "tnode ep-" + CssName(n.provider) + (fell_back ? " fallback" : "");
    layout.nodes.push_back({id, (fell_back ? "⚠ " : "") + Shorten(n.node) + "\n" + n.op_type, cls, fill,
                            fell_back ? "#d62728" : "#444444", "box", fell_back ? 2.5 : 1.0, n.partition});
    space_of[id] = plan.MemorySpace(n.provider);
    if (plan.graph_nodes[i])
      for (const auto& o : plan.graph_nodes[i]->outputs)
        if (!o.empty()) producer[o] = id;
  }
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    std::string id = "go" + std::to_string(k);
    layout.nodes.push_back({id, Shorten(graph.outputs[k].name), "io output", "#eeeeee", "#777777", "ellipse", 1.0, -1});
    space_of[id] = "host";
  }
  // Edges: one per (producer, consumer) pair, copies marked on the edge that
  // crosses from the copy's source memory space to its destination.
  std::multimap<std::string, size_t> copies_of;  // value -> copy index
  for (size_t c = 0; c < plan.copies.size(); ++c) copies_of.emplace(plan.copies[c].value, c);
  std::map<std::pair<std::string, std::string>, size_t> edge_index;
  std::vector<std::pair<std::string, std::string>> edge_ends;
  auto add_edge = [&](const std::string& value, const std::string& to) {
    auto pit = producer.find(value);
    if (pit == producer.end()) return;
    const std::string& from = pit->second;
    int copy = -1;
    auto [b, e] = copies_of.equal_range(value);
    for (auto it = b; it != e; ++it)
      if (plan.copies[it->second].from == space_of[from] && plan.copies[it->second].to == space_of[to])
        copy = static_cast<int>(it->second);
    auto key = std::make_pair(from, to);
    auto found = edge_index.find(key);
    if (found == edge_index.end()) {
      edge_index[key] = layout.edges.size();
      edge_ends.push_back(key);
      layout.edges.push_back({from, to, "e" + std::to_string(layout.edges.size()), "flow", "", "#8a8a8a", 1.0});
      found = edge_index.find(key);
    }
    if (copy >= 0) {
      auto& edge = layout.edges[found->second];
      edge.css_class = (edge.css_class == "flow" ? std::string("copy") : edge.css_class) + " copy-" + std::to_string(copy);
      edge.label += (edge.label.empty() ? "" : "\n") + CopyLabel(plan.copies[copy].bytes);
      edge.color = "#d62728";
      edge.pen_width = 2.2;
    }
  };
  for (size_t i = 0; i < plan.nodes.size(); ++i)
    if (plan.graph_nodes[i])
      for (const auto& v : plan.graph_nodes[i]->inputs)
        if (!v.empty() && !initializers.count(v)) add_edge(v, "n" + std::to_string(i));
  for (size_t k = 0; k < graph.outputs.size(); ++k) add_edge(graph.outputs[k].name, "go" + std::to_string(k));

  std::string svg = LayoutToSvg(layout);
  // The overview: one box per partition, an edge where values cross between
  // two, labelled with the copies' bytes. A 6,000-node model is a few dozen
  // partitions there; a click jumps to the partition in the full drawing.
  std::string overview;
  if (plan.partitions.size() > 1) {
    LayoutGraph small;
    small.id = "overview-graph";
    small.rankdir = "LR";
    for (size_t p = 0; p < plan.partitions.size(); ++p) {
      const std::string& ep = plan.nodes[plan.partitions[p].front()].provider;
      std::string label = "#" + std::to_string(p) + " " + ep + "\n" + std::to_string(plan.partitions[p].size()) + " node" +
                          (plan.partitions[p].size() == 1 ? "" : "s");
      size_t cut = layout.clusters[p].label.find(" · ", layout.clusters[p].label.find(" node"));
      if (cut != std::string::npos) label += "\n" + layout.clusters[p].label.substr(cut + 4);
      small.nodes.push_back({"o" + std::to_string(p), label, "onode ep-" + CssName(ep), Shade(palette[ep], 0.5),
                             Hex(palette[ep].dark), "box", 1.5, -1});
    }
    std::unordered_map<std::string, int> part_of;
    for (size_t i = 0; i < plan.nodes.size(); ++i) part_of["n" + std::to_string(i)] = plan.nodes[i].partition;
    std::map<std::pair<int, int>, std::set<int>> crossings;  // partition pair -> copy indices (-1: no copy)
    for (const auto& e : layout.edges) {
      auto a = part_of.find(e.from), b = part_of.find(e.to);
      if (a == part_of.end() || b == part_of.end() || a->second == b->second) continue;
      auto& copies = crossings[{a->second, b->second}];
      copies.insert(-1);
      for (size_t pos = e.css_class.find("copy-"); pos != std::string::npos; pos = e.css_class.find("copy-", pos + 5))
        copies.insert(std::stoi(e.css_class.substr(pos + 5)));
    }
    for (const auto& [ends, copies] : crossings) {
      std::string label;
      int64_t bytes = 0;
      bool dynamic = false, any = false;
      for (int c : copies) {
        if (c < 0) continue;
        any = true;
        const std::string& b = plan.copies[static_cast<size_t>(c)].bytes;
        if (!b.empty() && b.find_first_not_of("0123456789") == std::string::npos) bytes += std::stoll(b);
        else dynamic = true;
      }
      if (any) label = dynamic ? "copy dynamic" : CopyLabel(std::to_string(bytes));
      small.edges.push_back({"o" + std::to_string(ends.first), "o" + std::to_string(ends.second),
                             "oe" + std::to_string(small.edges.size()), any ? "ocopy" : "oflow", label,
                             any ? "#d62728" : "#8a8a8a", any ? 2.0 : 1.0});
    }
    overview = LayoutToSvg(small);
  }

  // The data the page's script reads: per node what the hover panel and the
  // search show, per partition its share, per edge its ends.
  std::ostringstream data;
  data << "{\"model\": " << Quoted(options.model) << ", \"verdict\": " << Quoted(Verdict(plan))
       << ", \"profiled\": " << (total_us > 0 ? "true" : "false") << ", \"runs\": " << runs
       << ", \"collapse_above\": " << kCollapseAbove << ", \"providers\": [";
  for (size_t i = 0; i < providers.size(); ++i)
    data << (i ? ", " : "") << "{\"name\": " << Quoted(providers[i]) << ", \"css\": " << Quoted(CssName(providers[i]))
         << ", \"color\": " << Quoted(Shade(palette[providers[i]], 0.5)) << "}";
  data << "],\n\"nodes\": [\n";
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    data << (i ? ",\n" : "") << "{\"name\": " << Quoted(n.node) << ", \"op\": " << Quoted(n.op_type)
         << ", \"domain\": " << Quoted(n.domain) << ", \"opset\": " << session.model().OpsetFor(n.domain)
         << ", \"ep\": " << Quoted(n.provider) << ", \"part\": " << n.partition << ", \"flops\": " << n.flops
         << ", \"us\": " << time_of(n.node) << ", \"declined\": [";
    for (size_t d = 0; d < n.declined.size(); ++d) data << (d ? ", " : "") << Quoted(n.declined[d]);
    data << "], \"in\": [";
    if (plan.graph_nodes[i]) {
      bool first = true;
      for (const auto& v : plan.graph_nodes[i]->inputs) {
        if (v.empty()) continue;
        data << (first ? "" : ", ") << "[" << Quoted(v) << ", " << Quoted(TypeOf(session, v)) << "]";
        first = false;
      }
      data << "], \"out\": [";
      first = true;
      for (const auto& v : plan.graph_nodes[i]->outputs) {
        if (v.empty()) continue;
        data << (first ? "" : ", ") << "[" << Quoted(v) << ", " << Quoted(TypeOf(session, v)) << "]";
        first = false;
      }
    } else {
      data << "], \"out\": [";
    }
    data << "]}";
  }
  data << "],\n\"partitions\": [";
  for (size_t p = 0; p < plan.partitions.size(); ++p) {
    double us = 0;
    for (size_t i : plan.partitions[p]) us += std::max(0.0, time_of(plan.nodes[i].node));
    data << (p ? ", " : "") << "{\"ep\": " << Quoted(plan.nodes[plan.partitions[p].front()].provider)
         << ", \"nodes\": " << plan.partitions[p].size() << ", \"share\": " << (total_us > 0 ? us / total_us : -1.0) << "}";
  }
  data << "],\n\"copies\": [";
  for (size_t c = 0; c < plan.copies.size(); ++c)
    data << (c ? ", " : "") << "{\"value\": " << Quoted(plan.copies[c].value) << ", \"from\": " << Quoted(plan.copies[c].from)
         << ", \"to\": " << Quoted(plan.copies[c].to) << ", \"bytes\": " << Quoted(plan.copies[c].bytes) << "}";
  data << "],\n\"edges\": [";
  for (size_t e = 0; e < edge_ends.size(); ++e)
    data << (e ? ", " : "") << "[" << Quoted(edge_ends[e].first) << ", " << Quoted(edge_ends[e].second) << "]";
  data << "]}";
  std::string json = data.str();
  // Inside <script>, "</" would end the element early.
  for (size_t pos = 0; (pos = json.find("</", pos)) != std::string::npos; pos += 3) json.replace(pos, 2, "<\\/");
  return PlacementPage(options.model, Verdict(plan), json, svg, overview, plan.nodes.size() > kCollapseAbove);
}

}  // namespace tessera::cli
