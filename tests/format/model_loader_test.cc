#include "tessera/format/model_loader.h"

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/base/mapped_file.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

std::string Fixture(const std::string& name) { return std::string(TESSERA_SOURCE_DIR) + "/tests/data/" + name; }
std::string DefaultModel() { return std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx"; }

Status LoadStatus(const std::string& bytes) {
  return CatchStatus([&] { LoadModelFromBytes(bytes.data(), bytes.size()); });
}

TEST(ModelLoader, LoadsTheDefaultModel) {
  Model m = LoadModelFromFile(DefaultModel());
  EXPECT_EQ(m.OpsetFor(""), 17);
  EXPECT_EQ(m.graph->nodes.size(), 9u);
  EXPECT_EQ(m.graph->initializers.size(), 6u);
  ASSERT_EQ(m.graph->inputs.size(), 1u);
  EXPECT_EQ(m.graph->inputs[0].type.ToString(), "tensor(float)[batch,3,32,32]");
  EXPECT_EQ(m.producer_name, "tessera");
}

TEST(ModelLoader, RejectsTruncatedFile) {
  std::string bytes = ReadFileToString(DefaultModel());
  Status st = LoadStatus(bytes.substr(0, bytes.size() / 2));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidModel);
  EXPECT_NE(st.message().find("could not be parsed"), std::string::npos) << st.message();
}

TEST(ModelLoader, RejectsGarbageAndEmptyInput) {
  std::string garbage(1000, '\xff');
  EXPECT_EQ(LoadStatus(garbage).code(), StatusCode::kInvalidModel);
  EXPECT_EQ(LoadStatus("").code(), StatusCode::kInvalidModel);
  EXPECT_EQ(LoadStatus("hello, this is not a model").code(), StatusCode::kInvalidModel);
}

TEST(ModelLoader, MissingFileIsAnIoErrorNamingThePath) {
  Status st = CatchStatus([] { LoadModelFromFile("/nonexistent/model.onnx"); });
  EXPECT_EQ(st.code(), StatusCode::kIoError);
  EXPECT_NE(st.message().find("/nonexistent/model.onnx"), std::string::npos);
}

TEST(ModelLoader, RejectsUnsupportedIrVersion) {
  Model m = LoadModelFromFile(DefaultModel());
  m.ir_version = 99;
  std::string bytes = SerializeModel(m);
  Status st = LoadStatus(bytes);
  EXPECT_NE(st.message().find("IR version 99"), std::string::npos) << st.message();
}

