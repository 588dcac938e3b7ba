// Helpers for the graph-optimizer tests: attributes, initializers, running
// one pass with validation, and comparing a model's results before and after
// optimization.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/model_builder.h"
#include "tessera/api/providers.h"
#include "tessera/ir/tensor_compare.h"
#include "tessera/optimizer/graph_validation.h"
#include "tessera/optimizer/pass_manager.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/runtime/session.h"

namespace tessera::test {

inline Node WithAttrs(Node n, std::vector<Attribute> attrs) {
  for (auto& a : attrs) n.attributes.push_back(std::move(a));
  return n;
}

inline Tensor Floats(std::vector<float> v, Shape s) { return Tensor::FromVector<float>(v, std::move(s)); }
inline Tensor Ints(std::vector<int64_t> v) {
  Shape s{static_cast<int64_t>(v.size())};
  return Tensor::FromVector<int64_t>(v, s);
}

inline PassContext CpuContext(const Model& m) {
  PassContext ctx;
  ctx.model = &m;
  ctx.cpu_kernels = &CpuKernelTable();
  return ctx;
}

// Applies one pass to the main graph and checks the result's structure.
inline int ApplyPass(const GraphPass& pass, Model& m, PassContext ctx) {
  int changes = pass.Apply(*m.graph, {}, ctx);
  ValidateGraph(*m.graph, {}, pass.name());
  return changes;
}
inline int ApplyPass(const GraphPass& pass, Model& m) { return ApplyPass(pass, m, CpuContext(m)); }

inline std::vector<std::string> OpTypes(const Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes) ops.push_back(n.op_type);
  return ops;
}

inline int CountOp(const Graph& g, const std::string& op) {
  int c = 0;
  for (const auto& n : g.nodes) c += n.op_type == op;
  return c;
}

inline Model CopyModel(const Model& m) {
  Model c = m;
  c.graph = m.graph->DeepCopy();
  return c;
}

// The model optimized at `level` with every pass validated.
inline Model Optimized(const Model& m, OptimizationLevel level, OptimizerReport* report = nullptr) {
  Model c = CopyModel(m);
  OptimizerOptions opts;
  opts.level = level;
  opts.validate_after_each_pass = true;
  OptimizerReport r = PassManager().Run(c, opts, CpuContext(c));
  if (report) *report = r;
  return c;
}

inline std::vector<Value> RunUnoptimized(const Model& m, const Feeds& feeds) {
  SessionOptions o;
  o.graph_optimization_level = OptimizationLevel::kDisabled;
  o.intra_op_num_threads = 1;
  Session s(CopyModel(m), o, MakeProviders({"cpu"}));
  return s.Run(feeds);
}

// Runs `m` unoptimized and optimized at `level`; expects the same outputs.
inline Model ExpectSameResults(const Model& m, const Feeds& feeds, OptimizationLevel level = OptimizationLevel::kAll) {
  Model opt = Optimized(m, level);
  std::vector<Value> want = RunUnoptimized(m, feeds), got = RunUnoptimized(opt, feeds);
  EXPECT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
    CompareResult c = CompareValues(got[i], want[i], 1e-5, 1e-6);
    EXPECT_TRUE(c.match) << "output " << i << ": " << c.message;
  }
  return opt;
}

}  // namespace tessera::test
