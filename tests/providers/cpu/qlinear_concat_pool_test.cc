// com.microsoft QLinearConcat (copied inputs and requantized ones, exact)
// and QLinearGlobalAveragePool / QLinearAveragePool (NCHW and NHWC, pads,
// strides, ceil_mode, count_include_pad), within one step of dequantize ->
// float op -> quantize.
#include <gtest/gtest.h>

#include "providers/cpu/qlinear_test_util.h"

namespace tessera {
namespace {

using namespace test;
using namespace test::qlinear;

TEST(QLinearConcat, CopiesInputsAtTheOutputsParametersAndRequantizesTheRest) {
  for (DataType t : {DataType::kUInt8, DataType::kInt8})
    for (bool constant : {true, false}) {
      SCOPED_TRACE(std::string(DataTypeName(t)) + (constant ? " constant" : " fed"));
      const bool sg = t == DataType::kInt8;
      const float ys = 0.05f;
      const int yz = sg ? -3 : 128;
      // Input 0 at Y's parameters, 1 wider (saturates), 2 narrower.
      const std::vector<Shape> shapes = {{2, 3, 4}, {2, 1, 4}, {2, 5, 4}};
      const std::vector<float> scales = {ys, 0.2f, 0.01f};
      const std::vector<int> zeros = {yz, sg ? 0 : 100, sg ? 127 : 0};
      std::vector<Operand> in = {{"ys", ScaleT(ys), constant}, {"yz", ZeroT(t, yz), constant}};
      std::vector<Tensor> xs;
      for (size_t k = 0; k < 3; ++k) {
        xs.push_back(Bytes(t, shapes[k], static_cast<uint32_t>(k + 1)));
        const std::string id = std::to_string(k);
        in.push_back({"x" + id, xs.back()});
        in.push_back({"s" + id, ScaleT(scales[k]), constant});
        in.push_back({"z" + id, ZeroT(t, zeros[k]), constant});
      }
      const Tensor y = RunNode("QLinearConcat", in, {IntAttr("axis", -2)});
      ASSERT_EQ(y.shape(), (Shape{2, 9, 4}));
      std::vector<int> want;
      for (int64_t o = 0; o < 2; ++o)
        for (size_t k = 0; k < 3; ++k) {
          const int64_t block = shapes[k][1] * 4;
          for (int64_t i = 0; i < block; ++i)
            want.push_back(Qz(Dq(Q(xs[k], o * block + i), scales[k], zeros[k]), ys, yz, sg));
        }
      ExpectWithinOneStep(y, want, 1.0);
    }
}

TEST(QLinearConcat, MismatchedShapesFail) {
  const Tensor a = Bytes(DataType::kUInt8, {2, 3}, 1), b = Bytes(DataType::kUInt8, {3, 3}, 2);
  try {
    RunNode("QLinearConcat", {{"ys", ScaleT(1), true}, {"yz", ZeroT(DataType::kUInt8, 0), true}, {"a", a},
                              {"as", ScaleT(1), true}, {"az", ZeroT(DataType::kUInt8, 0), true}, {"b", b},
                              {"bs", ScaleT(1), true}, {"bz", ZeroT(DataType::kUInt8, 0), true}},
            {IntAttr("axis", 1)});
    ADD_FAILURE() << "must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match input 0"), std::string::npos) << e.what();
  }
}

struct PoolCase {
  explicit PoolCase(Shape x_, std::vector<int64_t> kernel_ = {}, std::vector<int64_t> strides_ = {},
                    std::vector<int64_t> pads_ = {}, bool ceil_ = false, bool include_pad_ = false)
      : x(std::move(x_)), kernel(std::move(kernel_)), strides(std::move(strides_)), pads(std::move(pads_)),
        ceil(ceil_), include_pad(include_pad_) {}
  Shape x;  // NCHW
  std::vector<int64_t> kernel, strides, pads;
  bool ceil = false, include_pad = false, channels_last = false, global = false;
  DataType type = DataType::kUInt8;
};

// NCHW -> NHWC of a tensor (rank 4).
Tensor ToNhwc(const Tensor& x) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  Tensor y(x.dtype(), {n, h, w, c});
  const auto* s = static_cast<const uint8_t*>(x.raw_data());
  auto* d = static_cast<uint8_t*>(y.raw_data());
  for (int64_t a = 0; a < n; ++a)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < h * w; ++i) d[(a * h * w + i) * c + k] = s[(a * c + k) * h * w + i];
  return y;
}

