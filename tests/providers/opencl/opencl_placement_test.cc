// The OpenCL EP on a graph it only partly supports: the placement, the
// partitions and the copies must read the same in Session::Placement(), the
// VERBOSE log, the profile and `tessera partition --json`.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/base/json.h"
#include "tessera/base/mapped_file.h"
#include "tessera/format/model_loader.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

bool OpenClAvailable() {
  auto names = AvailableProviders();
  return std::find(names.begin(), names.end(), "opencl") != names.end();
}

// Sign and Round have no OpenCL kernel: they split the graph into seven
// partitions, and every value crossing between them is copied.
Model Scattered() {
  return MakeModel({MakeNode("n1_relu", "Relu", {"x"}, {"a"}), MakeNode("n2_sign", "Sign", {"a"}, {"b"}),
                    MakeNode("n3_sigmoid", "Sigmoid", {"b"}, {"c"}), MakeNode("n4_tanh", "Tanh", {"c"}, {"d"}),
                    MakeNode("n5_round", "Round", {"d"}, {"e"}), MakeNode("n6_add", "Add", {"e", "a"}, {"f"}),
                    MakeNode("n7_sign", "Sign", {"f"}, {"g"}), MakeNode("n8_exp", "Exp", {"g"}, {"y"})},
                   {TensorInfo("x", DataType::kFloat, {2, 8})}, {TensorInfo("y", DataType::kFloat, {2, 8})});
}

const std::vector<std::pair<std::string, std::string>> kExpectedPlacement = {
    {"n1_relu", "opencl"}, {"n2_sign", "cpu"},    {"n3_sigmoid", "opencl"}, {"n4_tanh", "opencl"},
    {"n5_round", "cpu"},   {"n6_add", "opencl"}, {"n7_sign", "cpu"},       {"n8_exp", "opencl"}};
const std::vector<std::string> kExpectedCopies = {"x host->opencl", "a opencl->host", "b host->opencl",
                                                  "d opencl->host", "e host->opencl", "f opencl->host",
                                                  "g host->opencl", "y opencl->host"};

SessionOptions Options() {
  SessionOptions o;
  o.intra_op_num_threads = 1;
  o.graph_optimization_level = OptimizationLevel::kDisabled;
  return o;
}

Tensor Input() {
  Tensor x(DataType::kFloat, {2, 8});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 0.37f * static_cast<float>(i) - 2.5f;
  return x;
}

// What one source says about placement: node -> (provider, partition), the
// partition count and the copies as "value from->to" with their bytes.
struct Seen {
  std::map<std::string, std::pair<std::string, int>> nodes;
  int partitions = 0;
  std::vector<std::string> copies;
  std::vector<std::string> copy_bytes;
};

void ExpectSame(const Seen& a, const Seen& b, const std::string& what) {
  EXPECT_EQ(a.nodes, b.nodes) << what;
  EXPECT_EQ(a.partitions, b.partitions) << what;
  EXPECT_EQ(a.copies, b.copies) << what;
  EXPECT_EQ(a.copy_bytes, b.copy_bytes) << what;
}

std::string SelfDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

