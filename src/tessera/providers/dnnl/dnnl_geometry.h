// Sliding-window geometry shared by Conv and the pools: strides, dilations
// and pads in oneDNN's terms, from the ONNX attributes and static shapes.
#pragma once

#include <dnnl.hpp>

#include <string>
#include <vector>

#include "tessera/ops/kernel.h"

namespace tessera::dnnl_ep {

struct Window {
  dnnl::memory::dims kernel, strides, dilations;  // dilations: oneDNN counts from 0
  dnnl::memory::dims pad_l, pad_r;
  bool extended_right = false;  // pad_r grew to reach a ceil_mode output
};

// x and y are the input and output shapes [N, C, spatial...]; kernel the
// window's spatial extent. Returns "" and fills *w, or why it cannot.
std::string WindowOf(const KernelInfo& info, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                     const std::vector<int64_t>& kernel, Window* w);

}  // namespace tessera::dnnl_ep
