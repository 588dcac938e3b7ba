// `tessera profile TRACE.json`: where the time went, from a profile written
// by enable_profiling (or `tessera run --profile`).
#include <algorithm>
#include <cstdio>
#include <map>

#include "tessera/base/mapped_file.h"
#include "tessera/tools/cli.h"
#include "tessera/base/json.h"

namespace tessera::cli {

namespace {

struct Totals {
  double us = 0;
  int count = 0;
};

void PrintTable(const char* title, const std::map<std::string, Totals>& rows, double total_us) {
  std::vector<std::pair<std::string, Totals>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  std::printf("\n%s\n", title);
  for (const auto& [name, t] : sorted)
    std::printf("  %-32s %10.3f ms %6.1f%%  (%d)\n", name.c_str(), t.us / 1000.0,
                total_us > 0 ? 100.0 * t.us / total_us : 0.0, t.count);
}

}  // namespace

int ProfileCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {});
  if (args.positional.size() != 1) TS_THROW(kInvalidArgument, "usage: tessera profile TRACE.json");
  Json trace = ParseJson(ReadFileToString(args.positional[0]));
  const Json* events = trace.Find("traceEvents");
  if (events == nullptr || events->type != Json::Type::kArray)
    TS_THROW(kInvalidArgument, "'", args.positional[0], "' has no traceEvents array");

  std::map<std::string, Totals> by_op, by_ep, phases, by_kernel;
  struct NodeTime {
    std::string name, op, ep, shapes;
    double us;
  };
  std::vector<NodeTime> nodes;
  double node_us = 0, copy_us = 0;
  // Inside compiled partitions (oneDNN): primitives and layout reorders.
  double step_us = 0, reorder_us = 0;
  int steps = 0, reorders = 0;
  int runs = 0;
  for (const Json& e : events->array) {
    std::string cat = e.StringOr("cat", "");
    double dur = e.NumberOr("dur", 0);
    const Json* a = e.Find("args");
    std::string op = a ? a->StringOr("op_type", "?") : "?";
    std::string ep = a ? a->StringOr("provider", "?") : "?";
    if (cat == "node" || cat == "copy") {
      node_us += dur;
      if (cat == "copy") copy_us += dur;
      by_op[cat == "copy" ? "(copy)" : op].us += dur;
      by_op[cat == "copy" ? "(copy)" : op].count++;
      by_ep[ep].us += dur;
      by_ep[ep].count++;
      std::string shapes;
      if (a) {
        if (const Json* ins = a->Find("inputs"))
          for (const Json& s : ins->array) shapes += (shapes.empty() ? "" : " ") + s.string;
      }
      nodes.push_back({e.StringOr("name", "?"), op, ep, shapes, dur});
    } else if (cat == "step" || cat == "reorder") {
      (cat == "step" ? step_us : reorder_us) += dur;
      ++(cat == "step" ? steps : reorders);
      Totals& k = by_kernel[a ? a->StringOr("implementation", "?") : "?"];
      k.us += dur;
      k.count++;
    } else if (cat == "session") {
      std::string name = e.StringOr("name", "?");
      if (name == "model_run") ++runs;
      phases[name].us += dur;
      phases[name].count++;
    }
  }
  std::printf("profile %s: %zu node executions over %d run(s), %.3f ms in nodes\n", args.positional[0].c_str(),
              nodes.size(), runs, node_us / 1000.0);
  PrintTable("session phases:", phases, 0);
  PrintTable("time by op type:", by_op, node_us);
  PrintTable("time by execution provider:", by_ep, node_us);
  std::printf("\ncopies between memory spaces: %.3f ms (%.1f%% of node time)\n", copy_us / 1000.0,
              node_us > 0 ? 100.0 * copy_us / node_us : 0.0);
  if (steps + reorders > 0)
    std::printf("inside compiled partitions: %d primitive executions (%.3f ms), %d layout reorders (%.3f ms, %.1f%%)\n",
                steps, step_us / 1000.0, reorders, reorder_us / 1000.0,
                100.0 * reorder_us / std::max(1.0, step_us + reorder_us));
  if (steps + reorders > 0)
    PrintTable("inside compiled partitions, by kernel (\"host\": Tessera's own code):", by_kernel, step_us + reorder_us);
  std::sort(nodes.begin(), nodes.end(), [](const NodeTime& a, const NodeTime& b) { return a.us > b.us; });
  std::printf("\n10 slowest node executions:\n");
  for (size_t i = 0; i < nodes.size() && i < 10; ++i)
    std::printf("  %10.3f ms  %-28s %-18s %-6s %s\n", nodes[i].us / 1000.0, nodes[i].name.c_str(), nodes[i].op.c_str(),
                nodes[i].ep.c_str(), nodes[i].shapes.substr(0, 80).c_str());
  return 0;
}

}  // namespace tessera::cli
