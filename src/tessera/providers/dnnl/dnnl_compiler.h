// Turns one partition (a run of nodes the oneDNN EP claimed) into a plan: a
// list of oneDNN primitives over numbered values. Values produced and used
// inside the partition keep whatever layout oneDNN picks for them (blocked
// nChw16c, say); only the partition's inputs and outputs are plain, so
// layout changes (reorders) happen at the partition's edges, or where an op
// needs a plain layout (a Reshape, say). Every reorder is a step of its own.
#pragma once

#include <dnnl.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/partition/execution_provider.h"

namespace tessera::dnnl_ep {

using Dims = dnnl::memory::dims;
using Desc = dnnl::memory::desc;

// Where a value's bytes live during a run.
struct PlanBuffer {
  enum class Kind { kArena, kInput, kOutput, kConstant };
  Kind kind = Kind::kArena;
  int index = 0;       // partition input/output index, or constant index
  size_t bytes = 0;
  size_t offset = 0;   // kArena: offset in the run's arena
  int first_step = -1, last_step = -1;  // kArena: lifetime in steps
};

struct PlanValue {
  Desc desc;
  int buffer = 0;
};

// Splits the for loop that follows over oneDNN's OpenMP team (its size set
// for the run) when `cond` holds. Under TSan the loop runs on the calling
// thread instead: libgomp is not instrumented, so TSan cannot see the
// ordering of an OpenMP fork and reports everything the loop body reads.
#define TESSERA_PRAGMA(x) _Pragma(#x)
#if defined(TESSERA_TSAN)
#define TESSERA_HOST_PARALLEL_FOR(cond)
#else
#define TESSERA_HOST_PARALLEL_FOR(cond) TESSERA_PRAGMA(omp parallel for schedule(static) if (cond))
#endif

// Floats per iteration of the elementwise host steps' parallel loops. Steps
// that reread what another wrote split alike, so that at 2 threads each
// thread rereads lines it wrote itself: efficientnet_b0's in-place channel
// scaling ran 2.5x slower at 2 threads than at 1 while a oneDNN pool split
// another way read those lines in between (leaving them shared by both
// cores, so each write paid an invalidation).
constexpr int64_t kHostChunk = 16384;

// Calls body(begin, end) for each kHostChunk-float range of [0, n), split
// over oneDNN's OpenMP team: the split every elementwise host step shares.
template <class Body>
void ForEachHostChunk(int64_t n, const Body& body) {
  const int64_t chunks = (n + kHostChunk - 1) / kHostChunk;
  TESSERA_HOST_PARALLEL_FOR(chunks > 1)
  for (int64_t k = 0; k < chunks; ++k) body(k * kHostChunk, std::min(n, (k + 1) * kHostChunk));
}

// A step computed by our own code instead of a primitive (on CPU memory).
using HostStep = std::function<void(const std::unordered_map<int, dnnl::memory>& args)>;

// A host step applying `kernel` (y = f(x) over n floats; x and y may be
// the same) to every stored value of DNNL_ARG_SRC into DNNL_ARG_DST, padding
// included (so f(0) must be 0), split over oneDNN's OpenMP team.
HostStep ElementwiseHostStep(void (*kernel)(const float* x, float* y, int64_t n));

struct PlanStep {
  dnnl::primitive primitive;  // empty for a host step
  HostStep host;
  std::vector<std::pair<int, int>> args;  // DNNL_ARG_* -> value
  std::string label;                      // for logs and errors: the node, or "reorder ..."
  std::string implementation;             // oneDNN's kernel ("brgconv:avx512_core"), or "host"
  Desc scratchpad;                        // zero when the primitive needs none
  int64_t flops = -1;                     // per run (PrimitiveFlops, or the host step's count); -1 = not counted
};

// Twice the multiply-adds of a convolution, deconvolution, matrix product or
// inner product primitive, from its descriptors; -1 for any other kind
// (their cost is memory traffic, not arithmetic). The direct method's count
// whatever algorithm oneDNN picked, so a Winograd convolution shows as a
// higher rate, as it is usually quoted.
int64_t PrimitiveFlops(const dnnl::primitive_desc_base& pd);

// A constant whose reorder into its kernel's layout waits for the first
// run. Reordering every weight at compile time held each twice until the
// whole partition was compiled (bert_base as one partition: peak 764 MB);
// done one by one at the first run, each original is freed right after
// its copy is made (when the runtime has let go of it, see
// OpKernel::ReadsInput).
struct PendingConstant {
  Tensor host;
  Desc host_desc, want;
  int index = 0;  // into Plan::constants (allocated, not yet filled)
};

// An executable partition: what CompilePartition produces.
struct Plan {
  dnnl::engine engine;
  std::vector<PlanValue> values;
  std::vector<PlanBuffer> buffers;
  std::vector<PlanStep> steps;
  std::vector<std::shared_ptr<void>> constants;  // weights in their chosen layouts
  std::vector<PendingConstant> pending_constants;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
  std::vector<bool> input_read;  // false for shape/axes operands the plan never reads
  std::vector<int> output_values;  // per partition output (plain)
  size_t arena_bytes = 0;
  size_t scratchpad_bytes = 0;
  int num_threads = 1;
  std::vector<std::string> reorders;  // "value: from -> to", for the compile log
};

// Builds a Plan. Lowerings (one per op family, dnnl_*.cc) call the helpers
// below for the node they are given.
class Compiler {
 public:
  Compiler(const PartitionDef& def, dnnl::engine engine);
  Plan Compile();

