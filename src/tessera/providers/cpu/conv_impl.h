// The convolution implementation the conv family's files share: Conv and
// ConvTranspose kernels with an optional epilogue (for the fused
// ai.tessera:FusedConv kernel: the epilogue runs on each output channel's
// rows right after the bias is added), the forward convolution itself (the
// integer forms run it in double), and the float compute buffers.
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/conv_geometry.h"
#include "tessera/providers/cpu/epilogue.h"

namespace tessera::cpu {

std::unique_ptr<OpKernel> MakeConvKernel(const KernelInfo& info, bool transpose,
                                         std::shared_ptr<const Epilogue> epilogue);

// y[n, m, out...] = post(sum conv(x, w) + bias); all buffers contiguous
// NC(D...). Instantiated for float and double (conv.cc).
template <typename F>
void ConvForward(ConvGeom g, const F* x, const F* w, const F* bias, F* y, ThreadPool* pool,
                 const Epilogue* post = nullptr);

// Pointer to t's data in compute type F, converting into buf when T != F.
template <typename T, typename F>
const F* ComputePtr(const Tensor& t, std::vector<F>& buf) {
  if constexpr (std::is_same_v<T, F>) {
    return t.data<F>();
  } else {
    const T* src = t.data<T>();
    buf.resize(static_cast<size_t>(t.numel()));
    for (int64_t i = 0; i < t.numel(); ++i) buf[static_cast<size_t>(i)] = static_cast<F>(Load(src[i]));
    return buf.data();
  }
}

// Runs fn<F>(x, w, b, y) in the compute type of a float tensor type.
template <typename Fn>
void WithFloatBuffers(KernelContext& ctx, const Tensor& x, const Tensor& w, const Tensor* b, Tensor& y, Fn&& fn) {
  DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
    using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
    std::vector<F> xb, wb, bb, yb;
    const F* xp = ComputePtr<T, F>(x, xb);
    const F* wp = ComputePtr<T, F>(w, wb);
    const F* bp = b ? ComputePtr<T, F>(*b, bb) : nullptr;
    F* yp;
    if constexpr (std::is_same_v<T, F>) {
      yp = y.data<F>();
    } else {
      yb.resize(static_cast<size_t>(y.numel()));
      yp = yb.data();
    }
    fn(xp, wp, bp, yp);
    if constexpr (!std::is_same_v<T, F>) {
      T* yo = y.data<T>();
      for (int64_t i = 0; i < y.numel(); ++i) yo[i] = StoreAs<T>(yp[i]);
    }
  });
}

}  // namespace tessera::cpu
