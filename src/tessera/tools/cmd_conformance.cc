// `tessera conformance`: runs ONNX backend test folders (model.onnx +
// test_data_set_N/{input,output}_M.pb), one forked child per test so a crash
// or hang is contained to that test.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

struct TestResult {
  std::string name;
  std::string path;
  std::string status;  // pass | fail | error | crash | timeout | skipped
  double max_abs_error = 0;
  double max_rel_error = 0;
  double duration_ms = 0;
  std::string message;
  std::vector<std::string> ops;  // "domain:Op" of every node, subgraphs included
};

struct TestCase {
  std::string name;
  std::string path;
};

std::vector<TestCase> CollectTests(const std::vector<std::string>& dirs, const std::string& filter) {
  std::vector<TestCase> tests;
  std::regex re(filter.empty() ? std::string(".*") : filter);
  for (const auto& d : dirs) {
    fs::path p(d);
    if (!fs::is_directory(p)) TS_THROW(kInvalidArgument, "'", d, "' is not a folder");
    std::vector<fs::path> candidates;
    if (fs::exists(p / "model.onnx")) {
      candidates.push_back(p);
    } else {
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_directory() && fs::exists(e.path() / "model.onnx")) candidates.push_back(e.path());
    }
    std::sort(candidates.begin(), candidates.end());
    for (const auto& c : candidates) {
      std::string name = c.filename().string();
      if (std::regex_search(name, re)) tests.push_back({name, c.string()});
    }
  }
  return tests;
}

// Runs one test in this (child) process. Throws on error.
// scaled_atol > 0: an output passes when its max abs error is at most
// scaled_atol * max|expected| (the bench models' criterion); rtol/atol unused.
void CollectOps(const Graph& g, std::set<std::string>* ops) {
  for (const auto& n : g.nodes) {
    ops->insert(n.domain + ":" + n.op_type);
    for (const auto& a : n.attributes) {
      if (a.g) CollectOps(*a.g, ops);
      for (const auto& sg : a.graphs) CollectOps(*sg, ops);
    }
  }
}

// Fills r as far as it gets; throws on error (r keeps what was found).
void RunOneTest(const TestCase& test, const std::vector<std::string>& providers, const SessionOptions& base,
                double rtol, double atol, double scaled_atol, TestResult& r) {
  SessionOptions opts = base;
  opts.intra_op_num_threads = 1;
  Model model = LoadModelFromFile(test.path + "/model.onnx", opts.load_limits);
  std::set<std::string> ops;
  CollectOps(*model.graph, &ops);
  r.ops.assign(ops.begin(), ops.end());
  auto session = std::make_unique<Session>(std::move(model), opts, MakeProviders(providers));
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(test.path))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) TS_THROW(kInvalidArgument, "no test_data_set_* folder");
  const auto& inputs = session->inputs();
  const auto& outputs = session->outputs();
  r.status = "pass";
  for (const auto& set : sets) {
    Feeds feeds;
    for (size_t i = 0;; ++i) {
      fs::path f = set / ("input_" + std::to_string(i) + ".pb");
      if (!fs::exists(f)) break;
      if (i >= inputs.size()) TS_THROW(kInvalidArgument, "test has more inputs than the model (", inputs.size(), ")");
      feeds.emplace_back(inputs[i].name, LoadValueFile(f.string(), inputs[i].type));
    }
    std::vector<Value> actual = session->Run(feeds);
    for (size_t i = 0;; ++i) {
      fs::path f = set / ("output_" + std::to_string(i) + ".pb");
      if (!fs::exists(f)) break;
      if (i >= outputs.size()) TS_THROW(kInvalidArgument, "test has more outputs than the model");
      Value expected = LoadValueFile(f.string(), outputs[i].type);
      double out_atol = atol, out_rtol = rtol;
      if (scaled_atol > 0 && expected.is_tensor()) {
        double peak = 0;
        for (int64_t k = 0; k < expected.tensor().numel(); ++k)
          peak = std::max(peak, std::fabs(ElementAsDouble(expected.tensor(), k)));
        out_atol = scaled_atol * peak;
        out_rtol = 0;
      }
      CompareResult c = CompareValues(actual[i], expected, out_rtol, out_atol);
      r.max_abs_error = std::max(r.max_abs_error, c.max_abs_error);
      r.max_rel_error = std::max(r.max_rel_error, c.max_rel_error);
      if (!c.match && r.status == "pass") {
        r.status = "fail";
        r.message = set.filename().string() + " output '" + outputs[i].name + "': " + c.message;
      }
    }
  }
}

