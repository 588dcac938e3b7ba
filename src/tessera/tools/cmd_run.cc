// `tessera run`: load a model, feed inputs, print outputs and timing.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "tessera/api/providers.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

// The model bundled in the repository (models/default/model.onnx), found
// next to the binary's build tree or at the source path compiled in.
std::string DefaultModelPath() {
  const char* rel = "models/default/model.onnx";
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (fs::exists(dir / rel)) return (dir / rel).string();
  }
#ifdef TESSERA_SOURCE_DIR
  if (fs::exists(fs::path(TESSERA_SOURCE_DIR) / rel)) return (fs::path(TESSERA_SOURCE_DIR) / rel).string();
#endif
  TS_THROW(kIoError, "the bundled default model (", rel, ") was not found; pass a MODEL path");
}

}  // namespace

int RunCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"verbose", "summary", "no-winograd"});
  std::string path = args.positional.empty() ? DefaultModelPath() : args.positional[0];
  SessionOptions options;
  options.intra_op_num_threads = args.get_int("threads", 0);
  if (args.has("verbose")) options.log_severity_level = Severity::kVerbose;
  ApplyCompileArgs(args, options);
  if (args.has("profile")) {
    options.enable_profiling = true;
    options.profile_file_prefix = args.get("profile");
  }
  std::vector<std::string> providers = SplitList(args.get("providers", DefaultProviderList()));

  auto t0 = std::chrono::steady_clock::now();
  auto session = Session::FromFile(path, options, MakeProviders(providers));
  auto t1 = std::chrono::steady_clock::now();

  if (args.has("summary")) std::printf("%s\n", session->model().graph->Summary().c_str());
  Feeds feeds;
  std::map<std::string, std::string> files;
  for (const auto& spec : args.all("input")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos) TS_THROW(kInvalidArgument, "--input expects NAME=FILE, got '", spec, "'");
    files[spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  uint64_t seed = 0;
  for (const auto& in : session->inputs()) {
    auto it = files.find(in.name);
    if (it != files.end()) {
      feeds.emplace_back(in.name, LoadInputFile(it->second, in.type));
      files.erase(it);
    } else {
      feeds.emplace_back(in.name, MakeDefaultInput(in, ++seed));
      std::printf("input  %s: %s (generated, seed %llu)\n", in.name.c_str(), in.type.ToString().c_str(),
                  static_cast<unsigned long long>(seed));
    }
  }
  if (!files.empty()) TS_THROW(kInvalidArgument, "'", files.begin()->first, "' is not an input of the model");

  int runs = std::max(1, args.get_int("runs", 1));
  std::vector<Value> outputs;
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto a = std::chrono::steady_clock::now();
    outputs = session->Run(feeds);
    auto b = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::printf("model  %s (%zu nodes)\n", path.c_str(), session->model().graph->nodes.size());
  for (size_t i = 0; i < outputs.size(); ++i)
    std::printf("output %s: %s\n", session->outputs()[i].name.c_str(), DescribeValue(outputs[i]).c_str());
  if (args.has("profile")) std::printf("profile written to %s\n", session->EndProfiling().c_str());
  std::sort(times.begin(), times.end());
  std::printf("session created in %.2f ms; run time %.3f ms (median of %d)\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(), times[times.size() / 2], runs);
  return 0;
}

}  // namespace tessera::cli
