#include "tessera/runtime/session.h"

#include <thread>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/ir/tensor_compare.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

std::string Fixture(const std::string& name) { return std::string(TESSERA_SOURCE_DIR) + "/tests/data/" + name; }

Model AddModel() {
  return MakeModel({MakeNode("add", "Add", {"a", "b"}, {"c"})},
                   {TensorInfo("a", DataType::kFloat, {2, 3}), TensorInfo("b", DataType::kFloat, {-1, 3})},
                   {TensorInfo("c", DataType::kFloat, {2, 3})});
}

std::unique_ptr<Session> MakeSession(Model m) {
  return std::make_unique<Session>(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
}

Status RunStatus(const Session& s, const Feeds& feeds) {
  return CatchStatus([&] { s.Run(feeds); });
}

Tensor Floats(std::vector<float> v, Shape s) { return Tensor::FromVector<float>(v, s); }

TEST(Session, RunsAndReportsInputsAndOutputs) {
  auto s = MakeSession(AddModel());
  ASSERT_EQ(s->inputs().size(), 2u);
  EXPECT_EQ(s->inputs()[1].type.ToString(), "tensor(float)[n,3]");
  auto out = s->Run({{"a", Floats({1, 2, 3, 4, 5, 6}, {2, 3})}, {"b", Floats({1, 1, 1, 1, 1, 1}, {2, 3})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().data<float>()[5], 7.0f);
}

TEST(Session, FeedErrorsNameTheInput) {
  auto s = MakeSession(AddModel());
  Tensor ok = Floats({1, 2, 3, 4, 5, 6}, {2, 3});
  struct Case {
    Feeds feeds;
    const char* expect;
  };
  std::vector<Case> cases = {
      {{{"a", ok}}, "input 'b' (tensor(float)[n,3]) was not fed"},
      {{{"a", ok}, {"b", ok}, {"zzz", ok}}, "feed 'zzz' is not an input"},
      {{{"a", Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3})}, {"b", ok}},
       "input 'a': expected element type float but got int32"},
      {{{"a", Floats({1, 2, 3, 4, 5, 6}, {6})}, {"b", ok}}, "input 'a': expected rank 2"},
      {{{"a", ok}, {"b", Floats({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4})}}, "dimension 1 must be 3"},
      {{{"a", ok}, {"a", ok}, {"b", ok}}, "fed twice"},
  };
  for (const auto& c : cases) {
    Status st = RunStatus(*s, c.feeds);
    ASSERT_FALSE(st.ok()) << c.expect;
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find(c.expect), std::string::npos) << st.message();
  }
}

TEST(Session, UnknownOutputNameIsAnError) {
  auto s = MakeSession(AddModel());
  Tensor ok = Floats({1, 2, 3, 4, 5, 6}, {2, 3});
  Status st = CatchStatus([&] { s->Run({{"a", ok}, {"b", ok}}, {"nope"}); });
  EXPECT_NE(st.message().find("'nope' is not an output"), std::string::npos) << st.message();
}

TEST(Session, DanglingInputNamesTheNodeAndValue) {
  Model m = MakeModel({MakeNode("add", "Add", {"a", "ghost"}, {"c"})}, {TensorInfo("a", DataType::kFloat, {2})},
                      {TensorInfo("c", DataType::kFloat, {2})});
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidModel);
  EXPECT_NE(st.message().find("'add'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'ghost'"), std::string::npos) << st.message();
}

