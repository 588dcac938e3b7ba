#include "tessera/providers/dnnl/dnnl_geometry.h"

namespace tessera::dnnl_ep {

std::string WindowOf(const KernelInfo& info, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                     const std::vector<int64_t>& kernel, Window* w) {
  const size_t n = kernel.size();
  if (x.size() != n + 2 || y.size() != n + 2) return "input/output rank does not match the kernel";
  if (n < 1 || n > 3) return "oneDNN takes 1-3 spatial dimensions";
  std::vector<int64_t> strides = info.attr_ints("strides", std::vector<int64_t>(n, 1));
  std::vector<int64_t> dil = info.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = info.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  std::string auto_pad = info.attr_string("auto_pad", "NOTSET");
  if (strides.size() != n || dil.size() != n || pads.size() != 2 * n) return "strides/dilations/pads rank mismatch";
  *w = Window{};
  for (size_t i = 0; i < n; ++i) {
    if (strides[i] < 1 || dil[i] < 1 || kernel[i] < 1) return "non-positive stride, dilation or kernel";
    int64_t in = x[i + 2], out = y[i + 2], span = (kernel[i] - 1) * dil[i] + 1;
    int64_t pl = pads[i], pr = pads[i + n];
    if (auto_pad == "VALID") {
      pl = pr = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + span - in);
      pl = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pr = total - pl;
    } else if (auto_pad != "NOTSET") {
      return "unknown auto_pad '" + auto_pad + "'";
    }
    if (pl < 0 || pr < 0) return "negative pads";
    // ceil_mode (pools) or SAME padding may need the right pad that makes
    // oneDNN's floor formula land on the inferred output size.
    auto outputs = [&](int64_t r) { return (in + pl + r - span) / strides[i] + 1; };
    if (in + pl + pr < span || outputs(pr) != out) {
      int64_t needed = (out - 1) * strides[i] + span - in - pl;
      if (needed < 0 || outputs(needed) != out) return "output size does not follow from the window";
      w->extended_right = w->extended_right || needed > pr;
      pr = needed;
    }
    w->kernel.push_back(kernel[i]);
    w->strides.push_back(strides[i]);
    w->dilations.push_back(dil[i] - 1);
    w->pad_l.push_back(pl);
    w->pad_r.push_back(pr);
  }
  return "";
}

}  // namespace tessera::dnnl_ep
