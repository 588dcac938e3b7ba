// 4-D float layouts whose channels are innermost in memory, as the host
// steps (channel concat, max pooling) read and write them: dense
// channels-last, or blocked by 8 or 16 channels (aBcd8b/aBcd16b, what
// Winograd convolutions write and every convolution below AVX-512).
#pragma once

#include <cstdint>
#include <optional>

#include "tessera/providers/dnnl/dnnl_compiler.h"

namespace tessera::dnnl_ep {

// Pixel rows of `channels` floats (channels-last, block == 0), or rows of
// `block` floats per channel block, block_stride floats from one block of an
// image to the next; image_stride floats from one image to the next.
struct ChannelLayout {
  int64_t channels = 0, block = 0, image_stride = 0, block_stride = 0;

  // Floats from one pixel to the next within a row of the layout.
  int64_t PixelStride() const { return block != 0 ? block : channels; }

  // Channel `channel` of pixel `pixel` (row-major over H x W) of `image`.
  template <typename T>
  T* At(T* base, int64_t image, int64_t pixel, int64_t channel) const {
    if (block == 0) return base + image * image_stride + pixel * channels + channel;
    return base + image * image_stride + (channel / block) * block_stride + pixel * block + channel % block;
  }
};

// The layout of `d`, or nullopt when it is none of those (plain NCHW,
// padded spatially, offset, another rank or block).
std::optional<ChannelLayout> ChannelLayoutOf(const Desc& d);

// A dense layout of `dims` [N, C, H, W] blocked by `block` (8 or 16).
Desc ChannelBlockedDesc(const Dims& dims, int64_t block);

}  // namespace tessera::dnnl_ep
