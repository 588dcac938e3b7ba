// The general strided copy and transpose of the data-movement kernels
// (tensor_layout_util.h): runs of unit stride are merged, the innermost
// contiguous run is copied as a block, and large copies split across threads.
#include <algorithm>
#include <numeric>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/tensor_layout_util.h"

namespace tessera::cpu {

namespace layout {

void CoalesceStrided(Shape& shape, std::vector<int64_t>& st) {
  Shape s2;
  std::vector<int64_t> t2;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!s2.empty() && t2.back() == st[i] * shape[i]) {
      s2.back() *= shape[i];
      t2.back() = st[i];
      continue;
    }
    s2.push_back(shape[i]);
    t2.push_back(st[i]);
  }
  shape = std::move(s2);
  st = std::move(t2);
}

namespace {

template <typename W>
void StridedCopyT(const W* src, W* dst, Shape shape, std::vector<int64_t> st, ThreadPool* pool) {
  for (int64_t d : shape)
    if (d == 0) return;
  CoalesceStrided(shape, st);
  const size_t r = shape.size();
  if (r == 0) {
    dst[0] = src[0];
    return;
  }
  const int64_t inner = shape[r - 1];
  const int64_t is = st[r - 1];
  int64_t total = 1;
  for (int64_t d : shape) total *= d;

  // The dim (other than the innermost) that is contiguous in the source.
  int k = -1;
  if (is != 1)
    for (size_t d = 0; d + 1 < r; ++d)
      if (st[d] == 1) k = static_cast<int>(d);

  if (k >= 0 && inner >= 8 && shape[static_cast<size_t>(k)] >= 8 && !std::is_same_v<W, std::string>) {
    // Tiled 2-D transpose between dim k (unit source stride) and the last dim.
    constexpr int64_t kT = 32;
    const int64_t dk = shape[static_cast<size_t>(k)];
    std::vector<int64_t> dst_strides = StridesOf(shape);
    const int64_t dsk = dst_strides[static_cast<size_t>(k)];
    // Other dims.
    std::vector<size_t> others;
    for (size_t d = 0; d + 1 < r; ++d)
      if (static_cast<int>(d) != k) others.push_back(d);
    int64_t n_outer = 1;
    for (size_t d : others) n_outer *= shape[d];
    const int64_t tiles_k = (dk + kT - 1) / kT;
    const int64_t tiles_j = (inner + kT - 1) / kT;
    const int64_t units = n_outer * tiles_k;
    ParallelFor(pool, units, std::max<int64_t>(1, 4096 / (kT * inner) + 1), [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        int64_t o = u / tiles_k, tk = u % tiles_k;
        int64_t so = 0, dof = 0;
        for (size_t x = others.size(); x-- > 0;) {
          size_t d = others[x];
          int64_t idx = o % shape[d];
          o /= shape[d];
          so += idx * st[d];
          dof += idx * dst_strides[d];
        }
        int64_t i0 = tk * kT, i1 = std::min(dk, i0 + kT);
        for (int64_t tj = 0; tj < tiles_j; ++tj) {
          int64_t j0 = tj * kT, j1 = std::min(inner, j0 + kT);
          for (int64_t i = i0; i < i1; ++i) {
            const W* s = src + so + i;
            W* dd = dst + dof + i * dsk;
            for (int64_t j = j0; j < j1; ++j) dd[j] = s[j * is];
          }
        }
      }
    });
    return;
  }

  const int64_t outer = total / inner;
  ParallelFor(pool, outer, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t b, int64_t e) {
    std::vector<int64_t> idx(r, 0);
    int64_t off = 0;
    int64_t rem = b;
    for (size_t d = r - 1; d-- > 0;) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
      off += idx[d] * st[d];
    }
    for (int64_t o = b; o < e; ++o) {
      W* dd = dst + o * inner;
      const W* s = src + off;
      if (is == 1) {
        CopyN(s, inner, dd);
      } else if (is == 0) {
        for (int64_t j = 0; j < inner; ++j) dd[j] = s[0];
      } else {
        for (int64_t j = 0; j < inner; ++j) dd[j] = s[j * is];
      }
      for (size_t d = r - 1; d-- > 0;) {
        off += st[d];
        if (++idx[d] < shape[d]) break;
        off -= st[d] * shape[d];
        idx[d] = 0;
      }
    }
  });
}

}  // namespace

void StridedCopy(const void* src, void* dst, const Shape& shape, const std::vector<int64_t>& src_strides, DataType dt,
                 const KernelContext& ctx) {
  DispatchWord(dt, ctx, [&]<typename W>() {
    StridedCopyT<W>(static_cast<const W*>(src), static_cast<W*>(dst), shape, src_strides, ctx.thread_pool());
  });
}

Tensor TransposeTensor(const Tensor& t, const std::vector<int64_t>& perm, const KernelContext& ctx) {
  const Shape& in = t.shape();
  std::vector<int64_t> in_strides = StridesOf(in);
  Shape out_shape(perm.size());
  std::vector<int64_t> st(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out_shape[i] = in[static_cast<size_t>(perm[i])];
    st[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  Tensor out(t.dtype(), out_shape);
  StridedCopy(t.raw_data(), out.raw_data(), out_shape, st, t.dtype(), ctx);
  return out;
}

}  // namespace layout

}  // namespace tessera::cpu