TEST(Session, CycleIsRejected) {
  Model m = MakeModel({MakeNode("n1", "Add", {"a", "y"}, {"x"}), MakeNode("n2", "Add", {"a", "x"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cycle"), std::string::npos) << st.message();
}

TEST(Session, DuplicateProducerIsRejected) {
  Model m = MakeModel({MakeNode("n1", "Relu", {"a"}, {"x"}), MakeNode("n2", "Relu", {"a"}, {"x"})},
                      {TensorInfo("a", DataType::kFloat, {2})}, {TensorInfo("x", DataType::kFloat, {2})});
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  EXPECT_NE(st.message().find("produced by two nodes"), std::string::npos) << st.message();
}

TEST(Session, UnknownOpNamesNodeAndOp) {
  Model m = MakeModel({MakeNode("mystery", "FrobnicateTensor", {"a"}, {"y"})},
                      {TensorInfo("a", DataType::kFloat, {2})}, {TensorInfo("y", DataType::kFloat, {2})});
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  EXPECT_EQ(st.code(), StatusCode::kNotImplemented);
  EXPECT_NE(st.message().find("'mystery' (FrobnicateTensor)"), std::string::npos) << st.message();
}

TEST(Session, ModelOpsetNewerThanSupportedSaysHowToFixIt) {
  Model m = AddModel();
  m.opset_imports[0].version = 40;
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  EXPECT_EQ(st.code(), StatusCode::kOpsetMismatch);
  EXPECT_NE(st.message().find("opset 40"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Re-export the model with opset_version=28"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'add' (Add)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("implements Add for opsets"), std::string::npos) << st.message();
}

TEST(Session, OpNotYetDefinedAtTheModelsOpset) {
  // Gelu exists from opset 20; a model importing opset 17 cannot use it.
  Model m = MakeModel({MakeNode("g", "Gelu", {"a"}, {"y"})}, {TensorInfo("a", DataType::kFloat, {2})},
                      {TensorInfo("y", DataType::kFloat, {2})}, 17);
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  EXPECT_EQ(st.code(), StatusCode::kOpsetMismatch);
  EXPECT_NE(st.message().find("'g' (Gelu)"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("opset_version>=20"), std::string::npos) << st.message();
}

TEST(Session, UnimportedDomainIsAnError) {
  Model m = AddModel();
  m.graph->nodes[0].domain = "com.example";
  Status st = CatchStatus([&] { MakeSession(std::move(m)); });
  EXPECT_NE(st.message().find("does not import"), std::string::npos) << st.message();
}

TEST(Session, RunsIfWithOuterScopeValues) {
  auto s = Session::FromFile(Fixture("if_outer_scope/model.onnx"), SessionOptions{}, MakeProviders({"cpu"}));
  for (bool c : {true, false}) {
    auto out = s->Run({{"cond", Tensor::Scalar<bool>(c)}, {"x", Floats({10, 20}, {2})}});
    EXPECT_EQ(out[0].tensor().data<float>()[1], c ? 21.0f : 19.0f);
  }
}

TEST(Session, RunsInlinedFunction) {
  auto s = Session::FromFile(Fixture("function/model.onnx"), SessionOptions{}, MakeProviders({"cpu"}));
  auto out = s->Run({{"x", Floats({1, 2, 3}, {3})}});
  EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[2], 9.0f);  // (3 + 3) * 1.5
}

TEST(Session, ConcurrentRunsMatchSequentialRuns) {
  auto s = Session::FromFile(std::string(TESSERA_SOURCE_DIR) + "/models/default/model.onnx", SessionOptions{},
                             MakeProviders({"cpu"}));
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
  for (int i = 0; i < 8; ++i) {
    Tensor x(DataType::kFloat, {1, 3, 32, 32});
    for (int64_t k = 0; k < x.numel(); ++k) x.data<float>()[k] = static_cast<float>((k * (i + 3)) % 17) / 17.0f;
    inputs.push_back(x);
    expected.push_back(s->Run({{"image", x}})[0].tensor());
  }
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) {
        Tensor y = s->Run({{"image", inputs[static_cast<size_t>(t)]}})[0].tensor();
        if (CompareTensors(y, expected[static_cast<size_t>(t)], 0, 0).match) ok[static_cast<size_t>(t)]++;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(ok[static_cast<size_t>(t)], 5) << "thread " << t;
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

TEST(Session, TwoSessionsFromOneModelStayIndependent) {
  Model m = LoadModelFromFile(std::string(TESSERA_SOURCE_DIR) + "/tests/data/if_outer_scope/model.onnx");
  Session first(m, SessionOptions{}, MakeProviders({"cpu"}));
  Session second(m, SessionOptions{}, MakeProviders({"cpu"}));
  auto a = first.Run({{"cond", Tensor::Scalar<bool>(true)}, {"x", Tensor::FromVector<float>({1, 2}, {2})}});
  auto b = second.Run({{"cond", Tensor::Scalar<bool>(false)}, {"x", Tensor::FromVector<float>({1, 2}, {2})}});
  EXPECT_EQ(a[0].tensor().data<float>()[0], 2.0f);
  EXPECT_EQ(b[0].tensor().data<float>()[0], 0.0f);
}

}  // namespace
}  // namespace tessera
