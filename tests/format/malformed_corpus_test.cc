// Every file in tests/data/malformed (made by make_malformed.py) must be
// refused at session creation with the right status code and a message that
// names the problem, and the model / node / value at fault where there is one.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/base/status.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

std::string CorpusDir() { return std::string(TESSERA_SOURCE_DIR) + "/tests/data/malformed"; }

struct Expected {
  StatusCode code;
  std::vector<std::string> fragments;  // each must appear in the message
};

// File name -> what loading it must say. Every fragment is specific to the
// case; the model's file name is checked for all of them separately.
const std::map<std::string, Expected>& Cases() {
  static const std::map<std::string, Expected> cases = {
      {"empty.onnx", {StatusCode::kInvalidModel, {"empty (0 bytes)"}}},
      {"truncated.onnx", {StatusCode::kInvalidModel, {"could not be parsed"}}},
      {"truncated_one_byte.onnx", {StatusCode::kInvalidModel, {"could not be parsed"}}},
      {"invalid_wire_type.onnx", {StatusCode::kInvalidModel, {"could not be parsed"}}},
      {"length_past_end.onnx", {StatusCode::kInvalidModel, {"could not be parsed"}}},
      {"wrong_wire_type_graph.onnx", {StatusCode::kInvalidModel, {"has no graph"}}},
      {"no_graph.onnx", {StatusCode::kInvalidModel, {"has no graph"}}},
      {"negative_dim.onnx", {StatusCode::kInvalidModel, {"initializer 'w'", "negative dimension -1"}}},
      {"huge_dims.onnx", {StatusCode::kResourceExhausted, {"initializer 'w'", "overflows"}}},
      {"huge_dim_small_data.onnx", {StatusCode::kResourceExhausted, {"initializer 'w'", "exceeds the limit"}}},
      {"raw_data_wrong_length.onnx",
       {StatusCode::kInvalidModel, {"initializer 'w'", "raw_data has 20 bytes", "needs 24"}}},
      {"float_data_wrong_count.onnx", {StatusCode::kInvalidModel, {"initializer 'w'", "float_data has 3 values"}}},
      {"string_invalid_utf8.onnx",
       {StatusCode::kInvalidModel, {"initializer 'w'", "string element 1 is not valid UTF-8"}}},
      {"unknown_data_type.onnx", {StatusCode::kInvalidModel, {"initializer 'w'", "unknown data type 999"}}},
      {"duplicate_output_name.onnx",
       {StatusCode::kInvalidModel, {"graph 'dup'", "'y' is produced by two nodes", "'first'", "'second'"}}},
      {"cycle.onnx", {StatusCode::kInvalidModel, {"graph 'loop_graph'", "cycle", "make_"}}},
      {"dangling_input.onnx", {StatusCode::kInvalidModel, {"node 'reads_nothing'", "reads 'nowhere'"}}},
      {"dangling_output.onnx", {StatusCode::kInvalidModel, {"output 'never_made'", "not produced"}}},
      {"unknown_domain.onnx",
       {StatusCode::kNotImplemented, {"node 'mystery'", "no kernel for com.example.nothing:Frobnicate"}}},
      {"unknown_op.onnx", {StatusCode::kNotImplemented, {"node 'mystery'", "no kernel for ai.onnx:Frobnicate"}}},
      {"domain_not_imported.onnx",
       {StatusCode::kInvalidModel, {"node 'ml_node'", "domain 'ai.onnx.ml'", "does not import"}}},
      {"if_without_then_branch.onnx",
       {StatusCode::kInvalidModel, {"node 'branch'", "missing required attribute 'then_branch'"}}},
      {"opset_far_future.onnx", {StatusCode::kOpsetMismatch, {"node 'relu'", "opset 1000"}}},
      {"nesting_40.onnx", {StatusCode::kResourceExhausted, {"nested deeper than 32 levels"}}},
      {"deep_nesting.onnx", {StatusCode::kInvalidModel, {"could not be parsed", "nested more than"}}},
      {"external_outside_folder.onnx", {StatusCode::kInvalidModel, {"initializer 'w'", "contains '..'", "refused"}}},
  };
  return cases;
}

Status CreateSession(const std::string& file) {
  return CatchStatus([&] {
    Session::FromFile(CorpusDir() + "/" + file, SessionOptions{}, MakeProviders({"cpu"}));
  });
}

TEST(MalformedCorpus, BaseModelIsValid) {
  // The corpus is mutated from this model, so it must load and run.
  auto session = Session::FromFile(CorpusDir() + "/base_valid.onnx", SessionOptions{}, MakeProviders({"cpu"}));
  Tensor x = Tensor::FromVector<float>({-10, -10, -10, 0, 0, 0}, {2, 3});
  std::vector<Value> out = session->Run({{"x", x}});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> expected = {0, 0, 0, 3, 4, 5};  // Relu(x + [[0,1,2],[3,4,5]])
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(out[0].tensor().data<float>()[i], expected[i]) << i;
}

TEST(MalformedCorpus, EveryCaseGivesAClearError) {
  for (const auto& [file, expected] : Cases()) {
    SCOPED_TRACE(file);
    ASSERT_TRUE(fs::exists(CorpusDir() + "/" + file)) << "regenerate with tests/data/malformed/make_malformed.py";
    Status st = CreateSession(file);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(StatusCodeName(st.code()), std::string(StatusCodeName(expected.code))) << st.message();
    EXPECT_NE(st.message().find(file), std::string::npos) << "error does not name the model: " << st.message();
    for (const auto& fragment : expected.fragments)
      EXPECT_NE(st.message().find(fragment), std::string::npos) << "missing '" << fragment << "' in: " << st.message();
  }
}

TEST(MalformedCorpus, EveryFileHasACase) {
  // A case added to make_malformed.py without an expectation here fails.
  for (const auto& entry : fs::directory_iterator(CorpusDir())) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".onnx" || name == "base_valid.onnx") continue;
    EXPECT_TRUE(Cases().count(name)) << name << " has no expected error in malformed_corpus_test.cc";
  }
}

TEST(MalformedCorpus, NestingLimitIsConfigurable) {
  SessionOptions options;
  options.load_limits.max_graph_nesting = 30;
  Status st = CatchStatus([&] {
    Session::FromFile(CorpusDir() + "/nesting_40.onnx", options, MakeProviders({"cpu"}));
  });
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("nested deeper than 30 levels"), std::string::npos) << st.message();
}

TEST(MalformedCorpus, LoadingFromBytesGivesTheSameErrors) {
  // The bytes path (Session::FromBytes) runs the same checks; spot-check a
  // parse-level, a tensor-level and a graph-level case.
  for (const std::string file : {"truncated.onnx", "string_invalid_utf8.onnx", "cycle.onnx"}) {
    SCOPED_TRACE(file);
    std::string path = CorpusDir() + "/" + file;
    std::string bytes(fs::file_size(path), '\0');
    FILE* f = std::fopen(path.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
    std::fclose(f);
    Status st = CatchStatus([&] {
      Session::FromBytes(bytes.data(), bytes.size(), SessionOptions{}, MakeProviders({"cpu"}));
    });
    EXPECT_EQ(st.code(), Cases().at(file).code) << st.message();
    EXPECT_NE(st.message().find(Cases().at(file).fragments.back()), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace tessera
