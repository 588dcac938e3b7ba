#include <gtest/gtest.h>

#include "tessera/base/mapped_file.h"
#include "tessera/base/status.h"
#include "tessera/format/model_loader.h"
#include "tessera/format/node_annotations.h"

namespace tessera {
namespace {

std::string DefaultModelBytes() { return ReadFileToString(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx"); }

TEST(NodeAnnotations, AddsPairsToNamedNodesAndLeavesTheGraphAlone) {
  std::string original = DefaultModelBytes();
  ASSERT_TRUE(ReadNodeAnnotations(original).empty());
  NodeAnnotations props = {{"conv1", {{"tessera.provider", "cpu"}, {"tessera.partition", "0"}}},
                           {"softmax", {{"tessera.provider", "opencl"}}},
                           {"no_such_node", {{"tessera.provider", "cpu"}}}};
  std::string annotated = AnnotateNodes(original, props);
  NodeAnnotations back = ReadNodeAnnotations(annotated);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back["conv1"], props["conv1"]);
  EXPECT_EQ(back["softmax"], props["softmax"]);
  // The graph as the loader reads it is the same (node metadata is not IR).
  Model a = LoadModelFromBytes(original.data(), original.size());
  Model b = LoadModelFromBytes(annotated.data(), annotated.size());
  EXPECT_EQ(SerializeModel(a), SerializeModel(b));
}

TEST(NodeAnnotations, OverwritesAKeyInsteadOfRepeatingIt) {
  std::string once = AnnotateNodes(DefaultModelBytes(), {{"conv1", {{"tessera.provider", "cpu"}}}});
  std::string twice = AnnotateNodes(once, {{"conv1", {{"tessera.provider", "dnnl"}, {"tessera.partition", "2"}}}});
  NodeAnnotations back = ReadNodeAnnotations(twice);
  std::vector<std::pair<std::string, std::string>> want = {{"tessera.provider", "dnnl"}, {"tessera.partition", "2"}};
  EXPECT_EQ(back["conv1"], want);
}

TEST(NodeAnnotations, ReportsExternalDataFilesAndRejectsGarbage) {
  Model m = LoadModelFromFile(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx");
  std::string data;
  std::string bytes = SerializeModelWithExternalData(m, "weights/model.bin", &data, 16);
  std::vector<std::string> locations;
  AnnotateNodes(bytes, {}, &locations);
  EXPECT_EQ(locations, std::vector<std::string>{"weights/model.bin"});
  EXPECT_THROW(AnnotateNodes("not a model", {}), Error);
}

}  // namespace
}  // namespace tessera
