#include "tessera/providers/dnnl/dnnl_partition_kernel.h"

#include <omp.h>

#include <cstdlib>
#include <unordered_map>

#include "tessera/base/status.h"

namespace tessera::dnnl_ep {

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Aligned = std::unique_ptr<void, FreeDeleter>;

Aligned AlignedBytes(size_t bytes) {
  if (bytes == 0) return Aligned(nullptr);
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == nullptr) TS_THROW(kResourceExhausted, "oneDNN partition: cannot allocate ", bytes, " bytes");
  return Aligned(p);
}

}  // namespace

struct PartitionKernel::Workspace {
  Aligned arena, scratchpad;
  std::vector<dnnl::memory> memories;  // one per plan value
  std::vector<std::unordered_map<int, dnnl::memory>> args;  // one per step
  dnnl::stream stream;
};

PartitionKernel::PartitionKernel(Plan plan) : plan_(std::move(plan)) {
  pending_ = std::move(plan_.pending_constants);
  plan_.pending_constants.clear();
  for (size_t v = 0; v < plan_.values.size(); ++v) {
    auto kind = plan_.buffers[static_cast<size_t>(plan_.values[v].buffer)].kind;
    if (kind == PlanBuffer::Kind::kInput || kind == PlanBuffer::Kind::kOutput) bound_values_.push_back(static_cast<int>(v));
  }
}

PartitionKernel::~PartitionKernel() = default;

void PartitionKernel::PrepareConstants() const {
  std::call_once(constants_ready_, [&] {
    dnnl::stream s(plan_.engine);
    for (PendingConstant& p : pending_) {
      dnnl::memory src(p.host_desc, plan_.engine, const_cast<void*>(p.host.raw_data()));
      dnnl::memory dst(p.want, plan_.engine, plan_.constants[static_cast<size_t>(p.index)].get());
      dnnl::reorder(src, dst).execute(s, src, dst);
      s.wait();
      p.host = Tensor();  // the original's last reference, usually
    }
    pending_.clear();
  });
}

std::unique_ptr<PartitionKernel::Workspace> PartitionKernel::Acquire() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      auto ws = std::move(idle_.back());
      idle_.pop_back();
      return ws;
    }
  }
  auto ws = std::make_unique<Workspace>();
  ws->arena = AlignedBytes(plan_.arena_bytes);
  ws->scratchpad = AlignedBytes(plan_.scratchpad_bytes);
  ws->stream = dnnl::stream(plan_.engine);
  char* arena = static_cast<char*>(ws->arena.get());
  for (const PlanValue& v : plan_.values) {
    const PlanBuffer& b = plan_.buffers[static_cast<size_t>(v.buffer)];
    void* handle = nullptr;
    if (b.kind == PlanBuffer::Kind::kArena) handle = arena + b.offset;
    if (b.kind == PlanBuffer::Kind::kConstant) handle = plan_.constants[static_cast<size_t>(b.index)].get();
    ws->memories.emplace_back(v.desc, plan_.engine, handle);
  }
  for (const PlanStep& s : plan_.steps) {
    auto& args = ws->args.emplace_back();
    for (const auto& [arg, v] : s.args) args.emplace(arg, ws->memories[static_cast<size_t>(v)]);
    if (s.scratchpad.get_size() > 0)
      args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(s.scratchpad, plan_.engine, ws->scratchpad.get()));
  }
  return ws;
}

void PartitionKernel::Release(std::unique_ptr<Workspace> ws) const {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(ws));
}

void PartitionKernel::Compute(KernelContext& ctx) const {
  std::vector<void*> inputs(plan_.input_shapes.size()), outputs(plan_.output_shapes.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!plan_.input_read[k]) continue;
    const Tensor& t = ctx.input(k);
    if (t.dtype() != DataType::kFloat || t.shape() != plan_.input_shapes[k])
      ctx.Fail("oneDNN partition was compiled for input ", k, " ('", ctx.node().inputs[k], "') as float ",
               ShapeToString(plan_.input_shapes[k]), ", got ", DataTypeName(t.dtype()), " ", ShapeToString(t.shape()));
    inputs[k] = const_cast<void*>(t.raw_data());
  }
  for (size_t k = 0; k < outputs.size(); ++k)
    outputs[k] = ctx.allocate_output(k, DataType::kFloat, plan_.output_shapes[k]).raw_data();

  try {
    PrepareConstants();
  } catch (const dnnl::error& e) {
    ctx.Fail("oneDNN could not reorder the partition's weights: ", e.what());
  }
  std::unique_ptr<Workspace> ws = Acquire();
  for (int v : bound_values_) {
    const PlanBuffer& b = plan_.buffers[static_cast<size_t>(plan_.values[static_cast<size_t>(v)].buffer)];
    void* p = b.kind == PlanBuffer::Kind::kInput ? inputs[static_cast<size_t>(b.index)] : outputs[static_cast<size_t>(b.index)];
    ws->memories[static_cast<size_t>(v)].set_data_handle(p);
  }
  // oneDNN's OpenMP team follows the session's intra-op thread count.
  omp_set_num_threads(plan_.num_threads);
  try {
    StepTracer* tracer = ctx.tracer();
    for (size_t s = 0; s < plan_.steps.size(); ++s) {
      const PlanStep& step = plan_.steps[s];
      int64_t start = tracer ? tracer->NowMicros() : 0;
      if (step.host)
        step.host(ws->args[s]);
      else
        step.primitive.execute(ws->stream, ws->args[s]);
      if (tracer != nullptr) {
        // Profiling: each primitive timed on its own, reorders apart.
        ws->stream.wait();
        StepRecord record;
        record.name = step.label;
        record.reorder = step.primitive && step.primitive.get_kind() == dnnl::primitive::kind::reorder;
        record.implementation = step.implementation;
        record.start_us = start;
        record.duration_us = tracer->NowMicros() - start;
        for (const auto& [arg, v] : step.args)
          if (arg == DNNL_ARG_DST || arg == DNNL_ARG_TO)
            record.bytes = static_cast<int64_t>(plan_.values[static_cast<size_t>(v)].desc.get_size());
        record.flops = step.flops;
        tracer->Step(record);
      }
    }
    ws->stream.wait();
  } catch (const dnnl::error& e) {
    Release(std::move(ws));
    ctx.Fail("oneDNN failed: ", e.what());
  }
  Release(std::move(ws));
}

}  // namespace tessera::dnnl_ep
