// `tessera optimize IN OUT [--level L] [--disable A,B] [--providers LIST]
// [--stats]`: runs the graph optimizer as a session would and writes the
// optimized model (fused nodes in the ai.tessera domain) as ONNX.
#include <chrono>
#include <cstdio>
#include <fstream>

#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

void PrintStats(const std::string& in, const OptimizationLevel level, const OptimizerReport& r, double total_ms) {
  std::printf("model    %s\n", in.c_str());
  std::printf("level    %s\n", OptimizationLevelName(level));
  std::printf("nodes    %zu -> %zu (subgraphs included)\n", r.nodes_before, r.nodes_after);
  for (const auto& l : r.levels) {
    std::printf("level %s: %.2f ms, %d round(s)%s\n", OptimizationLevelName(l.level), l.wall_ms, l.rounds,
                l.converged ? "" : " (round cap reached)");
    for (const auto& p : l.passes) std::printf("  %-36s %6d changed  %8.2f ms\n", p.name.c_str(), p.changes, p.wall_ms);
  }
  std::printf("optimizer time %.2f ms\n", total_ms);
}

}  // namespace

int OptimizeCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"stats", "verbose"});
  if (args.positional.size() != 2)
    TS_THROW(kInvalidArgument, "usage: tessera optimize IN.onnx OUT.onnx [--level L] [--disable A,B] [--stats]");
  const std::string& in = args.positional[0];
  const std::string& out = args.positional[1];
  SessionOptions options;
  if (args.has("verbose")) options.log_severity_level = Severity::kVerbose;
  ApplyCompileArgs(args, options);
  options.validate_optimizer_passes = true;
  ProviderList providers = MakeProviders(SplitList(args.get("providers", DefaultProviderList())));
  Model model = LoadModelFromFile(in, options.load_limits);
  Logger logger(options.log_id, options.log_severity_level);
  auto t0 = std::chrono::steady_clock::now();
  OptimizerReport report = Session::OptimizeModel(model, options, providers, logger);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::string bytes = SerializeModel(model);
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  if (!f) TS_THROW(kIoError, "cannot write '", out, "'");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) TS_THROW(kIoError, "failed writing '", out, "'");
  f.close();
  if (args.has("stats")) PrintStats(in, options.graph_optimization_level, report, ms);
  std::printf("wrote %s: %zu -> %zu nodes (level %s)\n", out.c_str(), report.nodes_before, report.nodes_after,
              OptimizationLevelName(options.graph_optimization_level));
  return 0;
}

}  // namespace tessera::cli
