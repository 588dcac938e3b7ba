#include "tessera/providers/cpu/qlinear_util.h"

#include "tessera/base/thread_pool.h"
#include "tessera/providers/cpu/byte_lookup.h"

namespace tessera::cpu {

namespace {

// The one value of a scale or zero-point tensor, or the reason it is not one.
const char* CheckScale(const Tensor& s) {
  if (s.dtype() != DataType::kFloat) return "must be a float tensor";
  if (s.numel() != 1) return "must hold one value (per-tensor quantization)";
  return nullptr;
}

int32_t ZeroValue(const Tensor& z) {
  return z.dtype() == DataType::kInt8 ? z.data<int8_t>()[0] : z.data<uint8_t>()[0];
}

}  // namespace

QuantParams ReadQuantParams(const KernelContext& ctx, size_t scale_input, size_t zero_input, DataType type,
                            const char* what) {
  const Tensor& s = ctx.input(scale_input);
  if (const char* why = CheckScale(s)) ctx.Fail(what, " scale ", why, ", got ", s.Describe());
  QuantParams p;
  p.scale = s.data<float>()[0];
  if (ctx.has_input(zero_input)) {
    const Tensor& z = ctx.input(zero_input);
    if (z.dtype() != type)
      ctx.Fail(what, " zero point has element type ", DataTypeName(z.dtype()), ", expected ", DataTypeName(type));
    if (z.numel() != 1) ctx.Fail(what, " zero point must hold one value (per-tensor quantization), got ", z.Describe());
    p.zero = ZeroValue(z);
  }
  return p;
}

std::optional<QuantParams> ConstantQuantParams(const KernelInfo& info, size_t scale_input, size_t zero_input) {
  const Tensor* s = info.constant_input(scale_input);
  if (s == nullptr || CheckScale(*s)) return std::nullopt;
  QuantParams p;
  p.scale = s->data<float>()[0];
  if (info.has_input(zero_input)) {
    const Tensor* z = info.constant_input(zero_input);
    if (z == nullptr || !IsQuant8(z->dtype()) || z->numel() != 1) return std::nullopt;
    p.zero = ZeroValue(*z);
  }
  return p;
}

void ApplyByteTable(const ByteTable& table, const uint8_t* x, int64_t n, uint8_t* y, ThreadPool* pool) {
  ParallelFor(pool, n, 1 << 16, [&](int64_t b, int64_t e) { LookupBytes(table.data(), x + b, e - b, y + b); });
}

}  // namespace tessera::cpu
