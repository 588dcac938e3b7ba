// Loading keeps initializer raw_data out of protobuf (format/payload_split.cc):
// the tensors must come out exactly as a plain parse would make them, for
// every layout the wire format allows.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/base/status.h"
#include "tessera/format/model_loader.h"
#include "tessera/ir/tensor_compare.h"

namespace tessera {
namespace {

Model ModelWithWeights() {
  Model m = test::MakeModel({test::MakeNode("add", "Add", {"w", "v"}, {"y"})}, {},
                            {test::TensorInfo("y", DataType::kFloat, {4})});
  std::vector<float> big(300000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.25f - 7.0f;
  m.graph->initializers["big"] = Tensor::FromVector<float>(big, {300, 1000});
  m.graph->initializers["w"] = Tensor::FromVector<float>({1, 2, 3, 4}, {4});
  m.graph->initializers["v"] = Tensor::FromVector<float>({0.5f, -1, 8, 1e-3f}, {4});
  m.graph->initializers["ids"] = Tensor::FromVector<int64_t>({-5, 0, 1LL << 40}, {3});
  m.graph->initializers["empty"] = Tensor(DataType::kFloat, {0, 3});
  return m;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         (a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0);
}

void ExpectSameInitializers(const Model& got, const Model& want) {
  ASSERT_EQ(got.graph->initializers.size(), want.graph->initializers.size());
  for (const auto& [name, t] : want.graph->initializers) {
    auto it = got.graph->initializers.find(name);
    ASSERT_NE(it, got.graph->initializers.end()) << name;
    EXPECT_TRUE(SameBytes(it->second, t)) << name << ": " << it->second.Describe() << " vs " << t.Describe();
  }
}

std::string WriteTemp(const std::string& bytes, const std::string& name) {
  auto path = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".onnx");
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path.string();
}

TEST(PayloadSplit, FileAndBytesLoadTheSameTensors) {
  Model m = ModelWithWeights();
  std::string bytes = SerializeModel(m);
  ExpectSameInitializers(LoadModelFromBytes(bytes.data(), bytes.size()), m);
  std::string path = WriteTemp(bytes, "payload_split");
  // From a file the payload pages are dropped as they are copied; the
  // tensors must not notice.
  Model from_file = LoadModelFromFile(path);
  std::filesystem::remove(path);
  ExpectSameInitializers(from_file, m);
  EXPECT_EQ(from_file.graph->nodes.size(), 1u);
}

// Two `graph` fields in one ModelProto merge; initializers from both count.
TEST(PayloadSplit, RepeatedGraphFieldsMerge) {
  Model m = ModelWithWeights();
  std::string bytes = SerializeModel(m);
  std::string tensor = SerializeTensor(Tensor::FromVector<float>({9, 8, 7}, {3}), "extra");
  std::string initializer = std::string("\x2a") + static_cast<char>(tensor.size()) + tensor;  // Graph.initializer = 5
  ASSERT_LT(tensor.size(), 128u);
  bytes += std::string("\x3a") + static_cast<char>(initializer.size()) + initializer;  // Model.graph = 7
  Model want = m;
  want.graph->initializers["extra"] = Tensor::FromVector<float>({9, 8, 7}, {3});
  ExpectSameInitializers(LoadModelFromBytes(bytes.data(), bytes.size()), want);
}

// A repeated optional raw_data field: the last occurrence wins, as in protobuf.
TEST(PayloadSplit, LastRawDataWins) {
  Model m = test::MakeModel({test::MakeNode("copy", "Identity", {"w"}, {"y"})}, {},
                            {test::TensorInfo("y", DataType::kFloat, {2})});
  std::string tensor = SerializeTensor(Tensor::FromVector<float>({1, 2}, {2}), "w");
  float later[2] = {5, 6};
  tensor += std::string("\x4a\x08") + std::string(reinterpret_cast<const char*>(later), 8);  // Tensor.raw_data = 9
  std::string initializer = std::string("\x2a") + static_cast<char>(tensor.size()) + tensor;
  std::string bytes = SerializeModel(m) + std::string("\x3a") + static_cast<char>(initializer.size()) + initializer;
  Model got = LoadModelFromBytes(bytes.data(), bytes.size());
  const Tensor& w = got.graph->initializers.at("w");
  ASSERT_EQ(w.numel(), 2);
  EXPECT_EQ(w.data<float>()[0], 5.0f);
  EXPECT_EQ(w.data<float>()[1], 6.0f);
}

// Bytes the walker cannot split (here a truncated initializer) still get the
// plain parse's verdict.
TEST(PayloadSplit, MalformedBytesKeepThePlainParseError) {
  std::string bytes = SerializeModel(ModelWithWeights());
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{7}}) {
    std::string part = bytes.substr(0, cut);
    Status st = CatchStatus([&] { LoadModelFromBytes(part.data(), part.size()); });
    EXPECT_EQ(st.code(), StatusCode::kInvalidModel) << cut;
    EXPECT_NE(st.message().find("could not be parsed"), std::string::npos) << st.message();
  }
}

}  // namespace
}  // namespace tessera