// The float reference of a 2-D average pool over dequantized values, in NCHW.
std::vector<int> PoolReference(const PoolCase& p, const Tensor& x, float xs, int xz, float ys, int yz, Shape* out) {
  const int64_t n = p.x[0], c = p.x[1], h = p.x[2], w = p.x[3];
  const int64_t kh = p.global ? h : p.kernel[0], kw = p.global ? w : p.kernel[1];
  const int64_t sh = p.global ? 1 : p.strides[0], sw = p.global ? 1 : p.strides[1];
  const int64_t pt = p.global ? 0 : p.pads[0], pl = p.global ? 0 : p.pads[1], pb = p.global ? 0 : p.pads[2],
                pr = p.global ? 0 : p.pads[3];
  auto extent = [&](int64_t in, int64_t k, int64_t s, int64_t b, int64_t e) {
    const int64_t span = in + b + e - k;
    int64_t o = p.ceil ? (span + s - 1) / s + 1 : span / s + 1;
    if (p.ceil && (o - 1) * s >= in + b) --o;
    return o;
  };
  const int64_t oh = extent(h, kh, sh, pt, pb), ow = extent(w, kw, sw, pl, pr);
  *out = {n, c, oh, ow};
  std::vector<int> want;
  for (int64_t a = 0; a < n * c; ++a)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        float sum = 0;
        int64_t valid = 0, padded = 0;
        for (int64_t u = 0; u < kh; ++u)
          for (int64_t v = 0; v < kw; ++v) {
            const int64_t r = i * sh - pt + u, q = j * sw - pl + v;
            if (r >= -pt && r < h + pb && q >= -pl && q < w + pr) ++padded;
            if (r < 0 || r >= h || q < 0 || q >= w) continue;
            sum += Dq(Q(x, (a * h + r) * w + q), xs, xz);
            ++valid;
          }
        const int64_t count = p.include_pad ? padded : valid;
        want.push_back(Qz(count ? sum / static_cast<float>(count) : 0.f, ys, yz, p.type == DataType::kInt8));
      }
  return want;
}

void CheckPool(const PoolCase& p) {
  const bool sg = p.type == DataType::kInt8;
  const float xs = 0.03f, ys = 0.025f;
  const int xz = sg ? -7 : 131, yz = sg ? 4 : 120;
  const Tensor x = Bytes(p.type, p.x, 3);
  Shape out;
  std::vector<int> want = PoolReference(p, x, xs, xz, ys, yz, &out);
  std::vector<Attribute> attrs = {IntAttr("channels_last", p.channels_last)};
  if (!p.global) {
    attrs.push_back(IntsAttr("kernel_shape", p.kernel));
    attrs.push_back(IntsAttr("strides", p.strides));
    attrs.push_back(IntsAttr("pads", p.pads));
    attrs.push_back(IntAttr("ceil_mode", p.ceil));
    attrs.push_back(IntAttr("count_include_pad", p.include_pad));
  }
  const Tensor y = RunNode(p.global ? "QLinearGlobalAveragePool" : "QLinearAveragePool",
                           {{"x", p.channels_last ? ToNhwc(x) : x}, {"xs", ScaleT(xs), true}, {"xz", ZeroT(p.type, xz), true},
                            {"ys", ScaleT(ys), true}, {"yz", ZeroT(p.type, yz), true}},
                           attrs, 2);
  if (p.channels_last) {
    ASSERT_EQ(y.shape(), (Shape{out[0], out[2], out[3], out[1]}));
    // Back to NCHW order for the comparison.
    Tensor back(y.dtype(), out);
    for (int64_t a = 0; a < out[0]; ++a)
      for (int64_t k = 0; k < out[1]; ++k)
        for (int64_t i = 0; i < out[2] * out[3]; ++i)
          static_cast<uint8_t*>(back.raw_data())[(a * out[1] + k) * out[2] * out[3] + i] =
              static_cast<const uint8_t*>(y.raw_data())[(a * out[2] * out[3] + i) * out[1] + k];
    ExpectWithinOneStep(back, want);
  } else {
    ASSERT_EQ(y.shape(), out);
    ExpectWithinOneStep(y, want);
  }
}

TEST(QLinearPool, GlobalAveragePoolNchwAndNhwc) {
  for (DataType t : {DataType::kUInt8, DataType::kInt8})
    for (bool last : {false, true}) {
      SCOPED_TRACE(std::string(DataTypeName(t)) + (last ? " NHWC" : " NCHW"));
      PoolCase p({2, 37, 7, 5});
      p.global = true;
      p.channels_last = last;
      p.type = t;
      CheckPool(p);
    }
}

TEST(QLinearPool, AveragePoolWindows) {
  std::vector<PoolCase> cases = {
      PoolCase({1, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0, 0, 0}),
      PoolCase({2, 4, 7, 9}, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      PoolCase({1, 5, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, true),  // count_include_pad
      PoolCase({1, 2, 6, 7}, {3, 2}, {2, 2}, {0, 1, 1, 0}, true, false),  // ceil_mode
      PoolCase({1, 2, 6, 7}, {3, 2}, {2, 2}, {0, 1, 1, 0}, true, true)};
  for (PoolCase p : cases)
    for (DataType t : {DataType::kUInt8, DataType::kInt8})
      for (bool last : {false, true}) {
        SCOPED_TRACE(ShapeToString(p.x) + " " + DataTypeName(t) + (last ? " NHWC" : " NCHW"));
        p.type = t;
        p.channels_last = last;
        CheckPool(p);
      }
}

TEST(QLinearPool, EmptyBatchAndBadRank) {
  const Tensor x = Bytes(DataType::kUInt8, {0, 3, 4, 4}, 1);
  const Tensor y = RunNode("QLinearGlobalAveragePool", {{"x", x}, {"xs", ScaleT(0.1f), true}, {"xz", ZeroT(DataType::kUInt8, 0), true},
                                                        {"ys", ScaleT(0.1f), true}, {"yz", ZeroT(DataType::kUInt8, 0), true}});
  EXPECT_EQ(y.shape(), (Shape{0, 3, 1, 1}));
  try {
    RunNode("QLinearAveragePool", {{"x", Bytes(DataType::kUInt8, {3, 4}, 1)}, {"xs", ScaleT(0.1f), true}, {"", Tensor()},
                                   {"ys", ScaleT(0.1f), true}},
            {IntsAttr("kernel_shape", {2, 2})});
    ADD_FAILURE() << "rank 2 must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 3 or more"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
