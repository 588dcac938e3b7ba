// com.microsoft QLinearAdd and QLinearMul: 8-bit operands with per-tensor
// scales and zero points, numpy broadcasting, 8-bit result at C's
// parameters. Rows run on simd_qlinear.h in float; the result is within one
// output step of dequantize -> Add/Mul -> quantize (the folded scales round
// differently only where the float result lies next to a half step).
#include <algorithm>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/qlinear_util.h"
#include "tessera/providers/cpu/simd_qlinear.h"

namespace tessera::cpu {
namespace {

// The broadcast as few dims as possible: dims of extent 1 dropped, and
// neighbours merged where each operand is broadcast along both or along
// neither (a [N, C, H, W] + [1, C, 1, 1] becomes [N, C, H*W] against
// [0, 1, 0] strides), so the innermost run is as long as it can be.
struct BroadcastPlan {
  Shape out;                   // merged output dims (at least one)
  std::vector<int64_t> sa, sb;  // per merged dim: the operand's stride, 0 where it is broadcast
};

BroadcastPlan PlanBroadcast(const Shape& a, const Shape& b, const Shape& out) {
  const size_t r = out.size();
  auto dim = [&](const Shape& s, size_t d) { return d + s.size() >= r ? s[d + s.size() - r] : int64_t{1}; };
  std::vector<int64_t> ext;
  std::vector<bool> ba, bb;  // broadcast along the merged dim
  for (size_t d = 0; d < r; ++d) {
    if (out[d] == 1) continue;
    const bool xa = dim(a, d) == 1, xb = dim(b, d) == 1;
    if (!ext.empty() && ba.back() == xa && bb.back() == xb) {
      ext.back() *= out[d];
    } else {
      ext.push_back(out[d]);
      ba.push_back(xa);
      bb.push_back(xb);
    }
  }
  BroadcastPlan p;
  if (ext.empty()) {  // every dim is 1: one element
    p.out = {1};
    p.sa = {0};
    p.sb = {0};
    return p;
  }
  p.out = ext;
  p.sa.resize(ext.size());
  p.sb.resize(ext.size());
  int64_t na = 1, nb = 1;
  for (size_t d = ext.size(); d-- > 0;) {
    p.sa[d] = ba[d] ? 0 : na;
    p.sb[d] = bb[d] ? 0 : nb;
    if (!ba[d]) na *= ext[d];
    if (!bb[d]) nb *= ext[d];
  }
  return p;
}

template <bool kMul>
class QLinearBinary final : public OpKernel {
 public:
  explicit QLinearBinary(const KernelInfo& info) {
    if (info.num_inputs() < 7) info.Fail("expects 7 or 8 inputs (A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale[, C_zero_point]), got ", info.num_inputs());
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    const DataType t = a.dtype();
    if (!IsQuant8(t)) ctx.Fail("A has element type ", DataTypeName(t), ", expected int8 or uint8");
    if (b.dtype() != t) ctx.Fail("B has element type ", DataTypeName(b.dtype()), ", A has ", DataTypeName(t));
    const QuantParams pa = ReadQuantParams(ctx, 1, 2, t, "A"), pb = ReadQuantParams(ctx, 4, 5, t, "B"),
                      pc = ReadQuantParams(ctx, 6, 7, t, "C");
    QLinearBinaryRow row = QLinearMulRowParams(pa, pb, pc);
    if constexpr (!kMul) {
      row.ka = static_cast<float>(static_cast<double>(pa.scale) / pc.scale);
      row.kb = static_cast<float>(static_cast<double>(pb.scale) / pc.scale);
    }
    const Shape out_shape = BroadcastShapes({a.shape(), b.shape()}, ctx);
    Tensor& c = ctx.allocate_output(0, t, out_shape);
    const int64_t n = c.numel();
    if (n == 0) return;
    const bool is_signed = t == DataType::kInt8;
    const auto* ad = static_cast<const uint8_t*>(a.raw_data());
    const auto* bd = static_cast<const uint8_t*>(b.raw_data());
    auto* cd = static_cast<uint8_t*>(c.raw_data());
    auto run = [&](const uint8_t* x, bool xs, const uint8_t* y, bool ys, int64_t len, uint8_t* z) {
      if constexpr (kMul) QLinearMulRow(x, xs, y, ys, len, row, is_signed, z);
      else QLinearAddRow(x, xs, y, ys, len, row, is_signed, z);
    };
    const BroadcastPlan p = PlanBroadcast(a.shape(), b.shape(), out_shape);
    const size_t last = p.out.size() - 1;
    const int64_t inner = p.out[last], outer = n / inner;
    if (outer == 1) {  // same shapes, or one operand a single value: one long row, in chunks
      ParallelFor(ctx.thread_pool(), inner, 1 << 14, [&](int64_t lo, int64_t hi) {
        run(ad + (p.sa[last] ? lo : 0), p.sa[last] == 0, bd + (p.sb[last] ? lo : 0), p.sb[last] == 0, hi - lo,
            cd + lo);
      });
      return;
    }
    ParallelFor(ctx.thread_pool(), outer, std::max<int64_t>(1, (1 << 14) / inner), [&](int64_t lo, int64_t hi) {
      for (int64_t o = lo; o < hi; ++o) {
        int64_t rem = o, oa = 0, ob = 0;
        for (size_t d = last; d-- > 0;) {
          const int64_t i = rem % p.out[d];
          rem /= p.out[d];
          oa += i * p.sa[d];
          ob += i * p.sb[d];
        }
        run(ad + oa, p.sa[last] == 0, bd + ob, p.sb[last] == 0, inner, cd + o * inner);
      }
    });
  }
};

}  // namespace

std::vector<KernelRow> QLinearBinaryKernels() {
  const std::vector<DataType> q8 = {DataType::kInt8, DataType::kUInt8};
  return {
      {kMicrosoftDomain, "QLinearAdd", 1, 1, q8, Make<QLinearBinary<false>>()},
      {kMicrosoftDomain, "QLinearMul", 1, 1, q8, Make<QLinearBinary<true>>()},
  };
}

}  // namespace tessera::cpu
