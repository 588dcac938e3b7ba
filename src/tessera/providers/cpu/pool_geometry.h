// The geometry the windowed pools share (pool.cc, qlinear_pool.cc): for
// every spatial dim and output position, the in-bounds input coordinates of
// the window and the count of window cells inside the padded input; the
// kernels walk the cartesian product of those per-dim lists.
#pragma once

#include <string>
#include <vector>

#include "tessera/ops/kernel.h"
#include "tessera/providers/cpu/auto_pad.h"

namespace tessera::cpu {

// Attributes shared by the windowed pools.
struct PoolAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
  AutoPad auto_pad = AutoPad::kNotSet;
  bool ceil_mode = false;

  void Parse(const KernelInfo& info, bool allow_dilations, bool allow_ceil) {
    kernel = info.attr_ints("kernel_shape");
    if (kernel.empty()) info.Fail("kernel_shape must not be empty");
    size_t r = kernel.size();
    for (int64_t k : kernel)
      if (k <= 0) info.Fail("kernel_shape values must be positive");
    strides = info.attr_ints("strides", std::vector<int64_t>(r, 1));
    if (strides.empty()) strides.assign(r, 1);
    dilations = allow_dilations ? info.attr_ints("dilations", std::vector<int64_t>(r, 1)) : std::vector<int64_t>(r, 1);
    if (dilations.empty()) dilations.assign(r, 1);
    pads = info.attr_ints("pads", std::vector<int64_t>(2 * r, 0));
    if (pads.empty()) pads.assign(2 * r, 0);
    if (strides.size() != r) info.Fail("strides has ", strides.size(), " values, kernel_shape has ", r);
    if (dilations.size() != r) info.Fail("dilations has ", dilations.size(), " values, kernel_shape has ", r);
    if (pads.size() != 2 * r) info.Fail("pads has ", pads.size(), " values, expected ", 2 * r);
    for (int64_t s : strides)
      if (s <= 0) info.Fail("strides must be positive");
    for (int64_t d : dilations)
      if (d <= 0) info.Fail("dilations must be positive");
    for (int64_t p : pads)
      if (p < 0) info.Fail("pads must be non-negative");
    auto_pad = ParseAutoPad(info);
    ceil_mode = allow_ceil && info.attr_int("ceil_mode", 0) != 0;
  }
};

// Per-dim window lists for one concrete input shape.
struct PoolGeometry {
  size_t rank = 0;                     // spatial rank
  Shape in, out;                       // spatial dims
  std::vector<int64_t> pad_begin, pad_end;
  // win[d][o] = in-bounds input coordinates of window o along dim d.
  std::vector<std::vector<std::vector<int64_t>>> win;
  // padcount[d][o] = window cells inside [-pad_begin, in + pad_end).
  std::vector<std::vector<int64_t>> padcount;
};

PoolGeometry MakeGeometry(const PoolAttrs& a, const Shape& x_shape, const KernelContext& ctx);

// Walks every output point of one (n, c) plane in row-major order and calls
// per_out(out_flat, visit, valid_count, pad_count), where visit(cell) calls
// cell(offset) for each in-bounds input cell of the window (offset within the
// plane), valid_count is their number and pad_count the number of window cells
// inside the padded input. Rank <= 3 runs as plain nested loops.
template <typename PerOut>
void PoolPlane(const PoolGeometry& g, const std::vector<int64_t>& strides, PerOut&& per_out) {
  size_t r = g.rank;
  for (int64_t o : g.out)
    if (o == 0) return;
  if (r <= 3) {
    static const std::vector<std::vector<int64_t>> kUnitWin = {{0}};
    static const std::vector<int64_t> kUnitCount = {1};
    const std::vector<std::vector<int64_t>>* w[3];
    const std::vector<int64_t>* pc[3];
    int64_t st[3], n[3];
    size_t lead = 3 - r;
    for (size_t d = 0; d < 3; ++d) {
      if (d < lead) {
        w[d] = &kUnitWin;
        pc[d] = &kUnitCount;
        st[d] = 0;
        n[d] = 1;
      } else {
        w[d] = &g.win[d - lead];
        pc[d] = &g.padcount[d - lead];
        st[d] = strides[d - lead];
        n[d] = g.out[d - lead];
      }
    }
    int64_t flat = 0;
    for (int64_t a = 0; a < n[0]; ++a) {
      const std::vector<int64_t>& l0 = (*w[0])[static_cast<size_t>(a)];
      int64_t p0 = (*pc[0])[static_cast<size_t>(a)];
      for (int64_t b = 0; b < n[1]; ++b) {
        const std::vector<int64_t>& l1 = (*w[1])[static_cast<size_t>(b)];
        int64_t p1 = p0 * (*pc[1])[static_cast<size_t>(b)];
        for (int64_t c = 0; c < n[2]; ++c) {
          const std::vector<int64_t>& l2 = (*w[2])[static_cast<size_t>(c)];
          int64_t p2 = p1 * (*pc[2])[static_cast<size_t>(c)];
          int64_t valid = static_cast<int64_t>(l0.size() * l1.size() * l2.size());
          auto visit = [&](auto&& cell) {
            for (int64_t i0 : l0)
              for (int64_t i1 : l1) {
                int64_t base = i0 * st[0] + i1 * st[1];
                for (int64_t i2 : l2) cell(base + i2 * st[2]);
              }
          };
          per_out(flat++, visit, valid, p2);
        }
      }
    }
    return;
  }
  // Generic N-D odometer.
  int64_t total = 1;
  for (int64_t o : g.out) total *= o;
  std::vector<int64_t> oi(r, 0);
  std::vector<const std::vector<int64_t>*> lists(r);
  std::vector<size_t> pos(r);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t valid = 1, padc = 1;
    for (size_t d = 0; d < r; ++d) {
      lists[d] = &g.win[d][static_cast<size_t>(oi[d])];
      valid *= static_cast<int64_t>(lists[d]->size());
      padc *= g.padcount[d][static_cast<size_t>(oi[d])];
    }
    auto visit = [&](auto&& cell) {
      if (valid == 0) return;
      std::fill(pos.begin(), pos.end(), 0);
      for (;;) {
        int64_t off = 0;
        for (size_t d = 0; d < r; ++d) off += (*lists[d])[pos[d]] * strides[d];
        cell(off);
        size_t d = r;
        for (;;) {
          if (d == 0) return;
          --d;
          if (++pos[d] < lists[d]->size()) break;
          pos[d] = 0;
        }
      }
    };
    per_out(flat, visit, valid, padc);
    for (size_t d = r; d-- > 0;) {
      if (++oi[d] < g.out[d]) break;
      oi[d] = 0;
    }
  }
}

inline Shape OutShape(const Shape& x, const PoolGeometry& g) {
  Shape s = {x[0], x[1]};
  s.insert(s.end(), g.out.begin(), g.out.end());
  return s;
}

}  // namespace tessera::cpu
