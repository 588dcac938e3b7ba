// Micro-benchmarks of the CPU kernels on shapes taken from the benchmark
// suite (../shared/bench). Each benchmark creates the kernel exactly as a
// session does (CPU kernel table row -> KernelInfo -> Compute on a
// KernelContext), with a pool of `threads` threads made current the way a
// session run makes it current, so GEMMs split over it.
//
// Counters: FLOPS (2 per multiply-add) for GEMM and convolution, to set
// against the machine's FMA ceiling (../shared/bench/peak/peak_fma.c);
// items_per_second (output elements) for the memory-bound kernels.
//
//   build-X/bin/tessera_micro_bench --benchmark_filter='MatMul|Conv'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tessera/base/thread_pool.h"
#include "tessera/ir/graph.h"
#include "tessera/ops/kernel.h"
#include "tessera/ops/kernel_table.h"
#include "support/model_builder.h"
#include "tessera/providers/common/sgemm.h"
#include "tessera/providers/common/simd_elementwise.h"
#include "tessera/providers/cpu/cpu_execution_provider.h"
#include "tessera/providers/cpu/int8_gemm.h"

#include <cblas.h>

namespace tessera {
namespace {

using test::FloatAttr;
using test::IntAttr;
using test::IntsAttr;
using test::StringAttr;

Tensor Random(Shape shape, unsigned seed) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(rng);
  return t;
}

// One node, its kernel and its inputs, run repeatedly on one pool.
class KernelRun {
 public:
  // Inputs listed in `constants` are initializers of the node's graph, as
  // in a model (kernels may pack them at creation).
  KernelRun(std::string domain, std::string op, int64_t opset, std::vector<Tensor> inputs,
            std::vector<Attribute> attrs, int threads, size_t num_outputs = 1, std::vector<size_t> constants = {})
      : opset_(opset), pool_(threads) {
    node_.name = "bench";
    node_.op_type = std::move(op);
    node_.domain = std::move(domain);
    node_.attributes = std::move(attrs);
    for (size_t i = 0; i < inputs.size(); ++i) {
      node_.inputs.push_back("in" + std::to_string(i));
      if (std::find(constants.begin(), constants.end(), i) != constants.end())
        graph_.initializers[node_.inputs.back()] = inputs[i];
      inputs_.emplace_back(std::move(inputs[i]));
    }
    for (size_t i = 0; i < num_outputs; ++i) node_.outputs.push_back("out" + std::to_string(i));
    std::string why;
    const KernelRow* row = CpuKernelTable().Find(node_.domain, node_.op_type, opset_, &why);
    if (row == nullptr) {
      error_ = node_.Label() + ": " + why;
      return;
    }
    try {
      kernel_ = row->create(KernelInfo(node_, opset_, &graph_));
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }

  const std::string& error() const { return error_; }

  void Run() {
    std::vector<const Value*> ptrs;
    for (const Value& v : inputs_) ptrs.push_back(&v);
    outputs_.assign(node_.outputs.size(), Value());
    ThreadPool::CurrentScope current(&pool_);
    KernelContext ctx(node_, std::move(ptrs), &outputs_, &pool_, nullptr);
    kernel_->Compute(ctx);
    benchmark::DoNotOptimize(outputs_[0].tensor().raw_data());
  }

 private:
  Node node_;
  Graph graph_;  // holds the constant inputs
  int64_t opset_;
  ThreadPool pool_;
  std::vector<Value> inputs_;
  std::vector<Value> outputs_;
  std::unique_ptr<OpKernel> kernel_;
  std::string error_;
};

// Runs the kernel in the timing loop; flops > 0 adds a FLOPS rate, items > 0
// an items rate (elements written per run).
void Loop(benchmark::State& state, KernelRun& run, double flops, double items) {
  if (!run.error().empty()) {
    state.SkipWithError(run.error().c_str());
    return;
  }
  try {
    run.Run();  // warm: first-touch of the output, kernel caches
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) run.Run();
  if (flops > 0)
    state.counters["FLOPS"] = benchmark::Counter(flops * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
  if (items > 0) state.SetItemsProcessed(static_cast<int64_t>(items) * state.iterations());
}

int Threads(const benchmark::State& state) { return static_cast<int>(state.range(0)); }

// ---- GEMM: transformer shapes (M = tokens) ------------------------------------

void BM_MatMul(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  KernelRun run("ai.onnx", "MatMul", 13, {Random({m, k}, 1), Random({k, n}, 2)}, {}, Threads(state));
  Loop(state, run, 2.0 * m * n * k, 0);
}

// The GEMM alone, on the calling thread: Tessera's (sgemm.cc) against
// OpenBLAS's sgemm on the same operands (B as nn.Linear stores it when tb).
void BM_SgemmOwn(benchmark::State& state, int64_t m, int64_t k, int64_t n, bool tb) {
  Tensor a = Random({m, k}, 1), b = Random(tb ? Shape{n, k} : Shape{k, n}, 2), c(DataType::kFloat, {m, n});
  for (auto _ : state)
    cpu::SgemmF32(false, tb, m, n, k, 1.f, a.data<float>(), k, b.data<float>(), tb ? k : n, 0.f, c.data<float>(), n);
  state.counters["FLOPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
// The same with B packed once beforehand, as a constant weight is.
void BM_SgemmPacked(benchmark::State& state, int64_t m, int64_t k, int64_t n, bool tb) {
  Tensor a = Random({m, k}, 1), b = Random(tb ? Shape{n, k} : Shape{k, n}, 2), c(DataType::kFloat, {m, n});
  const cpu::PackedB packed(tb, k, n, b.data<float>(), tb ? k : n);
  for (auto _ : state) cpu::SgemmPackedF32(m, 0, n, 1.f, a.data<float>(), k, packed, 0.f, c.data<float>(), n);
  state.counters["FLOPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
// The same over several weights in turn, more bytes than the L3 holds, as
// a model's layers stream theirs: every B panel comes from DRAM.
void BM_SgemmPackedCold(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  Tensor a = Random({m, k}, 1), c(DataType::kFloat, {m, n});
  std::vector<cpu::PackedB> weights;
  const int64_t copies = std::max<int64_t>(2, (256 << 20) / (k * n * 4));
  for (int64_t i = 0; i < copies; ++i) {
    const Tensor b = Random({k, n}, static_cast<uint32_t>(2 + i));
    weights.emplace_back(false, k, n, b.data<float>(), n);
  }
  size_t next = 0;
  for (auto _ : state) {
    cpu::SgemmPackedF32(m, 0, n, 1.f, a.data<float>(), k, weights[next], 0.f, c.data<float>(), n);
    next = (next + 1) % weights.size();
  }
  state.counters["FLOPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
void BM_SgemmBlas(benchmark::State& state, int64_t m, int64_t k, int64_t n, bool tb) {
  openblas_set_num_threads(1);
  Tensor a = Random({m, k}, 1), b = Random(tb ? Shape{n, k} : Shape{k, n}, 2), c(DataType::kFloat, {m, n});
  for (auto _ : state)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.f, a.data<float>(), static_cast<int>(k), b.data<float>(),
                static_cast<int>(tb ? k : n), 0.f, c.data<float>(), static_cast<int>(n));
  state.counters["FLOPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
// The exact int8 GEMM (u8 activations, s8 weights packed once), int32 out;
// "OPS" counts 2 per multiply-add, as FLOPS does for the float GEMMs.
void BM_Int8Gemm(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  std::vector<uint8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 13 + 1);
  const int32_t za = 128, zb = 0;
  const cpu::PackedInt8B packed(true, k, n, b.data(), n, {&zb, false});
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  for (auto _ : state) cpu::Int8GemmS32(m, 0, n, false, a.data(), k, {&za, false}, packed, c.data(), n);
  state.counters["OPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

// The int8 GEMM with A as a convolution's constant weights (packed once,
// in the form the CPU picks: byte quads on AVX2) and B packed on each run as
// the convolutions pack their image: weights drawn as a quantizer leaves
// them (normal, the largest at +-127), so the byte-quad form splits a
// realistic share of pairs.
void BM_Int8GemmPackedWeights(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 127.0 / 4);
  std::vector<uint8_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (auto& v : a) v = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(std::lround(normal(rng)), -127L, 127L)));
  for (auto& v : b) v = static_cast<uint8_t>(rng());
  const int32_t za = 0, zb = 128;
  const cpu::PackedInt8A packed_a(true, m, k, a.data(), k, {&za, false});
  std::vector<const uint8_t*> rows(static_cast<size_t>(k));
  for (int64_t r = 0; r < k; ++r) rows[static_cast<size_t>(r)] = b.data() + r * n;
  cpu::PackedInt8B packed;
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  for (auto _ : state)
    cpu::Int8GemmPackingBPooled(nullptr, m, true, a.data(), k, {&za, false}, &packed_a, false, k, n, rows.data(),
                                {&zb, false}, packed, c.data(), n);
  state.counters["OPS"] = benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}

// Gemm as exported from nn.Linear: B transposed, bias row.
void BM_Gemm(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  KernelRun run("ai.onnx", "Gemm", 13, {Random({m, k}, 1), Random({n, k}, 2), Random({n}, 3)},
                {IntAttr("transB", 1)}, Threads(state));
  Loop(state, run, 2.0 * m * n * k, 0);
}

// FusedMatMul + bias + GELU: the FFN up-projection of bert/gpt2 after fusion.
void BM_FusedMatMulGelu(benchmark::State& state) {
  int64_t m = 128, k = 768, n = 3072;
  KernelRun run("ai.tessera", "FusedMatMul", 1, {Random({m, k}, 1), Random({k, n}, 2), Random({n}, 3)},
                {StringAttr("activation", "Gelu")}, Threads(state));
  Loop(state, run, 2.0 * m * n * k, 0);
}

// MatMulNBits, 4-bit block-32 weights with packed zero points, as the LLM
// builders write them: M = 1 is a decode step, larger M a prefill.
// accuracy_level 4 lets a decode step take int8 products (simd_nbits_int8.h).
void BM_MatMulNBits(benchmark::State& state, int64_t m, int64_t k, int64_t n, int64_t level = 0) {
  const int64_t block = 32, blocks = k / block;
  Tensor q(DataType::kUInt8, {n, blocks, block / 2}), zp(DataType::kUInt8, {n, (blocks + 1) / 2});
  for (int64_t i = 0; i < q.numel(); ++i) q.data<uint8_t>()[i] = static_cast<uint8_t>(i * 73 + 29);
  for (int64_t i = 0; i < zp.numel(); ++i) zp.data<uint8_t>()[i] = static_cast<uint8_t>(i * 31 + 7);
  Tensor scales = Random({n, blocks}, 3);
  KernelRun run(
      "com.microsoft", "MatMulNBits", 1, {Random({m, k}, 1), std::move(q), std::move(scales), std::move(zp)},
      {IntAttr("K", k), IntAttr("N", n), IntAttr("bits", 4), IntAttr("block_size", block),
       IntAttr("accuracy_level", level)},
      Threads(state), 1, {1, 2, 3});
  Loop(state, run, 2.0 * m * n * k, 0);
}

// ---- Convolution (batch 1, NCHW) ----------------------------------------------

struct ConvShape {
  int64_t c, m, hw, kernel, stride, group;
};

double ConvFlops(const ConvShape& s) {
  int64_t pad = s.kernel / 2, out = (s.hw + 2 * pad - s.kernel) / s.stride + 1;
  return 2.0 * s.m * out * out * (s.c / s.group) * s.kernel * s.kernel;
}

std::vector<Attribute> ConvAttrs(const ConvShape& s) {
  int64_t pad = s.kernel / 2;
  return {IntsAttr("kernel_shape", {s.kernel, s.kernel}), IntsAttr("strides", {s.stride, s.stride}),
          IntsAttr("pads", {pad, pad, pad, pad}), IntAttr("group", s.group)};
}

void BM_Conv(benchmark::State& state, ConvShape s) {
  KernelRun run("ai.onnx", "Conv", 11,
                {Random({1, s.c, s.hw, s.hw}, 1), Random({s.m, s.c / s.group, s.kernel, s.kernel}, 2),
                 Random({s.m}, 3)},
                ConvAttrs(s), Threads(state));
  Loop(state, run, ConvFlops(s), 0);
}

// Bytes of a quantized tensor (uint8, or int8 when is_signed), seeded.
Tensor RandomQ8(Shape shape, unsigned seed, bool is_signed) {
  Tensor t(is_signed ? DataType::kInt8 : DataType::kUInt8, std::move(shape));
  auto* p = static_cast<uint8_t*>(t.raw_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 13);
  return t;
}
Tensor ScalarQ(float v) { return Tensor::FromVector<float>({v}, {}); }

// QLinearConv with constant per-channel int8 weights (packed at creation),
// as a QDQ model's convolutions become: the int8 counterpart of BM_Conv.
void BM_QLinearConv(benchmark::State& state, ConvShape s) {
  std::vector<float> ws(static_cast<size_t>(s.m), 0.002f);
  KernelRun run("ai.onnx", "QLinearConv", 10,
                {RandomQ8({1, s.c, s.hw, s.hw}, 1, false), ScalarQ(0.02f), Tensor::FromVector<uint8_t>({128}, {}),
                 RandomQ8({s.m, s.c / s.group, s.kernel, s.kernel}, 2, true), Tensor::FromVector<float>(ws, {s.m}),
                 Tensor::FromVector<int8_t>(std::vector<int8_t>(static_cast<size_t>(s.m), 0), {s.m}), ScalarQ(0.05f),
                 Tensor::FromVector<uint8_t>({128}, {})},
                ConvAttrs(s), Threads(state), 1, {1, 2, 3, 4, 5, 6, 7});
  Loop(state, run, ConvFlops(s), 0);
}

// QLinearMatMul with a constant int8 weight: the int8 counterpart of BM_MatMul.
void BM_QLinearMatMul(benchmark::State& state, int64_t m, int64_t k, int64_t n) {
  KernelRun run("ai.onnx", "QLinearMatMul", 10,
                {RandomQ8({m, k}, 1, false), ScalarQ(0.02f), Tensor::FromVector<uint8_t>({128}, {}),
                 RandomQ8({k, n}, 2, true), ScalarQ(0.002f), Tensor::FromVector<int8_t>({0}, {}), ScalarQ(0.05f),
                 Tensor::FromVector<uint8_t>({128}, {})},
                {}, Threads(state), 1, {1, 2, 3, 4, 5, 6, 7});
  Loop(state, run, 2.0 * m * n * k, 0);
}

// The optimizer's Conv + bias + activation node.
void BM_FusedConv(benchmark::State& state, ConvShape s, const char* activation) {
  std::vector<Attribute> attrs = ConvAttrs(s);
  attrs.push_back(StringAttr("activation", activation));
  KernelRun run("ai.tessera", "FusedConv", 1,
                {Random({1, s.c, s.hw, s.hw}, 1), Random({s.m, s.c / s.group, s.kernel, s.kernel}, 2),
                 Random({s.m}, 3)},
                attrs, Threads(state));
  Loop(state, run, ConvFlops(s), 0);
}

// ---- Memory-bound kernels --------------------------------------------------------

void BM_Softmax(benchmark::State& state) {
  KernelRun run("ai.onnx", "Softmax", 13, {Random({12, 128, 128}, 1)}, {IntAttr("axis", -1)}, Threads(state));
  Loop(state, run, 0, 12 * 128 * 128);
}

void BM_LayerNorm(benchmark::State& state) {
  KernelRun run("ai.onnx", "LayerNormalization", 17, {Random({128, 768}, 1), Random({768}, 2), Random({768}, 3)},
                {IntAttr("axis", -1), FloatAttr("epsilon", 1e-5f)}, Threads(state), 1);
  Loop(state, run, 0, 128 * 768);
}

void BM_Gelu(benchmark::State& state, const char* approximate) {
  KernelRun run("ai.tessera", "Gelu", 1, {Random({128, 3072}, 1)}, {StringAttr("approximate", approximate)},
                Threads(state));
  Loop(state, run, 0, 128 * 3072);
}

void BM_FusedAttention(benchmark::State& state) {
  // bert_base self-attention: 12 heads, 128 tokens, head size 64.
  int64_t h = 12, s = 128, d = 64;
  KernelRun run("ai.tessera", "Attention", 1,
                {Random({1, h, s, d}, 1), Random({1, h, d, s}, 2), Random({1, h, s, d}, 3)},
                {FloatAttr("scale", 0.125f)}, Threads(state));
  Loop(state, run, 2.0 * h * s * s * d * 2, 0);
}

void BM_MaxPool(benchmark::State& state) {
  // resnet50 stem: 3x3 stride 2 over 64x112x112.
  KernelRun run("ai.onnx", "MaxPool", 12, {Random({1, 64, 112, 112}, 1)},
                {IntsAttr("kernel_shape", {3, 3}), IntsAttr("strides", {2, 2}), IntsAttr("pads", {1, 1, 1, 1})},
                Threads(state));
  Loop(state, run, 0, 64 * 56 * 56);
}

void BM_GlobalAveragePool(benchmark::State& state) {
  KernelRun run("ai.onnx", "GlobalAveragePool", 1, {Random({1, 1280, 7, 7}, 1)}, {}, Threads(state));
  Loop(state, run, 0, 1280 * 7 * 7);  // elements read: the output is tiny
}

void BM_ReduceMean(benchmark::State& state) {
  KernelRun run("ai.onnx", "ReduceMean", 13, {Random({1, 128, 768}, 1)},
                {IntsAttr("axes", {-1}), IntAttr("keepdims", 1)}, Threads(state));
  Loop(state, run, 0, 128 * 768);
}

void BM_AddBroadcast(benchmark::State& state, Shape a, Shape b) {
  int64_t n = 1;
  for (int64_t d : a) n *= d;
  KernelRun run("ai.onnx", "Add", 14, {Random(a, 1), Random(std::move(b), 2)}, {}, Threads(state));
  Loop(state, run, 0, static_cast<double>(n));
}

void BM_Unary(benchmark::State& state, const char* op, int64_t opset) {
  KernelRun run("ai.onnx", op, opset, {Random({1, 96, 112, 112}, 1)}, {}, Threads(state));
  Loop(state, run, 0, 96 * 112 * 112);
}

// lstm_2x512's first layer: 64 steps, batch 1, 256 inputs, hidden 512, with
// constant weights (the packed, fused recurrence).
void BM_Lstm(benchmark::State& state) {
  const int64_t seq = 64, in = 256, h = 512;
  KernelRun run("ai.onnx", "LSTM", 14,
                {Random({seq, 1, in}, 1), Random({1, 4 * h, in}, 2), Random({1, 4 * h, h}, 3), Random({1, 8 * h}, 4)},
                {IntAttr("hidden_size", h)}, Threads(state), 3, {1, 2, 3});
  Loop(state, run, 2.0 * static_cast<double>(seq * 4 * h * (in + h)), 0);
}

// The host matrix-vector step (squeeze-and-excitation layers) on a matrix
// of this many KiB, which sets the cache level it streams from (L2, L3,
// DRAM); set its bytes/s against bench/peak/stream_read.c's plain read.
void BM_MatVecStream(benchmark::State& state) {
  const int64_t k = 1024, rows = state.range(0) * 1024 / 4 / k;
  const Tensor w = Random({rows, k}, 1), x = Random({k}, 2);
  std::vector<float> y(static_cast<size_t>(rows));
  for (auto _ : state) {
    cpu::MatVecF32(w.data<float>(), x.data<float>(), rows, k, nullptr, y.data());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * rows * k * 4);
}

void ThreadArgs(benchmark::internal::Benchmark* b) { b->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime(); }

BENCHMARK_CAPTURE(BM_MatMul, 1x768x768, 1, 768, 768)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMul, 128x768x3072, 128, 768, 3072)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMul, 128x3072x768, 128, 3072, 768)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Gemm, 1x768x768, 1, 768, 768)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Gemm, 128x768x3072, 128, 768, 3072)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Gemm, 128x3072x768, 128, 3072, 768)->Apply(ThreadArgs);
BENCHMARK(BM_FusedMatMulGelu)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 1x4096x4096, 1, 4096, 4096)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 1x4096x4096_level4, 1, 4096, 4096, 4)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 1x1536x4096_level4, 1, 1536, 4096, 4)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 1x1536x4096, 1, 1536, 4096)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 16x1536x4096, 16, 1536, 4096)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 16x1536x4096_level4, 16, 1536, 4096, 4)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 16x4096x1536, 16, 4096, 1536)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 64x1536x4096, 64, 1536, 4096)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 64x1536x4096_level4, 64, 1536, 4096, 4)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_MatMulNBits, 256x1536x4096, 256, 1536, 4096)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_SgemmOwn, 128x768x3072, 128, 768, 3072, false);
BENCHMARK_CAPTURE(BM_SgemmPacked, 128x768x3072, 128, 768, 3072, false);
BENCHMARK_CAPTURE(BM_SgemmBlas, 128x768x3072, 128, 768, 3072, false);
BENCHMARK_CAPTURE(BM_SgemmOwn, 128x3072x768_tb, 128, 3072, 768, true);
BENCHMARK_CAPTURE(BM_SgemmPacked, 128x3072x768_tb, 128, 3072, 768, true);
BENCHMARK_CAPTURE(BM_SgemmBlas, 128x3072x768_tb, 128, 3072, 768, true);
BENCHMARK_CAPTURE(BM_SgemmOwn, 197x768x2304, 197, 768, 2304, false);
BENCHMARK_CAPTURE(BM_SgemmPacked, 197x768x2304, 197, 768, 2304, false);
BENCHMARK_CAPTURE(BM_SgemmBlas, 197x768x2304, 197, 768, 2304, false);
BENCHMARK_CAPTURE(BM_SgemmOwn, 16x768x768, 16, 768, 768, false);
BENCHMARK_CAPTURE(BM_SgemmPacked, 16x768x768, 16, 768, 768, false);
BENCHMARK_CAPTURE(BM_SgemmBlas, 16x768x768, 16, 768, 768, false);
BENCHMARK_CAPTURE(BM_SgemmPackedCold, 128x768x3072, 128, 768, 3072);
BENCHMARK_CAPTURE(BM_SgemmPackedCold, 128x3072x768, 128, 3072, 768);
BENCHMARK_CAPTURE(BM_SgemmPackedCold, 128x768x50257, 128, 768, 50257);  // GPT-2's tied LM head
BENCHMARK_CAPTURE(BM_SgemmOwn, 1x768x768, 1, 768, 768, false);
BENCHMARK_CAPTURE(BM_SgemmPacked, 1x768x768, 1, 768, 768, false);
BENCHMARK_CAPTURE(BM_SgemmBlas, 1x768x768, 1, 768, 768, false);
BENCHMARK_CAPTURE(BM_Int8Gemm, 128x768x3072, 128, 768, 3072);
BENCHMARK_CAPTURE(BM_Int8Gemm, 16x768x768, 16, 768, 768);
BENCHMARK_CAPTURE(BM_Int8Gemm, 1x768x768, 1, 768, 768);
// resnet50's 3x3 over 64 channels at 56x56, and its 1x1 64 -> 256.
BENCHMARK_CAPTURE(BM_Int8GemmPackedWeights, 64x576x3136, 64, 576, 3136);
BENCHMARK_CAPTURE(BM_Int8GemmPackedWeights, 256x64x3136, 256, 64, 3136);
BENCHMARK_CAPTURE(BM_Int8GemmPackedWeights, 512x4608x49, 512, 4608, 49);
// mobilenet_v2's first expansion, 16 -> 96 channels at 112x112.
BENCHMARK_CAPTURE(BM_Int8GemmPackedWeights, 96x16x12544, 96, 16, 12544);
// bert_base's FFN up-projection as the transposed product: W^T X^T.
BENCHMARK_CAPTURE(BM_Int8GemmPackedWeights, 3072x768x128, 3072, 768, 128);
BENCHMARK_CAPTURE(BM_Conv, 3x3_64ch_56, ConvShape{64, 64, 56, 3, 1, 1})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Conv, 1x1_256to64_56, ConvShape{256, 64, 56, 1, 1, 1})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_QLinearConv, 3x3_64ch_56, ConvShape{64, 64, 56, 3, 1, 1})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_QLinearConv, 1x1_256to64_56, ConvShape{256, 64, 56, 1, 1, 1})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_QLinearConv, 1x1_16to96_112, ConvShape{16, 96, 112, 1, 1, 1})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_QLinearConv, dw3x3_96ch_112_s1, ConvShape{96, 96, 112, 3, 1, 96})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_QLinearMatMul, 128x768x3072, 128, 768, 3072)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Conv, dw3x3_96ch_112_s1, ConvShape{96, 96, 112, 3, 1, 96})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Conv, dw3x3_96ch_112_s2, ConvShape{96, 96, 112, 3, 2, 96})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_FusedConv, 1x1_256to64_56_relu, ConvShape{256, 64, 56, 1, 1, 1}, "Relu")->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_FusedConv, dw3x3_96ch_112_silu, ConvShape{96, 96, 112, 3, 1, 96}, "Silu")->Apply(ThreadArgs);
BENCHMARK(BM_Softmax)->Apply(ThreadArgs);
BENCHMARK(BM_LayerNorm)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Gelu, erf, "none")->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Gelu, fast_tanh, "tanh")->Apply(ThreadArgs);
BENCHMARK(BM_FusedAttention)->Apply(ThreadArgs);
BENCHMARK(BM_MaxPool)->Apply(ThreadArgs);
BENCHMARK(BM_GlobalAveragePool)->Apply(ThreadArgs);
BENCHMARK(BM_ReduceMean)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_AddBroadcast, 128x768_plus_768, Shape{128, 768}, Shape{768})->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_AddBroadcast, 96x112x112_plus_96x1x1, Shape{1, 96, 112, 112}, Shape{1, 96, 1, 1})
    ->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Unary, Sigmoid, "Sigmoid", 13)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Unary, Swish, "Swish", 24)->Apply(ThreadArgs);
BENCHMARK_CAPTURE(BM_Unary, Erf, "Erf", 13)->Apply(ThreadArgs);
BENCHMARK(BM_Lstm)->Apply(ThreadArgs);
BENCHMARK(BM_MatVecStream)->ArgName("KiB")->Arg(256)->Arg(4096)->Arg(65536);

}  // namespace
}  // namespace tessera
