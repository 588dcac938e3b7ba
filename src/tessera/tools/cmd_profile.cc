// `tessera profile TRACE.json`: where the time went, from a profile written
// by enable_profiling (or `tessera run --profile`).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "tessera/base/mapped_file.h"
#include "tessera/tools/cli.h"
#include "tessera/base/json.h"

namespace tessera::cli {

namespace {

struct Totals {
  double us = 0;
  int count = 0;
  double flops = 0;     // over the events that carry a count
  double rated_us = 0;  // the time of those events
  void Add(double dur, const Json* args) {
    us += dur;
    ++count;
    double f = args ? args->NumberOr("flops", -1) : -1;
    if (f >= 0) {
      flops += f;
      rated_us += dur;
    }
  }
};

// Rates are shown for rows whose events carry flop counts (convolutions and
// matrix products; elementwise ops count one per output). peak: GFLOP/s of
// the threads the profile ran on, or 0 when not given.
void PrintTable(const char* title, const std::map<std::string, Totals>& rows, double total_us, double peak = 0) {
  std::vector<std::pair<std::string, Totals>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
  std::printf("\n%s\n", title);
  for (const auto& [name, t] : sorted) {
    std::printf("  %-32s %10.3f ms %6.1f%%  (%d)", name.c_str(), t.us / 1000.0,
                total_us > 0 ? 100.0 * t.us / total_us : 0.0, t.count);
    if (t.rated_us > 0 && t.flops > 0) {
      const double rate = t.flops / t.rated_us / 1e3;  // GFLOP/s
      std::printf("  %9.3f GFLOP %8.1f GFLOP/s", t.flops / 1e9, rate);
      if (peak > 0) std::printf(" %5.1f%% of peak", 100.0 * rate / peak);
    }
    std::printf("\n");
  }
}

}  // namespace

int ProfileCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {});
  if (args.positional.size() != 1) TS_THROW(kInvalidArgument, "usage: tessera profile TRACE.json [--peak GFLOPS]");
  double peak = 0;
  if (args.has("peak")) {
    const std::string text = args.get("peak");
    char* end = nullptr;
    peak = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(peak > 0))
      TS_THROW(kInvalidArgument, "--peak wants the machine's GFLOP/s for the threads profiled (a positive number), got '",
               text, "'");
  }
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
  Totals all_nodes;
  double node_us = 0, copy_us = 0;
  // Inside compiled partitions (oneDNN): primitives and layout reorders.
  double step_us = 0, reorder_us = 0;
  int steps = 0, reorders = 0;
  int runs = 0;
  std::string isa;
  for (const Json& e : events->array) {
    std::string cat = e.StringOr("cat", "");
    double dur = e.NumberOr("dur", 0);
    const Json* a = e.Find("args");
    std::string op = a ? a->StringOr("op_type", "?") : "?";
    std::string ep = a ? a->StringOr("provider", "?") : "?";
    if (cat == "node" || cat == "copy") {
      node_us += dur;
      if (cat == "copy") copy_us += dur;
      by_op[cat == "copy" ? "(copy)" : op].Add(dur, a);
      by_ep[ep].Add(dur, a);
      if (cat == "node") all_nodes.Add(dur, a);
      std::string shapes;
      if (a) {
        if (const Json* ins = a->Find("inputs"))
          for (const Json& s : ins->array) shapes += (shapes.empty() ? "" : " ") + s.string;
      }
      nodes.push_back({e.StringOr("name", "?"), op, ep, shapes, dur});
    } else if (cat == "step" || cat == "reorder") {
      (cat == "step" ? step_us : reorder_us) += dur;
      ++(cat == "step" ? steps : reorders);
      by_kernel[a ? a->StringOr("implementation", "?") : "?"].Add(dur, a);
    } else if (cat == "session") {
      std::string name = e.StringOr("name", "?");
      if (name == "model_run") ++runs;
      if (name == "instruction_sets") {
        isa.clear();
        if (a)
          for (const auto& [library, value] : a->object) isa += (isa.empty() ? "" : ", ") + library + " " + value.string;
        continue;
      }
      phases[name].Add(dur, nullptr);
    }
  }
  std::printf("profile %s: %zu node executions over %d run(s), %.3f ms in nodes\n", args.positional[0].c_str(),
              nodes.size(), runs, node_us / 1000.0);
  std::printf("instruction sets: %s\n", isa.empty() ? "not recorded (a trace from before they were)" : isa.c_str());
  if (all_nodes.rated_us > 0 && runs > 0) {
    const double rate = all_nodes.flops / all_nodes.rated_us / 1e3;
    std::printf("arithmetic: %.3f GFLOP per run, %.1f GFLOP/s over the nodes that count it", all_nodes.flops / 1e9 / runs,
                rate);
    if (peak > 0) std::printf(" (%.1f%% of the %.1f GFLOP/s peak)", 100.0 * rate / peak, peak);
    std::printf("\n");
  }
  PrintTable("session phases:", phases, 0);
  PrintTable("time by op type:", by_op, node_us, peak);
  PrintTable("time by execution provider:", by_ep, node_us, peak);
  std::printf("\ncopies between memory spaces: %.3f ms (%.1f%% of node time)\n", copy_us / 1000.0,
              node_us > 0 ? 100.0 * copy_us / node_us : 0.0);
  if (steps + reorders > 0)
    std::printf("inside compiled partitions: %d primitive executions (%.3f ms), %d layout reorders (%.3f ms, %.1f%%)\n",
                steps, step_us / 1000.0, reorders, reorder_us / 1000.0,
                100.0 * reorder_us / std::max(1.0, step_us + reorder_us));
  if (steps + reorders > 0)
    PrintTable("inside compiled partitions, by kernel (\"host\": Tessera's own code):", by_kernel, step_us + reorder_us,
               peak);
  std::sort(nodes.begin(), nodes.end(), [](const NodeTime& a, const NodeTime& b) { return a.us > b.us; });
  std::printf("\n10 slowest node executions:\n");
  for (size_t i = 0; i < nodes.size() && i < 10; ++i)
    std::printf("  %10.3f ms  %-28s %-18s %-6s %s\n", nodes[i].us / 1000.0, nodes[i].name.c_str(), nodes[i].op.c_str(),
                nodes[i].ep.c_str(), nodes[i].shapes.substr(0, 80).c_str());
  return 0;
}

}  // namespace tessera::cli
