#include "tessera/providers/dnnl/dnnl_channel_layout.h"

namespace tessera::dnnl_ep {

std::optional<ChannelLayout> ChannelLayoutOf(const Desc& d) {
  const auto& m = d.data;
  if (m.ndims != 4 || m.data_type != dnnl_f32) return std::nullopt;
  const int64_t n = m.dims[0], ch = m.dims[1], h = m.dims[2], w = m.dims[3];
  if (IsChannelsLastDense(d)) return ChannelLayout{ch, 0, h * w * ch, 0};
  const auto& b = m.format_desc.blocking;
  if (m.format_kind != dnnl_blocked || m.offset0 != 0 || b.inner_nblks != 1 || b.inner_idxs[0] != 1)
    return std::nullopt;
  const int64_t block = b.inner_blks[0];
  const int64_t blocks = (ch + block - 1) / block;
  if ((block != 8 && block != 16) || m.padded_dims[1] != blocks * block || m.padded_dims[0] != n ||
      m.padded_dims[2] != h || m.padded_dims[3] != w)
    return std::nullopt;
  // aBcd{block}b, dense: [n][blocks][h][w][block].
  if (b.strides[3] != block || b.strides[2] != w * block || b.strides[1] != h * w * block ||
      (n > 1 && b.strides[0] != blocks * h * w * block))
    return std::nullopt;
  return ChannelLayout{ch, block, blocks * h * w * block, h * w * block};
}

Desc ChannelBlockedDesc(const Dims& dims, int64_t block) {
  return Desc(dims, dnnl::memory::data_type::f32,
              block == 8 ? dnnl::memory::format_tag::aBcd8b : dnnl::memory::format_tag::aBcd16b);
}

}  // namespace tessera::dnnl_ep
