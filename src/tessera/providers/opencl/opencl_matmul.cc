// MatMul (numpy semantics: 1-D operands, broadcast batch dims) and Gemm on
// the GEMM launcher that Conv also uses (see opencl_gemm.h). It has two
// kernels: a local-memory tiled one for GPUs and a register-blocked one that
// streams rows of B for CPU devices (PoCL), where local memory is ordinary
// memory and the tiled kernel runs ~10x slower. TESSERA_OPENCL_GEMM=tiled or
// =rows overrides the choice (tests use it to cover both).
#include <cstdlib>
#include <cstring>
#include <limits>

#include "tessera/providers/common/shape_rules.h"
#include "tessera/providers/opencl/opencl_families.h"
#include "tessera/providers/opencl/opencl_gemm.h"

namespace tessera::opencl {

// Each 64-item work group computes a 32x32 block of one batch's Y, staging
// 32x16 slices of A and 16x32 slices of B in local memory; every item owns
// 8 rows x 2 columns of the block. Devices whose work groups are not 64 wide
// take the plain path (same results, no local memory).
const char* const kMatMulSource = R"CLC(
typedef struct {
  int m, n, k;
  int sam, sak;
  int sbk, sbn;
  int scm, scn;
  int has_c;
  int c_mod, c_batch;
  int batches;
  int a_base, b_base;
  int y_base;
  float alpha, beta;
} ts_gemm;

#define TS_TM 32
#define TS_TN 32
#define TS_TK 16

inline void ts_gemm_store(__global float* y, __global const float* c, const ts_gemm* p, int bi, int r, int col,
                          float acc) {
  if (r >= p->m || col >= p->n) return;
  float v = p->alpha * acc;
  if (p->has_c) v += p->beta * c[(bi % p->c_mod) * p->c_batch + r * p->scm + col * p->scn];
  y[r * p->n + col] = v;
}

__kernel void ts_gemm_f32(__global const float* a, __global const float* b, __global const float* c,
                          __global float* y, ts_gemm p, ts_bcast batch) {
  __local float ta[TS_TK][TS_TM];
  __local float tb[TS_TK][TS_TN];
  int tiles_m = (p.m + TS_TM - 1) / TS_TM, tiles_n = (p.n + TS_TN - 1) / TS_TN;
  int g = get_group_id(0);
  int bi = g / (tiles_m * tiles_n);
  if (bi >= p.batches) return; /* whole group leaves together */
  int t = g - bi * tiles_m * tiles_n;
  int m0 = (t / tiles_n) * TS_TM, n0 = (t % tiles_n) * TS_TN;
  int2 off = ts_bcast_offsets(&batch, bi);
  __global const float* A = a + p.a_base + off.x;
  __global const float* B = b + p.b_base + off.y;
  __global float* Y = y + p.y_base + bi * p.m * p.n;
  int lid = get_local_id(0);
  int ls = get_local_size(0);
  if (ls != 64) {
    for (int e = lid; e < TS_TM * TS_TN; e += ls) {
      int r = m0 + e / TS_TN, col = n0 + e % TS_TN;
      if (r >= p.m || col >= p.n) continue;
      float s = 0.0f;
      for (int kk = 0; kk < p.k; ++kk) s += A[r * p.sam + kk * p.sak] * B[kk * p.sbk + col * p.sbn];
      ts_gemm_store(Y, c, &p, bi, r, col, s);
    }
    return;
  }
  int tx = lid % 16, ty = lid / 16;
  float acc0[8], acc1[8];
  for (int j = 0; j < 8; ++j) { acc0[j] = 0.0f; acc1[j] = 0.0f; }
  for (int k0 = 0; k0 < p.k; k0 += TS_TK) {
    for (int j = 0; j < 8; ++j) {
      int e = lid + 64 * j;
      int kk = e % TS_TK, mm = e / TS_TK;
      int gm = m0 + mm, gk = k0 + kk;
      ta[kk][mm] = (gm < p.m && gk < p.k) ? A[gm * p.sam + gk * p.sak] : 0.0f;
      int nn = e % TS_TN, kb = e / TS_TN;
      int gn = n0 + nn, gkb = k0 + kb;
      tb[kb][nn] = (gn < p.n && gkb < p.k) ? B[gkb * p.sbk + gn * p.sbn] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int kk = 0; kk < TS_TK; ++kk) {
      float b0 = tb[kk][tx], b1 = tb[kk][tx + 16];
      for (int j = 0; j < 8; ++j) {
        float av = ta[kk][ty + 4 * j];
        acc0[j] += av * b0;
        acc1[j] += av * b1;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int j = 0; j < 8; ++j) {
    ts_gemm_store(Y, c, &p, bi, m0 + ty + 4 * j, n0 + tx, acc0[j]);
    ts_gemm_store(Y, c, &p, bi, m0 + ty + 4 * j, n0 + tx + 16, acc1[j]);
  }
}

/* For B with contiguous rows (sbn == 1): each work item owns an 8x16 block
   of one batch's Y, held in float16 accumulators while it streams B's rows.
   CPU devices run this well without local memory. */
#define TS_ROWS_FMA(i) acc##i += A[(r0 + i) * p.sam + ak] * bv;
#define TS_ROWS_STORE(i) vstore16(acc##i, 0, row); \
  for (int j = 0; j < 16; ++j) ts_gemm_store(Y, c, &p, bi, r0 + i, c0 + j, row[j]);
__kernel void ts_gemm_rows_f32(__global const float* a, __global const float* b, __global const float* c,
                               __global float* y, ts_gemm p, ts_bcast batch) {
  int blocks_n = (p.n + 15) / 16, blocks_m = (p.m + 7) / 8;
  int gid = get_global_id(0);
  int bi = gid / (blocks_m * blocks_n);
  if (bi >= p.batches) return;
  int t = gid - bi * blocks_m * blocks_n;
  int r0 = (t / blocks_n) * 8, c0 = (t % blocks_n) * 16;
  int2 off = ts_bcast_offsets(&batch, bi);
  __global const float* A = a + p.a_base + off.x;
  __global const float* B = b + p.b_base + off.y;
  __global float* Y = y + p.y_base + bi * p.m * p.n;
  if (r0 + 8 <= p.m && c0 + 16 <= p.n) {
    float16 acc0 = (float16)(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0,
            acc7 = acc0;
    __global const float* bp = B + c0;
    for (int k = 0; k < p.k; ++k) {
      float16 bv = vload16(0, bp + k * p.sbk);
      int ak = k * p.sak;
      TS_ROWS_FMA(0) TS_ROWS_FMA(1) TS_ROWS_FMA(2) TS_ROWS_FMA(3)
      TS_ROWS_FMA(4) TS_ROWS_FMA(5) TS_ROWS_FMA(6) TS_ROWS_FMA(7)
    }
    float row[16];
    TS_ROWS_STORE(0) TS_ROWS_STORE(1) TS_ROWS_STORE(2) TS_ROWS_STORE(3)
    TS_ROWS_STORE(4) TS_ROWS_STORE(5) TS_ROWS_STORE(6) TS_ROWS_STORE(7)
    return;
  }
  for (int i = r0; i < r0 + 8 && i < p.m; ++i)
    for (int j = c0; j < c0 + 16 && j < p.n; ++j) {
      float s = 0.0f;
      for (int k = 0; k < p.k; ++k) s += A[i * p.sam + k * p.sak] * B[k * p.sbk + j];
      ts_gemm_store(Y, c, &p, bi, i, j, s);
    }
}

/* y (cols x rows) = x (rows x cols)^T, for Gemm's transB. */
__kernel void ts_transpose2d_f32(__global const float* x, __global float* y, int rows, int cols) {
  int i = get_global_id(0);
  if (i >= rows * cols) return;
  int r = i % rows, c = i / rows;
  y[i] = x[r * cols + c];
}
)CLC";

namespace {

bool DeviceIsGpu(cl_mem any) {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_device_type type = 0;
  if (clGetMemObjectInfo(any, CL_MEM_CONTEXT, sizeof(context), &context, nullptr) != CL_SUCCESS ||
      clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof(device), &device, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof(type), &type, nullptr) != CL_SUCCESS)
    return false;
  return (type & CL_DEVICE_TYPE_GPU) != 0;
}

// Whether GEMMs use the tiled kernel; `any` is a buffer of the runtime's context.
bool UseTiledGemm(cl_mem any) {
  if (const char* e = std::getenv("TESSERA_OPENCL_GEMM")) {
    if (std::strcmp(e, "tiled") == 0) return true;
    if (std::strcmp(e, "rows") == 0) return false;
  }
  static const bool gpu = DeviceIsGpu(any);  // one device per process
  return gpu;
}

}  // namespace

void LaunchGemm(Runtime& rt, cl_mem a, cl_mem b, cl_mem c, cl_mem y, const GemmParams& params,
                const BroadcastInfo& batch) {
  if (params.m == 0 || params.n == 0 || params.batches == 0) return;
  int64_t tiles = int64_t{(params.m + 31) / 32} * ((params.n + 31) / 32) * params.batches;
  if (tiles * 64 >= std::numeric_limits<int32_t>::max() ||
      int64_t{params.m} * params.n * params.batches + params.y_base >= std::numeric_limits<int32_t>::max())
    TS_THROW(kRuntimeError, "OpenCL GEMM of ", params.batches, " x ", params.m, "x", params.n,
             " exceeds 32-bit indexing");
  if (params.sbn == 1 && !UseTiledGemm(y)) {
    int64_t blocks = int64_t{(params.m + 7) / 8} * ((params.n + 15) / 16) * params.batches;
    if (blocks < std::numeric_limits<int32_t>::max()) {
      rt.Launch1D("ts_gemm_rows_f32", {a, b, c ? c : y, y, KernelArg::Value(params), KernelArg::Value(batch)},
                  static_cast<size_t>(blocks));
      return;
    }
  }
  rt.Launch1D("ts_gemm_f32", {a, b, c ? c : y, y, KernelArg::Value(params), KernelArg::Value(batch)},
              static_cast<size_t>(tiles * 64));
}

namespace {

class MatMul final : public OpenClKernel {
 public:
  explicit MatMul(const KernelInfo&) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckIndexable(ctx, a);
    CheckIndexable(ctx, b);
    if (a.rank() == 0 || b.rank() == 0) ctx.Fail("MatMul operands must have rank >= 1; got ", a.Describe(), " and ", b.Describe());
    Shape sa = a.shape(), sb = b.shape();
    bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
    if (a_vec) sa.insert(sa.begin(), 1);
    if (b_vec) sb.push_back(1);
    int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
    if (sb[sb.size() - 2] != k) ctx.Fail("inner dimensions differ: ", a.Describe(), " x ", b.Describe());
    Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2), batch_shape;
    BroadcastInfo batch = MakeBroadcast(ctx, ba, bb, &batch_shape);
    for (int d = 0; d < batch.rank; ++d) {
      batch.sa[d] *= I32(m * k);
      batch.sb[d] *= I32(k * n);
    }
    Shape out = batch_shape;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, out);
    CheckIndexable(ctx, y);
    GemmParams p;
    p.m = I32(m), p.n = I32(n), p.k = I32(k);
    p.sam = I32(k), p.sak = 1, p.sbk = I32(n), p.sbn = 1;
    p.batches = batch.n;
    LaunchGemm(rt(), MemOf(a), MemOf(b), nullptr, MemOf(y), p, batch);
  }
};