TEST(OpenClPlacement, LogProfileReportAndApiAgree) {
  if (!OpenClAvailable()) GTEST_SKIP() << "no OpenCL device";
  Model model = Scattered();

  // 1. The API, and the VERBOSE log captured while the session is created.
  std::vector<std::string> log;
  SetLogSink([&](const std::string&, Severity, const std::string& m) { log.push_back(m); });
  SessionOptions opts = Options();
  opts.log_severity_level = Severity::kVerbose;
  opts.enable_profiling = true;
  opts.profile_file_prefix = ::testing::TempDir() + "tessera_opencl_placement";
  std::unique_ptr<Session> session;
  Status st = CatchStatus([&] { session = std::make_unique<Session>(model, opts, MakeProviders({"opencl", "cpu"})); });
  SetLogSink(nullptr);
  ASSERT_TRUE(st.ok()) << st.ToString();

  Seen api;
  for (const auto& p : session->Placement()) {
    api.nodes[p.node] = {p.provider, p.partition};
    api.partitions = std::max(api.partitions, p.partition + 1);
  }
  for (const auto& c : session->Copies()) {
    api.copies.push_back(c.value + " " + c.from + "->" + c.to);
    api.copy_bytes.push_back(c.bytes);
  }
  for (const auto& [node, ep] : kExpectedPlacement) EXPECT_EQ(api.nodes[node].first, ep) << node;
  EXPECT_EQ(api.partitions, 7);
  EXPECT_EQ(api.copies, kExpectedCopies);
  for (const auto& b : api.copy_bytes) EXPECT_EQ(b, "64");  // 2x8 floats

  Seen logged;
  std::regex node_re(R"(^node (\S+) \[ai\.onnx:(\w+)-17\] -> (\w+)(.*)$)");
  std::regex part_re(R"(^partition (\d+) \[test_graph\] -> (\w+): (\d+) node\(s\), (\S+) \.\. (\S+)$)");
  std::regex copy_re(R"(^copy (\S+) \[test_graph\] (\w+) -> (\w+), (\S+) bytes per run$)");
  std::map<std::string, std::string> node_ep;
  for (const auto& line : log) {
    std::smatch m;
    if (std::regex_match(line, m, node_re)) {
      node_ep[m[1]] = m[3];
      if (m[3] == "cpu") {
        EXPECT_NE(m[4].str().find("declined by opencl:"), std::string::npos) << line;
      }
    } else if (std::regex_match(line, m, part_re)) {
      ++logged.partitions;
    } else if (std::regex_match(line, m, copy_re)) {
      logged.copies.push_back(m[1].str() + " " + m[2].str() + "->" + m[3].str());
      logged.copy_bytes.push_back(m[4]);
    }
  }
  // The log names each partition's first and last node; rebuild node -> partition from the API's order.
  int part = -1;
  std::string last;
  for (const auto& p : session->Placement()) {
    if (p.provider != last) ++part;
    last = p.provider;
    logged.nodes[p.node] = {node_ep[p.node], part};
  }
  ExpectSame(api, logged, "VERBOSE log");

  // 2. The profile of one run.
  std::vector<Value> out = session->Run({{"x", Input()}});
  std::string path = session->EndProfiling();
  Json trace = ParseJson(ReadFileToString(path));
  std::remove(path.c_str());
  Seen profiled;
  std::map<std::string, int> node_events;
  for (const Json& e : trace.Find("traceEvents")->array) {
    std::string cat = e.StringOr("cat", "");
    const Json* args = e.Find("args");
    if (cat == "node") {
      std::string name = e.StringOr("name", "");
      node_events[name]++;
      profiled.nodes[name] = {args->StringOr("provider", ""), static_cast<int>(args->NumberOr("partition", -1))};
    } else if (cat == "copy") {
      const Json* in = args->Find("inputs");
      ASSERT_NE(in, nullptr);
      std::string name = e.StringOr("name", "");  // "copy <value> <from>-><to>"
      profiled.copies.push_back(name.substr(5));
      profiled.copy_bytes.push_back(std::to_string(static_cast<int64_t>(args->NumberOr("bytes", -1))));
    } else if (cat == "partition") {
      ++profiled.partitions;
    }
  }
  for (const auto& [name, n] : node_events) EXPECT_EQ(n, 1) << name;
  ExpectSame(api, profiled, "profile");

  // 3. `tessera partition --json` on the same model, saved to a file.
  std::string model_path = ::testing::TempDir() + "tessera_opencl_scattered.onnx";
  {
    std::ofstream f(model_path, std::ios::binary);
    f << SerializeModel(model);
  }
  std::string cmd = SelfDir() + "/tessera partition " + model_path + " --providers opencl,cpu --level disabled --json";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string json;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) json.append(buf, n);
  ASSERT_EQ(pclose(pipe), 0) << cmd << "\n" << json;
  std::remove(model_path.c_str());
  Json report = ParseJson(json);
  EXPECT_EQ(report.StringOr("schema", ""), "tessera.partition/1");
  Seen reported;
  for (const Json& node : report.Find("nodes")->array)
    reported.nodes[node.StringOr("name", "")] = {node.StringOr("provider", ""),
                                                 static_cast<int>(node.NumberOr("partition", -1))};
  reported.partitions = static_cast<int>(report.Find("partitions")->array.size());
  for (const Json& c : report.Find("copies")->array) {
    reported.copies.push_back(c.StringOr("value", "") + " " + c.StringOr("from", "") + "->" + c.StringOr("to", ""));
    reported.copy_bytes.push_back(c.StringOr("bytes", ""));
  }
  ExpectSame(api, reported, "tessera partition --json");
  EXPECT_NE(report.StringOr("verdict", "").find("opencl: 5/8 nodes"), std::string::npos) << report.StringOr("verdict", "");

  // And the answer is the CPU's.
  auto cpu = std::make_unique<Session>(model, Options(), MakeProviders({"cpu"}));
  std::vector<Value> ref = cpu->Run({{"x", Input()}});
  CompareResult c = CompareValues(out[0], ref[0], 1e-5, 1e-6);
  EXPECT_TRUE(c.match) << c.message;
}

TEST(OpenClPlacement, DisableCpuFallbackBothWays) {
  if (!OpenClAvailable()) GTEST_SKIP() << "no OpenCL device";
  SessionOptions opts = Options();
  opts.disable_cpu_fallback = true;
  // Every node claimed: the session is created and runs on the device.
  Model all = MakeModel({MakeNode("relu", "Relu", {"x"}, {"a"}), MakeNode("exp", "Exp", {"a"}, {"y"})},
                        {TensorInfo("x", DataType::kFloat, {2, 8})}, {TensorInfo("y", DataType::kFloat, {2, 8})});
  Session ok(all, opts, MakeProviders({"opencl", "cpu"}));
  for (const auto& p : ok.Placement()) EXPECT_EQ(p.provider, "opencl") << p.node;
  EXPECT_EQ(ok.Run({{"x", Input()}}).size(), 1u);
  // Sign and Round would fall back: creation fails naming both, with opencl's reason.
  Status st = CatchStatus([&] { Session s(Scattered(), opts, MakeProviders({"opencl", "cpu"})); });
  ASSERT_FALSE(st.ok());
  for (const char* name : {"n2_sign", "n5_round", "n7_sign", "opencl"})
    EXPECT_NE(st.message().find(name), std::string::npos) << name << " missing from: " << st.message();
}

TEST(OpenClPlacement, DeclinesUnknownElementTypes) {
  if (!OpenClAvailable()) GTEST_SKIP() << "no OpenCL device";
  // double has no OpenCL kernel: the reason names the element type.
  Model m = MakeModel({MakeNode("relu", "Relu", {"x"}, {"y"})}, {TensorInfo("x", DataType::kDouble, {4})},
                      {TensorInfo("y", DataType::kDouble, {4})});
  Session s(m, Options(), MakeProviders({"opencl", "cpu"}));
  auto p = s.Placement();
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].provider, "cpu");
  ASSERT_EQ(p[0].declined.size(), 1u);
  EXPECT_NE(p[0].declined[0].find("double"), std::string::npos) << p[0].declined[0];
}

}  // namespace
}  // namespace tessera
