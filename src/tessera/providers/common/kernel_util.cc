#include "tessera/providers/common/kernel_util.h"

#include "tessera/ops/kernel_table.h"

namespace tessera::cpu {

std::vector<int64_t> StridesOf(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) strides[i - 1] = strides[i] * s[i];
  return strides;
}

Shape BroadcastShapes(const std::vector<Shape>& shapes, const KernelContext& ctx) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (const auto& s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i];
      int64_t& o = out[off + i];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (const auto& x : shapes) all += (all.empty() ? "" : " and ") + ShapeToString(x);
      ctx.Fail("shapes ", all, " cannot be broadcast together");
    }
  }
  return out;
}

BroadcastIndexer::BroadcastIndexer(const Shape& out_shape, const std::vector<Shape>& in_shapes)
    : out_shape_(out_shape) {
  for (int64_t d : out_shape_) out_size_ *= d;
  size_t rank = out_shape_.size();
  for (const auto& s : in_shapes) {
    std::vector<int64_t> strides(rank, 0);
    std::vector<int64_t> own = StridesOf(s);
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) strides[off + i] = s[i] == 1 ? 0 : own[i];
    in_strides_.push_back(std::move(strides));
  }
}

std::vector<int64_t> ReadInts(const Tensor& t) { return t.ToInt64Vector(); }

std::vector<DataType> MovementTypes() {
  return types::Join(types::Numeric(), {DataType::kBool, DataType::kString, DataType::kComplex64,
                                        DataType::kComplex128});
}

// Copies n elements from src[src_off..] to dst[dst_off..] (same dtype).
void CopyElements(const Tensor& src, int64_t src_off, Tensor& dst, int64_t dst_off, int64_t n) {
  if (n <= 0) return;
  if (src.dtype() == DataType::kString) {
    const std::string* s = src.data<std::string>() + src_off;
    std::string* d = dst.data<std::string>() + dst_off;
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  const size_t es = ElementSize(src);
  std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<size_t>(dst_off) * es,
              static_cast<const char*>(src.raw_data()) + static_cast<size_t>(src_off) * es,
              static_cast<size_t>(n) * es);
}


std::optional<ConstantWithZeroPoint> ConstantWithZeroPointOf(const KernelInfo& info, size_t input, size_t zp_input) {
  const Tensor* value = info.constant_input(input);
  if (value == nullptr) return std::nullopt;
  const auto& inputs = info.node().inputs;
  if (inputs.size() <= zp_input || inputs[zp_input].empty()) return ConstantWithZeroPoint{value, nullptr};
  const Tensor* zp = info.constant_input(zp_input);
  if (zp == nullptr) return std::nullopt;
  return ConstantWithZeroPoint{value, zp};
}

}  // namespace tessera::cpu
