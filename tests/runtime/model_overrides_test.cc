#include "tessera/runtime/model_overrides.h"

#include <functional>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

Logger Quiet() { return Logger("test", Severity::kError); }

// y = x + w, x: [batch, 3] with the batch dimension denoted DATA_BATCH.
Model AddWeightModel() {
  Model m = MakeModel({MakeNode("add", "Add", {"x", "w"}, {"y"})},
                      {TensorInfo("x", DataType::kFloat, {-1, 3})}, {TensorInfo("y", DataType::kFloat, {-1, 3})});
  (*m.graph->inputs[0].type.shape)[0] = Dim::Symbol("batch");
  (*m.graph->inputs[0].type.shape)[0].denotation = "DATA_BATCH";
  (*m.graph->outputs[0].type.shape)[0] = Dim::Symbol("batch");
  m.graph->initializers["w"] = Tensor::FromVector<float>({1, 2, 3}, {3});
  return m;
}

std::string Message(const std::function<void()>& f) { return CatchStatus(f).message(); }

TEST(FreeDimensionOverrides, ByNameFixesInputsAndOutputs) {
  Model m = AddWeightModel();
  ApplyFreeDimensionOverrides(*m.graph, {{FreeDimensionOverride::Match::kName, "batch", 4}}, "m", Quiet());
  EXPECT_EQ(m.graph->inputs[0].type.ToString(), "tensor(float)[4,3]");
  EXPECT_EQ(m.graph->outputs[0].type.ToString(), "tensor(float)[4,3]");
}

TEST(FreeDimensionOverrides, ByDenotation) {
  Model m = AddWeightModel();
  ApplyFreeDimensionOverrides(*m.graph, {{FreeDimensionOverride::Match::kDenotation, "DATA_BATCH", 2}}, "m", Quiet());
  EXPECT_EQ(m.graph->inputs[0].type.ToString(), "tensor(float)[2,3]");
}

TEST(FreeDimensionOverrides, UnmatchedIsIgnored) {
  Model m = AddWeightModel();
  ApplyFreeDimensionOverrides(*m.graph, {{FreeDimensionOverride::Match::kName, "seq", 7}}, "m", Quiet());
  EXPECT_EQ(m.graph->inputs[0].type.ToString(), "tensor(float)[batch,3]");
}

TEST(FreeDimensionOverrides, BadValuesNameModelAndInput) {
  using M = FreeDimensionOverride::Match;
  {
    Model m = AddWeightModel();
    EXPECT_NE(Message([&] { ApplyFreeDimensionOverrides(*m.graph, {{M::kName, "batch", -2}}, "m.onnx", Quiet()); })
                  .find("model 'm.onnx': free-dimension override name 'batch' = -2"),
              std::string::npos);
  }
  {
    Model m = AddWeightModel();
    EXPECT_NE(Message([&] {
                ApplyFreeDimensionOverrides(*m.graph, {{M::kName, "batch", 2}, {M::kName, "batch", 3}}, "m", Quiet());
              }).find("overridden twice, with 2 and 3"),
              std::string::npos);
  }
  {
    Model m = AddWeightModel();
    (*m.graph->inputs[0].type.shape)[1].denotation = "DATA_CHANNEL";
    EXPECT_NE(Message([&] {
                ApplyFreeDimensionOverrides(*m.graph, {{M::kDenotation, "DATA_CHANNEL", 8}}, "m", Quiet());
              }).find("input 'x' dimension 1 (denotation DATA_CHANNEL) is fixed at 3; the free-dimension override asks 8"),
              std::string::npos);
  }
}

TEST(FreeDimensionOverrides, DenotationSurvivesTheFileFormat) {
  Model m = AddWeightModel();
  std::string bytes = SerializeModel(m);
  Model back = LoadModelFromBytes(bytes.data(), bytes.size());
  EXPECT_EQ((*back.graph->inputs[0].type.shape)[0].denotation, "DATA_BATCH");
}

TEST(FreeDimensionOverrides, SessionReportsTheFixedShapeAndChecksFeeds) {
  SessionOptions options;
  options.free_dimension_overrides = {{FreeDimensionOverride::Match::kName, "batch", 2}};
  Session s(AddWeightModel(), options, MakeProviders({"cpu"}));
  EXPECT_EQ(s.inputs()[0].type.ToString(), "tensor(float)[2,3]");
  auto out = s.Run({{"x", Tensor::FromVector<float>({0, 0, 0, 1, 1, 1}, {2, 3})}});
  EXPECT_EQ(out[0].tensor().data<float>()[5], 4.0f);
  EXPECT_NE(Message([&] { s.Run({{"x", Tensor::FromVector<float>({0, 0, 0}, {1, 3})}}); }).find("dimension 0 must be 2"),
            std::string::npos);
}

TEST(InitializerOverrides, ReplaceTheModelsTensor) {
  std::vector<float> user = {10, 20, 30};
  SessionOptions options;
  options.initializer_overrides = {
      {"w", Tensor(DataType::kFloat, {3}, TensorBuffer::Borrow(user.data(), sizeof(float) * 3, nullptr))}};
  Session s(AddWeightModel(), options, MakeProviders({"cpu"}));
  auto out = s.Run({{"x", Tensor::FromVector<float>({1, 1, 1}, {1, 3})}});
  EXPECT_EQ(out[0].tensor().data<float>()[2], 31.0f);
}

TEST(InitializerOverrides, UnknownNameOrOtherShapeIsAnError) {
  Model m = AddWeightModel();
  EXPECT_NE(Message([&] { ApplyInitializerOverrides(*m.graph, {{"v", Tensor::FromVector<float>({1}, {1})}}, "m"); })
                .find("model 'm': initializer 'v' supplied by the session options is no initializer of the graph"),
            std::string::npos);
  EXPECT_NE(Message([&] {
              ApplyInitializerOverrides(*m.graph, {{"w", Tensor::FromVector<float>({1, 2}, {2})}}, "m");
            }).find("initializer 'w' supplied as float[2] replaces one of float[3]"),
            std::string::npos);
}

}  // namespace
}  // namespace tessera