  // ---- what lowerings read -------------------------------------------------
  int64_t OpsetOf(const Node& node) const;
  const Tensor* ConstantOf(const std::string& name) const;
  std::vector<int64_t> ShapeOf(const std::string& name) const;  // static, or throws
  // Whether `name` can be read now (a partition input, a constant, or a value
  // defined by an earlier step).
  bool Available(const std::string& name) const;
  // The one partition node reading `name`, when `name` is not also read
  // outside the partition; else null. Used to fuse a consumer into its producer.
  const Node* SoleConsumer(const std::string& name) const;
  // The partition nodes reading `name` (null when it is a partition output).
  std::vector<const Node*> Consumers(const std::string& name) const;
  // Marks a consumer as computed by the node being lowered (a post-op).
  void Absorb(const Node& node);

  // ---- values --------------------------------------------------------------
  int Use(const std::string& name);  // the value the node reads as `name`
  // A copy: the value table grows as lowering goes on, so references into
  // it would dangle.
  Desc DescOf(int value) const { return values_[static_cast<size_t>(value)].desc; }
  // `value` in layout `want`: itself, or a new value filled by a reorder step.
  int As(int value, const Desc& want);
  // `value` in the plain (row-major) layout of its dims.
  int AsPlain(int value);
  // A new value `name` with its own buffer (written by the next Emit).
  int Define(const std::string& name, const Desc& desc);
  // A new value `name` that views `of`'s buffer with another descriptor
  // (same bytes): Reshape/Flatten of a plain value, or an in-place result.
  int Alias(const std::string& name, int of, const Desc& desc);
  // A scratch value with its own buffer, not visible by name.
  int Temp(const Desc& desc);
  // A constant converted once, now, into layout `want`.
  int Constant(const Tensor& host, const Desc& host_desc, const Desc& want);
  // Whether `name`'s buffer may be overwritten by the node being lowered:
  // an arena buffer that nothing reads after this node, and that no other
  // live value views. Elementwise steps may then write in place; a step that
  // reads neighbours (a convolution) must also check ReadByCurrent.
  bool DiesHere(const std::string& name) const;
  bool ReadByCurrent(const std::string& name) const;

  // Appends a step running `primitive` (made from `pd`) on `args`.
  void Emit(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, std::vector<std::pair<int, int>> args,
            std::string label);
  // Appends a step running `host` on `args` (planned like any other step);
  // flops: its multiply-adds times two, for profiles, or -1 when it does
  // none worth rating (elementwise passes).
  void EmitHost(HostStep host, std::vector<std::pair<int, int>> args, std::string label, int64_t flops = -1);

  const dnnl::engine& engine() const { return engine_; }
  // SessionOptions::winograd_convolutions.
  bool WinogradAllowed() const { return def_.winograd; }
  // Attributes every primitive is created with (user-managed scratchpad).
  dnnl::primitive_attr Attr() const;
  [[noreturn]] void Fail(const Node& node, const std::string& why) const;

 private:
  int NewBuffer(PlanBuffer::Kind kind, int index, size_t bytes);
  int NewValue(const Desc& desc, int buffer);
  void PlanArena();

  const PartitionDef& def_;
  dnnl::engine engine_;
  Plan plan_;
  std::vector<PlanValue>& values_ = plan_.values;
  std::unordered_map<std::string, int> named_;  // graph value -> plan value
  std::unordered_map<std::string, int> reads_left_;  // partition reads not yet lowered
  std::unordered_set<std::string> outputs_;
  std::unordered_set<const Node*> absorbed_;
  std::unordered_map<std::string, std::vector<const Node*>> consumers_;
  std::vector<std::vector<std::string>> buffer_names_;  // named values per buffer
  std::unordered_map<int, std::vector<std::pair<Desc, int>>> converted_;  // value -> its reordered copies
  const Node* current_ = nullptr;
};

// A plain row-major descriptor of float dims.
Desc PlainDesc(const Dims& dims);
Desc AnyDesc(const Dims& dims);
// A dense, unblocked descriptor of `dims` whose axes are laid out in the
// order of `like`'s strides (channels-last stays channels-last); plain when
// `like` is blocked.
Desc DenseLike(const Desc& like, const Dims& dims);
Dims ToDims(const std::vector<int64_t>& shape);
// Whether `n` is the ai.onnx op `op` (the domain written out or left empty).
inline bool IsOnnxOp(const Node& n, const char* op) {
  return n.op_type == op && (n.domain.empty() || n.domain == "ai.onnx");
}

// Whether `d` is a 4-D dense N,H,W,C layout (no blocking, padding or offset).
bool IsChannelsLastDense(const Desc& d);

}  // namespace tessera::dnnl_ep
