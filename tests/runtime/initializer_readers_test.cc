// InitializerReaders: an initializer goes as soon as every node reading it
// has a kernel that copied it (a packed GEMM weight), and not before; and a
// session frees a packed MatMul weight during its creation.
#include "tessera/runtime/initializer_readers.h"

#include <memory>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/runtime/session.h"

namespace tessera {
namespace {

using test::MakeModel;
using test::MakeNode;
using test::TensorInfo;

// A kernel that reads at run time only the inputs it is told to.
class FakeKernel final : public OpKernel {
 public:
  explicit FakeKernel(bool reads) : reads_(reads) {}
  void Compute(KernelContext&) const override {}
  bool ReadsInput(size_t i) const override { return i == 0 || reads_; }

 private:
  bool reads_;
};

Graph TwoReadersOfW() {
  Graph g;
  g.nodes = {MakeNode("a", "MatMul", {"x", "w"}, {"y"}), MakeNode("b", "MatMul", {"y", "w"}, {"z"}),
             MakeNode("c", "Add", {"z", "fed"}, {"out"})};
  for (const char* name : {"w", "fed"}) g.initializers[name] = Tensor::FromVector<float>({1.f}, {1, 1});
  g.inputs = {TensorInfo("x", DataType::kFloat, {1, 1}), TensorInfo("fed", DataType::kFloat, {1, 1})};
  g.outputs = {TensorInfo("out", DataType::kFloat, {1, 1})};
  return g;
}

TEST(InitializerReaders, ReleasedWhenTheLastReaderCopiedIt) {
  Graph g = TwoReadersOfW();
  InitializerReaders readers(g);
  const FakeKernel copies(false);
  EXPECT_TRUE(readers.KernelCreated(g.nodes[0], &copies).empty()) << "node b still needs w";
  EXPECT_EQ(readers.KernelCreated(g.nodes[1], &copies), std::vector<std::string>{"w"});
  // A graph input's initializer is a default a feed may override: kept.
  EXPECT_TRUE(readers.KernelCreated(g.nodes[2], &copies).empty());
}

TEST(InitializerReaders, KeptWhileAnyKernelReadsItOrIsStillToBeCompiled) {
  Graph g = TwoReadersOfW();
  const FakeKernel copies(false), reads(true);
  InitializerReaders read_at_run_time(g);
  read_at_run_time.KernelCreated(g.nodes[0], &reads);
  EXPECT_TRUE(read_at_run_time.KernelCreated(g.nodes[1], &copies).empty());
  InitializerReaders compiled_later(g);
  compiled_later.KernelCreated(g.nodes[0], nullptr);  // a node of a partition compiled later
  EXPECT_TRUE(compiled_later.KernelCreated(g.nodes[1], &copies).empty());
}

TEST(InitializerReaders, KeptWhenASubgraphReadsIt) {
  Graph g = TwoReadersOfW();
  auto body = std::make_shared<Graph>();
  body->nodes = {MakeNode("inner", "Identity", {"w"}, {"w_out"})};
  body->outputs = {TensorInfo("w_out", DataType::kFloat, {1, 1})};
  Attribute branch;
  branch.name = "then_branch";
  branch.type = AttributeType::kGraph;
  branch.g = body;
  g.nodes[2].attributes.push_back(branch);
  InitializerReaders readers(g);
  const FakeKernel copies(false);
  readers.KernelCreated(g.nodes[0], &copies);
  EXPECT_TRUE(readers.KernelCreated(g.nodes[1], &copies).empty());
}

// The CPU MatMul packs a constant B when its kernel is created: the session
// holds the packed copy alone, and still computes the product.
TEST(InitializerReaders, SessionFreesAPackedMatMulWeight) {
  Model m = MakeModel({MakeNode("mm", "MatMul", {"x", "w"}, {"y"})}, {TensorInfo("x", DataType::kFloat, {1, 2})},
                      {TensorInfo("y", DataType::kFloat, {1, 2})});
  m.graph->initializers["w"] = Tensor::FromVector<float>({1.f, 2.f, 3.f, 4.f}, {2, 2});
  std::weak_ptr<TensorBuffer> weight = m.graph->initializers["w"].buffer();
  Session session(std::move(m), SessionOptions{}, MakeProviders({"cpu"}));
  EXPECT_TRUE(weight.expired()) << "the unpacked weight is still held";
  auto out = session.Run({{"x", Tensor::FromVector<float>({1.f, 1.f}, {1, 2})}});
  ASSERT_EQ(out.size(), 1u);
  const Tensor& y = out[0].tensor();
  EXPECT_EQ(y.data<float>()[0], 4.f);
  EXPECT_EQ(y.data<float>()[1], 6.f);
}

}  // namespace
}  // namespace tessera
