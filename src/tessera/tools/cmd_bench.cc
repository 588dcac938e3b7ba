// `tessera bench`: session creation, first run and steady-state latency of a
// model, plus peak memory and the time share of each provider (in the spirit
// of onnxruntime_perf_test).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/runtime/session.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

double PeakRssMb() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double Ms(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Inputs from the model folder's test_data_set_0 when present (the bench
// suite's layout), seeded values otherwise.
Feeds BenchInputs(const Session& session, const std::string& model_path) {
  Feeds feeds;
  fs::path data = fs::path(model_path).parent_path() / "test_data_set_0";
  uint64_t seed = 0;
  for (size_t i = 0; i < session.inputs().size(); ++i) {
    const ValueInfo& in = session.inputs()[i];
    fs::path f = data / ("input_" + std::to_string(i) + ".pb");
    if (fs::exists(f)) {
      Value v = LoadInputFile(f.string(), in.type);
      // A --free-dim size other than the test data's: the data cannot feed
      // this session, seeded values of the fixed shape can.
      bool fits = true;
      if (v.is_tensor() && in.type.shape && static_cast<size_t>(v.tensor().rank()) == in.type.shape->size())
        for (size_t d = 0; d < in.type.shape->size(); ++d)
          fits &= !(*in.type.shape)[d].known() || (*in.type.shape)[d].value == v.tensor().shape()[d];
      if (fits) {
        feeds.emplace_back(in.name, std::move(v));
        continue;
      }
      std::fprintf(stderr, "bench: %s does not have input '%s''s shape %s; using seeded values\n", f.string().c_str(),
                   in.name.c_str(), in.type.ToString().c_str());
    }
    feeds.emplace_back(in.name, MakeDefaultInput(in, ++seed));
  }
  return feeds;
}

// Share of node time per provider, from a profiled session run a few times
// after the timed runs (profiling costs a little per node, so it never
// touches the latencies reported).
std::map<std::string, double> ProviderTimeShares(const std::string& path, SessionOptions options,
                                                 const std::vector<std::string>& providers, const Feeds& feeds,
                                                 int runs) {
  auto profiler = std::make_shared<Profiler>();
  options.enable_profiling = true;
  Session session(LoadModelFromFile(path, options.load_limits), options, MakeProviders(providers), profiler);
  int64_t after = 0;
  session.Run(feeds);  // first run: page faults and lazy set-up, not counted
  for (const auto& e : profiler->Events()) after = std::max(after, e.start_us + e.duration_us);
  for (int i = 0; i < runs; ++i) session.Run(feeds);
  std::map<std::string, double> us;
  double total = 0;
  for (const auto& e : profiler->Events()) {
    if ((e.category != "node" && e.category != "copy") || e.start_us < after) continue;
    for (const auto& [k, v] : e.args)
      if (k == "provider") {
        std::string ep = v.size() >= 2 ? v.substr(1, v.size() - 2) : v;
        if (e.category == "copy") ep = "copy";
        us[ep] += static_cast<double>(e.duration_us);
        total += static_cast<double>(e.duration_us);
      }
  }
  for (auto& [ep, t] : us) t = total > 0 ? t / total : 0.0;
  return us;
}

}  // namespace

int BenchCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"json", "no-memory-arena", "no-winograd"});
  if (args.positional.size() != 1) TS_THROW(kInvalidArgument, "usage: tessera bench MODEL [options]");
  std::string path = args.positional[0];
  if (fs::is_directory(path)) path = (fs::path(path) / "model.onnx").string();
  SessionOptions options;
  options.intra_op_num_threads = args.get_int("threads", 0);
  int runs = std::max(1, args.get_int("runs", 20));
  int warmup = std::max(0, args.get_int("warmup", 5));
  std::vector<std::string> providers = SplitList(args.get("providers", DefaultProviderList()));
  ApplyCompileArgs(args, options);
  options.enable_memory_arena = !args.has("no-memory-arena");

  double rss_before = PeakRssMb();
  auto t0 = std::chrono::steady_clock::now();
  auto session = Session::FromFile(path, options, MakeProviders(providers));
  auto t1 = std::chrono::steady_clock::now();
  Feeds feeds = BenchInputs(*session, path);
  auto f0 = std::chrono::steady_clock::now();
  session->Run(feeds);
  auto f1 = std::chrono::steady_clock::now();
  for (int i = 0; i < warmup; ++i) session->Run(feeds);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    auto a = std::chrono::steady_clock::now();
    session->Run(feeds);
    times.push_back(Ms(std::chrono::steady_clock::now() - a));
  }
  std::sort(times.begin(), times.end());
  auto pct = [&](double p) { return times[std::min(times.size() - 1, static_cast<size_t>(p * (times.size() - 1) + 0.5))]; };
  std::map<std::string, int> per_provider;
  for (const auto& p : session->Placement()) per_provider[p.provider]++;
  const double peak_rss = PeakRssMb();
  const double arena_peak_mb = static_cast<double>(session->MemoryStats().peak_bytes_held) / 1048576.0;
  const OptimizerReport report = session->optimizer_report();
  const std::string isa = session->IsaSummary();
  session.reset();
  std::map<std::string, double> shares =
      ProviderTimeShares(path, options, providers, feeds, std::min(runs, 5));

  double create_ms = Ms(t1 - t0), first_ms = Ms(f1 - f0);

  int threads = options.intra_op_num_threads;
  if (args.has("json")) {
    std::printf("{\"model\": \"%s\", \"level\": \"%s\", \"nodes_before\": %zu, \"nodes_after\": %zu, \"threads\": %d, \"runs\": %d, \"session_create_ms\": %.3f, \"first_run_ms\": %.3f, "
                "\"min_ms\": %.3f, \"median_ms\": %.3f, \"p90_ms\": %.3f, \"max_ms\": %.3f, \"peak_rss_mb\": %.1f, "
                "\"rss_before_session_mb\": %.1f, \"isa\": \"%s\", \"nodes_per_provider\": {",
                JsonEscape(path).c_str(), OptimizationLevelName(options.graph_optimization_level), report.nodes_before,
                report.nodes_after, threads, runs, create_ms, first_ms, times.front(), pct(0.5), pct(0.9),
                times.back(), peak_rss, rss_before, JsonEscape(isa).c_str());
    size_t k = 0;
    for (const auto& [ep, n] : per_provider) std::printf("%s\"%s\": %d", k++ ? ", " : "", ep.c_str(), n);
    std::printf("}, \"arena_peak_mb\": %.1f, \"time_share\": {", arena_peak_mb);
    k = 0;
    for (const auto& [ep, f] : shares) std::printf("%s\"%s\": %.4f", k++ ? ", " : "", ep.c_str(), f);
    std::printf("}}\n");
  } else {
    std::printf("model            %s\n", path.c_str());
    std::printf("optimizer        level %s, %zu -> %zu nodes\n", OptimizationLevelName(options.graph_optimization_level),
                report.nodes_before, report.nodes_after);
    std::printf("instruction sets %s\n", isa.c_str());
    std::printf("threads          %s\n", threads == 0 ? "default (one per core)" : std::to_string(threads).c_str());
    std::printf("session create   %.2f ms\n", create_ms);
    std::printf("first run        %.2f ms\n", first_ms);
    std::printf("latency (%d runs after %d warm-up): min %.3f  median %.3f  p90 %.3f  max %.3f ms\n", runs, warmup,
                times.front(), pct(0.5), pct(0.9), times.back());
    std::printf("peak RSS         %.1f MB (run arena peak %.1f MB)\n", peak_rss, arena_peak_mb);
    for (const auto& [ep, n] : per_provider)
      std::printf("provider %-8s %d nodes, %.1f%% of node time\n", ep.c_str(), n,
                  shares.count(ep) ? 100.0 * shares.at(ep) : 0.0);
    if (shares.count("copy")) std::printf("copies           %.1f%% of node time\n", 100.0 * shares.at("copy"));
  }
  return 0;
}

}  // namespace tessera::cli