TEST(ModelLoader, SerializeRoundTripKeepsTheGraph) {
  Model m = LoadModelFromFile(DefaultModel());
  std::string bytes = SerializeModel(m);
  Model again = LoadModelFromBytes(bytes.data(), bytes.size());
  EXPECT_EQ(again.graph->nodes.size(), m.graph->nodes.size());
  EXPECT_EQ(again.graph->initializers.at("w1").numel(), m.graph->initializers.at("w1").numel());
  EXPECT_EQ(again.graph->nodes[0].FindAttribute("pads")->ints, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(ModelLoader, ReadsExternalDataInsideTheModelFolder) {
  Model m = LoadModelFromFile(Fixture("external_ok/model.onnx"));
  const Tensor& w = m.graph->initializers.at("w");
  ASSERT_EQ(w.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w.data<float>()[i], static_cast<float>(i));
}

TEST(ModelLoader, RefusesExternalDataOutsideTheModelFolder) {
  struct Case {
    const char* fixture;
    const char* expect;
  };
  for (const Case& c : {Case{"external_dotdot", "contains '..'"}, Case{"external_absolute", "is absolute"},
                        Case{"external_symlink", "leads outside the model's folder"},
                        Case{"external_past_end", "beyond the end"}}) {
    Status st = CatchStatus([&] { LoadModelFromFile(Fixture(std::string(c.fixture) + "/model.onnx")); });
    ASSERT_FALSE(st.ok()) << c.fixture;
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << c.fixture << ": " << st.message();
    EXPECT_NE(st.message().find("initializer 'w'"), std::string::npos) << st.message();
  }
}

TEST(ModelLoader, ExternalDataNeedsAFolder) {
  std::string bytes = ReadFileToString(Fixture("external_ok/model.onnx"));
  Status st = LoadStatus(bytes);
  EXPECT_NE(st.message().find("loaded from bytes"), std::string::npos) << st.message();
}

TEST(ModelLoader, ReadsExternalDataFromFilesInMemory) {
  // The fixture's data file, supplied from memory: a model given as bytes
  // then loads, and a 64-byte aligned buffer is used in place.
  std::string bytes = ReadFileToString(Fixture("external_ok/model.onnx"));
  auto file = MappedFile::Open(Fixture("external_ok/weights.bin"));
  InMemoryFiles files;
  files["weights.bin"] = InMemoryFile{file->data(), file->size(), file};
  Model m = LoadModelFromBytes(bytes.data(), bytes.size(), "", {}, files);
  const Tensor& w = m.graph->initializers.at("w");
  ASSERT_EQ(w.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(w.data<float>()[i], static_cast<float>(i));
  const auto* at = static_cast<const unsigned char*>(w.raw_data());
  EXPECT_TRUE(at >= file->data() && at + w.nbytes() <= file->data() + file->size()) << "copied, not borrowed";
  // Too short a buffer is refused like too short a file.
  files["weights.bin"].size = 8;
  Status st = CatchStatus([&] { LoadModelFromBytes(bytes.data(), bytes.size(), "", {}, files); });
  EXPECT_NE(st.message().find("beyond the end"), std::string::npos) << st.message();
}

TEST(ModelLoader, DensifiesSparseInitializers) {
  Model m = LoadModelFromFile(Fixture("sparse_initializer/model.onnx"));
  const Tensor& sp = m.graph->initializers.at("sp");
  ASSERT_EQ(sp.shape(), (Shape{2, 3}));
  std::vector<float> expect = {0, 5, 0, 0, 0, 7};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(sp.data<float>()[i], expect[static_cast<size_t>(i)]);
}

TEST(ModelLoader, InlinesModelLocalFunctions) {
  Model m = LoadModelFromFile(Fixture("function/model.onnx"));
  ASSERT_EQ(m.graph->nodes.size(), 3u);
  EXPECT_EQ(m.graph->nodes[0].op_type, "Add");
  const Attribute* v = m.graph->nodes[1].FindAttribute("value_float");
  ASSERT_NE(v, nullptr);
  EXPECT_FLOAT_EQ(v->f, 1.5f);  // taken from the caller's `scale`
  EXPECT_EQ(m.graph->nodes[2].outputs[0], "y");
}

TEST(ModelLoader, RejectsRawDataOfTheWrongLength) {
  Model m = test::MakeModel({test::MakeNode("copy", "Identity", {"w"}, {"y"})}, {},
                            {test::TensorInfo("y", DataType::kFloat, {4})});
  m.graph->initializers["w"] = Tensor::FromVector<float>({1, 2, 3, 4}, {4});
  std::string bytes = SerializeModel(m);
  // Patch the dims so they no longer match raw_data: 4 -> 5 (dims is field 1, varint).
  size_t pos = bytes.find(std::string("\x08\x04\x10\x01", 4));
  ASSERT_NE(pos, std::string::npos);
  bytes[pos + 1] = '\x05';
  Status st = LoadStatus(bytes);
  EXPECT_EQ(st.code(), StatusCode::kInvalidModel);
  EXPECT_NE(st.message().find("raw_data has 16 bytes"), std::string::npos) << st.message();
}

TEST(TensorFile, RoundTripsThroughSerializeTensor) {
  Tensor t = Tensor::FromVector<int64_t>({1, -2, 3}, {3});
  std::string bytes = SerializeTensor(t, "x");
  Tensor back = ParseTensorBytes(bytes.data(), bytes.size());
  EXPECT_EQ(back.dtype(), DataType::kInt64);
  EXPECT_EQ(back.data<int64_t>()[1], -2);
}

}  // namespace
}  // namespace tessera