class Gemm final : public OpenClKernel {
 public:
  explicit Gemm(const KernelInfo& info)
      : trans_a_(info.attr_int("transA", 0) != 0),
        trans_b_(info.attr_int("transB", 0) != 0),
        alpha_(info.attr_float("alpha", 1.0f)),
        beta_(info.attr_float("beta", 1.0f)) {}
  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    CheckIndexable(ctx, a);
    CheckIndexable(ctx, b);
    const cpu::GemmDims dims = cpu::ResolveGemm(ctx, a.shape(), b.shape(), trans_a_, trans_b_, a.Describe(), b.Describe());
    const int64_t m = dims.m, k = dims.k, n = dims.n;
    GemmParams p;
    p.m = I32(m), p.n = I32(n), p.k = I32(k);
    if (trans_a_) p.sak = I32(m), p.sam = 1;
    else p.sam = I32(k), p.sak = 1;
    // For the row-streaming kernel a transposed B is copied to (K, N) first;
    // the tiled kernel reads it in place.
    Tensor bt = b;
    if (trans_b_ && k * n > 0 && !UseTiledGemm(MemOf(b))) {
      bt = NewDeviceTensor(runtime(), DataType::kFloat, {k, n});
      rt().Launch1D("ts_transpose2d_f32", {MemOf(b), MemOf(bt), KernelArg::Value(I32(n)), KernelArg::Value(I32(k))},
                    static_cast<size_t>(k * n));
    }
    if (trans_b_ && bt.buffer() == b.buffer()) p.sbk = 1, p.sbn = I32(k);
    else p.sbk = I32(n), p.sbn = 1;
    p.alpha = alpha_, p.beta = beta_;
    cl_mem c = nullptr;
    if (ctx.has_input(2)) {
      const Tensor& ct = ctx.input(2);
      const cpu::GemmBiasStrides cs = cpu::ResolveGemmBias(ctx, ct.shape(), m, n);
      p.scm = I32(cs.m);
      p.scn = I32(cs.n);
      p.has_c = 1;
      c = MemOf(ct);
    }
    Tensor y = NewOutput(ctx, 0, DataType::kFloat, {m, n});
    CheckIndexable(ctx, y);
    LaunchGemm(rt(), MemOf(a), MemOf(bt), c, MemOf(y), p, BroadcastInfo{});
  }

 private:
  bool trans_a_, trans_b_;
  float alpha_, beta_;
};

}  // namespace

std::vector<OpenClRow> MatMulRows() {
  std::vector<OpenClRow> rows;
  rows.push_back(OpenClRow{KernelRow{kOnnxDomain, "MatMul", 1, kMaxOnnxOpset, {DataType::kFloat}, Make<MatMul>()}, {},
                           {}, [](const NodeQuery& q) { return FloatInputs(q); }});
  // Opset 7 replaced the `broadcast` attribute with unidirectional broadcasting of C.
  rows.push_back(OpenClRow{KernelRow{kOnnxDomain, "Gemm", 7, kMaxOnnxOpset, {DataType::kFloat}, Make<Gemm>()}, {}, {},
                           [](const NodeQuery& q) { return FloatInputs(q); }});
  return rows;
}

}  // namespace tessera::opencl