// Child -> parent protocol: one line "status\tmax_abs\tmax_rel\tops\tmessage".
std::string Encode(const TestResult& r) {
  std::string msg = r.message;
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  std::replace(msg.begin(), msg.end(), '\t', ' ');
  std::string ops;
  for (const auto& op : r.ops) ops += (ops.empty() ? "" : ",") + op;
  std::ostringstream os;
  os << r.status << '\t' << r.max_abs_error << '\t' << r.max_rel_error << '\t' << ops << '\t' << msg;
  return os.str();
}

void Decode(const std::string& line, TestResult* r) {
  std::istringstream is(line);
  std::string abs, rel, ops;
  std::getline(is, r->status, '\t');
  std::getline(is, abs, '\t');
  std::getline(is, rel, '\t');
  std::getline(is, ops, '\t');
  std::getline(is, r->message);
  r->ops = SplitList(ops);
  r->max_abs_error = abs.empty() ? 0 : std::stod(abs);
  r->max_rel_error = rel.empty() ? 0 : std::stod(rel);
}

struct Running {
  pid_t pid;
  int fd;
  size_t index;
  std::chrono::steady_clock::time_point start;
  std::string out;
};

std::map<std::string, std::string> ReadSkipList(const std::string& path) {
  std::map<std::string, std::string> skips;
  if (path.empty()) return skips;
  std::ifstream in(path);
  if (!in) TS_THROW(kIoError, "cannot read skip list '", path, "'");
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    std::string name = line.substr(0, hash);
    name.erase(name.find_last_not_of(" \t") + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    if (name.empty()) continue;
    std::string reason = hash == std::string::npos ? "in skip list" : line.substr(hash + 1);
    reason.erase(0, reason.find_first_not_of(" \t"));
    skips[name] = reason;
  }
  return skips;
}

// "test_name rtol atol  # reason" lines: per-test tolerances for tests whose
// expected values carry the generator's own float32 rounding noise.
std::map<std::string, std::pair<double, double>> ReadTolerances(const std::string& path) {
  std::map<std::string, std::pair<double, double>> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  if (!in) TS_THROW(kIoError, "cannot read tolerance list '", path, "'");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream is(line.substr(0, line.find('#')));
    std::string name;
    double rtol, atol;
    if (!(is >> name)) continue;
    if (!(is >> rtol >> atol)) TS_THROW(kInvalidArgument, path, ": expected 'name rtol atol' in line '", line, "'");
    out[name] = {rtol, atol};
  }
  return out;
}

std::set<std::string> ReadNameList(const std::string& path) {
  std::set<std::string> names;
  for (const auto& [n, r] : ReadSkipList(path)) names.insert(n);
  return names;
}

// Pulls "ai.onnx:Foo" out of "cpu has no kernel for ai.onnx:Foo" for the summary.
std::string MissingOp(const std::string& message) {
  static const std::regex re("has no kernel for ([A-Za-z0-9_.]+:[A-Za-z0-9_]+)");
  std::smatch m;
  if (std::regex_search(message, m, re)) return m[1];
  return "";
}

// Forks with a pipe open from the child (writes fds[1]) to the parent (reads
// fds[0]); returns fork()'s result.
pid_t ForkWithPipe(int fds[2]) {
  if (pipe(fds) != 0) TS_THROW(kIoError, "pipe failed");
  pid_t pid = fork();
  if (pid < 0) TS_THROW(kIoError, "fork failed");
  return pid;
}

// Device drivers (OpenCL's worker threads, say) do not survive fork(): the
// providers are tried in a throwaway child so this process, which forks one
// child per test, never initializes them itself.
void ProbeProvidersInChild(const std::vector<std::string>& providers) {
  int fds[2];
  pid_t pid = ForkWithPipe(fds);
  if (pid == 0) {
    close(fds[0]);
    Status st = CatchStatus([&] { MakeProviders(providers); });
    std::string msg = st.ok() ? "" : st.ToString();
    ssize_t w = write(fds[1], msg.data(), msg.size());
    (void)w;
    close(fds[1]);
    _exit(st.ok() ? 0 : 1);
  }
  close(fds[1]);
  std::string msg;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) msg.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    TS_THROW(kInvalidArgument, msg.empty() ? "probing the execution providers crashed" : msg);
}

}  // namespace

int ConformanceCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"verbose", "quiet", "no-winograd"});
  if (args.positional.empty()) TS_THROW(kInvalidArgument, "give at least one test folder");
  std::vector<std::string> providers = SplitList(args.get("providers", DefaultProviderList()));
  ProbeProvidersInChild(providers);  // fail early on an unknown or unavailable provider
  SessionOptions base;  // --level / --disable / --no-winograd: how graphs are compiled
  ApplyCompileArgs(args, base);
  base.validate_optimizer_passes = true;  // a pass that breaks a graph fails the test, naming the pass
  std::vector<TestCase> tests = CollectTests(args.positional, args.get("filter"));
  std::map<std::string, std::string> skips;  // --skip may repeat: the general list, and one per data set
  for (const auto& path : args.all("skip")) {
    auto part = ReadSkipList(path);
    skips.merge(part);
  }
  auto tolerances = ReadTolerances(args.get("tolerances"));
  int jobs = args.get_int("jobs", static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  double timeout_s = args.get_int("timeout", 60);
  double rtol = std::stod(args.get("rtol", "1e-3"));
  double atol = std::stod(args.get("atol", "1e-7"));
  double scaled_atol = std::stod(args.get("scaled-atol", "0"));
  bool verbose = args.has("verbose");
  bool quiet = args.has("quiet");

  std::vector<TestResult> results(tests.size());
  std::vector<Running> running;
  size_t next = 0, done = 0;
  std::fflush(stdout);
  while (done < tests.size()) {
    while (next < tests.size() && static_cast<int>(running.size()) < jobs) {
      size_t i = next++;
      results[i].name = tests[i].name;
      results[i].path = tests[i].path;
      auto sk = skips.find(tests[i].name);
      if (sk != skips.end()) {
        results[i].status = "skipped";
        results[i].message = sk->second;
        ++done;
        continue;
      }
      int fds[2];
      pid_t pid = ForkWithPipe(fds);
      if (pid == 0) {
        close(fds[0]);
        TestResult r;
        auto tol = tolerances.find(tests[i].name);
        double test_rtol = tol == tolerances.end() ? rtol : tol->second.first;
        double test_atol = tol == tolerances.end() ? atol : tol->second.second;
        Status st = CatchStatus([&] { RunOneTest(tests[i], providers, base, test_rtol, test_atol, scaled_atol, r); });
        if (!st.ok()) {
          r.status = "error";
          r.message = st.ToString();
        }
#if defined(__SANITIZE_ADDRESS__)
        // The child leaves with _exit, which skips LeakSanitizer's exit-time
        // check: run it here so a test's leak fails that test.
        if (__lsan_do_recoverable_leak_check() != 0) {
          r.status = "error";
          r.message = "LeakSanitizer: memory leaked (report on stderr)";
        }
#endif
        std::string line = Encode(r);
        size_t off = 0;
        while (off < line.size()) {
          ssize_t w = write(fds[1], line.data() + off, line.size() - off);
          if (w <= 0) break;
          off += static_cast<size_t>(w);
        }
        close(fds[1]);
        _exit(0);
      }
      close(fds[1]);
      running.push_back({pid, fds[0], i, std::chrono::steady_clock::now(), {}});
    }
    if (running.empty()) continue;
    std::vector<pollfd> pfds;
    for (const auto& r : running) pfds.push_back({r.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), 100);
    auto now = std::chrono::steady_clock::now();
    for (size_t k = 0; k < running.size();) {
      Running& r = running[k];
      bool finished = false;
      if (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t n = read(r.fd, buf, sizeof(buf));
        if (n > 0) r.out.append(buf, static_cast<size_t>(n));
        else finished = true;  // EOF: the child closed its end or died
      }
      double elapsed = std::chrono::duration<double>(now - r.start).count();
      TestResult& res = results[r.index];
      if (!finished && elapsed > timeout_s) {
        kill(r.pid, SIGKILL);
        res.status = "timeout";
        res.message = "no result after " + std::to_string(static_cast<int>(timeout_s)) + " s";
        finished = true;
        r.out.clear();
      }
      if (!finished) {
        ++k;
        continue;
      }
      int wstatus = 0;
      waitpid(r.pid, &wstatus, 0);
      close(r.fd);
      res.duration_ms = std::chrono::duration<double, std::milli>(now - r.start).count();
      if (res.status != "timeout") {
        if (!r.out.empty()) {
          Decode(r.out, &res);
        } else if (WIFSIGNALED(wstatus)) {
          res.status = "crash";
          res.message = std::string("crashed with signal ") + std::to_string(WTERMSIG(wstatus)) + " (" +
                        strsignal(WTERMSIG(wstatus)) + ")";
        } else {
          res.status = "crash";
          res.message = "exited with status " + std::to_string(WEXITSTATUS(wstatus)) + " without a result";
        }
      }
      if (!quiet && (verbose || res.status != "pass")) {
        std::string status = res.status;
        std::transform(status.begin(), status.end(), status.begin(), ::toupper);
        std::printf("%-8s %s%s%s\n", status.c_str(), res.name.c_str(), res.message.empty() ? "" : ": ",
                    res.message.substr(0, verbose ? std::string::npos : 300).c_str());
        std::fflush(stdout);
      }
      ++done;
      running.erase(running.begin() + static_cast<long>(k));
      pfds.erase(pfds.begin() + static_cast<long>(k));
    }
  }

  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> missing_ops;
  for (const auto& r : results) {
    if (r.status == "pass") ++passed;
    else if (r.status == "skipped") ++skipped;
    else ++failed;
    std::string op = MissingOp(r.message);
    if (!op.empty()) missing_ops[op]++;
  }

  if (args.has("report")) {
    std::ofstream out(args.get("report"));
    if (!out) TS_THROW(kIoError, "cannot write '", args.get("report"), "'");
    out << "{\n  \"providers\": [";
    for (size_t i = 0; i < providers.size(); ++i) out << (i ? ", " : "") << '"' << JsonEscape(providers[i]) << '"';
    out << "],\n  \"summary\": {\"passed\": " << passed << ", \"failed\": " << failed << ", \"skipped\": " << skipped
        << "},\n  \"tests\": [\n";
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      out << "    {\"name\": \"" << JsonEscape(r.name) << "\", \"status\": \"" << r.status
          << "\", \"ops\": [";
      for (size_t k = 0; k < r.ops.size(); ++k) out << (k ? ", " : "") << '"' << JsonEscape(r.ops[k]) << '"';
      out << "], \"max_abs_error\": " << r.max_abs_error << ", \"max_rel_error\": " << r.max_rel_error
          << ", \"duration_ms\": " << static_cast<int64_t>(r.duration_ms) << ", \"message\": \""
          << JsonEscape(r.message) << "\"}" << (i + 1 < results.size() ? "," : "") << "\n";
    }
    out << "  ]\n}\n";
  }

  if (!missing_ops.empty() && !quiet) {
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [op, n] : missing_ops) sorted.emplace_back(n, op);
    std::sort(sorted.rbegin(), sorted.rend());
    std::printf("\nmissing kernels (tests affected):");
    for (size_t i = 0; i < sorted.size() && i < 40; ++i)
      std::printf("%s %s (%d)", i ? "," : "", sorted[i].second.c_str(), sorted[i].first);
    std::printf("\n");
  }

  // Without an expected-pass list every failure counts; with one, only
  // regressions of listed tests do. A listed test that a --skip list names
  // (each entry with its reason) is reported, not counted: a data set's
  // own broken files (skip-onnx-1.12.txt) must not fail the list.
  int exit_code = failed > 0 && !args.has("expected") ? 1 : 0;
  if (args.has("expected")) {
    std::set<std::string> expected = ReadNameList(args.get("expected"));
    std::vector<std::string> regressions;
    int expected_skipped = 0;
    for (const auto& r : results) {
      if (!expected.count(r.name) || r.status == "pass") continue;
      if (r.status == "skipped") ++expected_skipped;
      else regressions.push_back(r.name + " (" + r.status + ")");
    }
    if (expected_skipped > 0)
      std::printf("\n%d test(s) from the expected-pass list skipped by a --skip list (see its reasons)\n",
                  expected_skipped);
    if (!regressions.empty()) {
      std::printf("\n%zu test(s) from the expected-pass list did not pass:\n", regressions.size());
      for (const auto& r : regressions) std::printf("  %s\n", r.c_str());
      exit_code = 1;
    }
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return exit_code;
}

}  // namespace tessera::cli
