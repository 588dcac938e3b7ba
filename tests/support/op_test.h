// Builds a one-node model in memory, runs it on every available execution
// provider and checks each result against the expected outputs. The CPU
// provider runs first; every other provider's result is also checked against
// the CPU's. A provider that declines the node (its fallback to the CPU runs
// it instead) is named with its reason in the test's output, never counted
// as having run it.
//
//   OpTest("Add", 14)
//       .Input("a", Tensor::FromVector<float>({1, 2}, {2}))
//       .Input("b", Tensor::FromVector<float>({3, 4}, {2}))
//       .Output("c", Tensor::FromVector<float>({4, 6}, {2}))
//       .Run();
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tessera/ir/graph.h"
#include "tessera/ir/value.h"

namespace tessera::test {

class OpTest {
 public:
  // opset kNewestImplemented: the newest opset the CPU kernel table
  // implements for this op.
  explicit OpTest(std::string op_type, int64_t opset = kNewestImplemented, std::string domain = "ai.onnx");

  OpTest& Attr(const std::string& name, int64_t v);
  OpTest& Attr(const std::string& name, float v);
  OpTest& Attr(const std::string& name, const std::string& v);
  OpTest& Attr(const std::string& name, const std::vector<int64_t>& v);
  OpTest& Attr(const std::string& name, const std::vector<float>& v);
  OpTest& Attr(const std::string& name, const std::vector<std::string>& v);
  OpTest& Attr(const std::string& name, const Tensor& v);
  OpTest& Attr(Attribute attribute);

  // A graph input fed at run time.
  OpTest& Input(const std::string& name, Value value);
  // An input held as an initializer (constant to the session).
  OpTest& ConstantInput(const std::string& name, const Tensor& value);
  // An omitted optional input ("" in the node's input list).
  OpTest& OmittedInput();
  OpTest& Output(const std::string& name, Value expected);
  // An output the node produces but the test does not check.
  OpTest& UncheckedOutput(const std::string& name);
  OpTest& OmittedOutput();
  OpTest& Tolerance(double rtol, double atol);
  OpTest& Providers(std::vector<std::string> providers);
  // Leaves out one provider, for a documented deviation (`why` says which).
  OpTest& ExceptProvider(const std::string& provider, const std::string& why);
  // intra_op_num_threads of the sessions (1 unless set).
  OpTest& Threads(int n);

  // Runs and checks; reports failures through gtest.
  void Run();
  // Expects session creation or run to fail with a message containing `substring`.
  void ExpectFailure(const std::string& substring);

  Model BuildModel() const;

  static constexpr int64_t kNewestImplemented = -1;
  // The opset the test builds its model with.
  int64_t opset() const { return opset_; }

 private:
  std::string op_type_;
  int64_t opset_;
  std::string domain_;
  Node node_;
  std::vector<std::pair<std::string, Value>> feeds_;
  std::map<std::string, Tensor> initializers_;
  std::vector<ValueInfo> inputs_;
  std::vector<std::pair<std::string, std::optional<Value>>> outputs_;
  double rtol_ = 1e-4;
  double atol_ = 1e-6;
  std::vector<std::string> providers_;
  int threads_ = 1;
};

// Convenience constructors.
template <typename T>
Tensor T_(std::vector<T> values, Shape shape) {
  return Tensor::FromVector<T>(values, std::move(shape));
}

}  // namespace tessera::test
