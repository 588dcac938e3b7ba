// The Col2Im op (opset 18): the sum of sliding blocks back into an image,
// ConvTranspose's scatter-add on its own. Its blocks are a convolution's
// windows, so it runs on the conv family's geometry and col2im
// (conv_columns.h): the image is the convolution's output, the block
// positions its input, the block its kernel.
#include <algorithm>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_columns.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

class Col2ImKernel final : public OpKernel {
 public:
  explicit Col2ImKernel(const KernelInfo& info) {
    dilations_ = info.attr_ints("dilations", {});
    pads_ = info.attr_ints("pads", {});
    strides_ = info.attr_ints("strides", {});
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> img = ReadInts(ctx.input(1));
    std::vector<int64_t> blk = ReadInts(ctx.input(2));
    size_t r = img.size();
    if (r == 0 || blk.size() != r) ctx.Fail("image_shape and block_shape must have the same non-zero length");
    std::vector<int64_t> dil = dilations_.empty() ? std::vector<int64_t>(r, 1) : dilations_;
    std::vector<int64_t> str = strides_.empty() ? std::vector<int64_t>(r, 1) : strides_;
    std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * r, 0) : pads_;
    if (dil.size() != r || str.size() != r || pads.size() != 2 * r) ctx.Fail("dilations/strides/pads do not match rank ", r);
    if (x.rank() != 3) ctx.Fail("input must be 3-D [N, C*prod(block_shape), L], got ", ShapeToString(x.shape()));
    int64_t kprod = 1;
    for (size_t d = 0; d < r; ++d) {
      if (blk[d] <= 0 || img[d] < 0 || dil[d] <= 0 || str[d] <= 0 || pads[d] < 0 || pads[d + r] < 0)
        ctx.Fail("invalid block_shape/image_shape/dilations/strides/pads");
      kprod *= blk[d];
    }
    int64_t N = x.dim(0);
    if (x.dim(1) % kprod != 0) ctx.Fail("input dim 1 (", x.dim(1), ") is not divisible by prod(block_shape) = ", kprod);
    int64_t C = x.dim(1) / kprod;
    // One channel of the convolution whose windows are the blocks.
    ConvGeom g;
    g.n = N, g.c = 1, g.m = 1;
    g.out.assign(img.begin(), img.end());
    g.kernel.assign(blk.begin(), blk.end());
    g.stride = str;
    g.dil = dil;
    g.pad.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(r));
    g.in.resize(r);
    for (size_t d = 0; d < r; ++d)
      g.in[d] = WindowPositions(img[d] + pads[d] + pads[d + r], DilatedKernel(blk[d], dil[d]), str[d]);
    const int64_t L = g.in_size();
    if (x.dim(2) != L) ctx.Fail("input dim 2 (", x.dim(2), ") does not match the number of blocks ", L);
    Shape os = {N, C};
    os.insert(os.end(), img.begin(), img.end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), os);
    const int64_t plane = g.out_size();
    DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), N * C, 1, [&](int64_t lo, int64_t hi) {
        std::vector<CT> acc(static_cast<size_t>(plane));
        for (int64_t p = lo; p < hi; ++p) {
          std::fill(acc.begin(), acc.end(), CT(0));
          if (L > 0) Col2Im(g, xd + p * kprod * L, 0, kprod, 0, L, acc.data());
          T* yp = yd + p * plane;
          for (int64_t i = 0; i < plane; ++i) yp[i] = StoreAs<T>(acc[static_cast<size_t>(i)]);
        }
      });
    });
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

}  // namespace

std::vector<KernelRow> Col2ImKernels() {
  return {
      {"ai.onnx", "Col2Im", 18, kMaxOnnxOpset, types::Numeric(), Make<Col2ImKernel>()},
  };
}

}  // namespace tessera::cpu
