// Object-detection kernels: RoiAlign (pooling regions of interest) and
// NonMaxSuppression (the boxes that survive overlap suppression).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// ---- RoiAlign ------------------------------------------------------------------------------
class RoiAlign final : public OpKernel {
 public:
  explicit RoiAlign(const KernelInfo& info) {
    std::string m = info.attr_string("mode", "avg");
    if (m == "avg") max_ = false;
    else if (m == "max") max_ = true;
    else info.Fail("unsupported mode '", m, "'");
    oh_ = info.attr_int("output_height", 1);
    ow_ = info.attr_int("output_width", 1);
    sampling_ = info.attr_int("sampling_ratio", 0);
    scale_ = info.attr_float("spatial_scale", 1.0f);
    if (oh_ <= 0 || ow_ <= 0) info.Fail("output_height and output_width must be positive");
    if (sampling_ < 0) info.Fail("sampling_ratio must be non-negative");
    if (info.opset() >= 16) {
      std::string c = info.attr_string("coordinate_transformation_mode", "half_pixel");
      if (c == "half_pixel") half_pixel_ = true;
      else if (c == "output_half_pixel") half_pixel_ = false;
      else info.Fail("unsupported coordinate_transformation_mode '", c, "'");
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    const Tensor& bi = ctx.input(2);
    if (x.rank() != 4) ctx.Fail("X must be 4-D, got ", ShapeToString(x.shape()));
    if (rois.rank() != 2 || rois.dim(1) != 4) ctx.Fail("rois must have shape [num_rois, 4], got ", ShapeToString(rois.shape()));
    if (bi.rank() != 1 || bi.dim(0) != rois.dim(0)) ctx.Fail("batch_indices must have shape [num_rois]");
    int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), {R, C, oh_, ow_});
    if (y.numel() > 0 && (H == 0 || W == 0)) ctx.Fail("X has an empty spatial extent ", ShapeToString(x.shape()));
    std::vector<int64_t> batch = ReadInts(bi);
    for (int64_t b : batch)
      if (b < 0 || b >= N) ctx.Fail("batch index ", b, " is out of range [0, ", N, ")");
    std::vector<double> rv(static_cast<size_t>(rois.numel()));
    for (int64_t i = 0; i < rois.numel(); ++i) {
      rv[static_cast<size_t>(i)] = rois.GetAsDouble(i);
      if (!std::isfinite(rv[static_cast<size_t>(i)]) || std::abs(rv[static_cast<size_t>(i)]) > 1e9)
        ctx.Fail("roi coordinate ", rv[static_cast<size_t>(i)], " is not a finite value of reasonable size");
    }
    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      using CT = typename cpu::Compute<T>::type;
      const T* xd = x.data<T>();
      T* yd = y.data<T>();
      ParallelFor(ctx.thread_pool(), R, 1, [&](int64_t lo, int64_t hi) {
        struct Sample { int64_t o1, o2, o3, o4; double w1, w2, w3, w4; };
        std::vector<Sample> samples;
        for (int64_t ri = lo; ri < hi; ++ri) {
          const double* roi = &rv[static_cast<size_t>(ri * 4)];
          double off = half_pixel_ ? 0.5 : 0.0;
          double x1 = roi[0] * scale_ - off, y1 = roi[1] * scale_ - off;
          double x2 = roi[2] * scale_ - off, y2 = roi[3] * scale_ - off;
          double rw = x2 - x1, rh = y2 - y1;
          if (!half_pixel_) {
            rw = std::max(rw, 1.0);
            rh = std::max(rh, 1.0);
          }
          double bh = rh / static_cast<double>(oh_), bw = rw / static_cast<double>(ow_);
          int64_t gh = sampling_ > 0 ? sampling_ : static_cast<int64_t>(std::ceil(rh / static_cast<double>(oh_)));
          int64_t gw = sampling_ > 0 ? sampling_ : static_cast<int64_t>(std::ceil(rw / static_cast<double>(ow_)));
          gh = std::max<int64_t>(gh, 0);
          gw = std::max<int64_t>(gw, 0);
          if (gh * gw > (int64_t{1} << 24)) ctx.Fail("roi ", ri, " needs too many sampling points");
          double count = static_cast<double>(std::max<int64_t>(gh * gw, 1));
          for (int64_t ph = 0; ph < oh_; ++ph)
            for (int64_t pw = 0; pw < ow_; ++pw) {
              samples.clear();
              for (int64_t iy = 0; iy < gh; ++iy) {
                double yy = y1 + static_cast<double>(ph) * bh + (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
                for (int64_t ix = 0; ix < gw; ++ix) {
                  double xx = x1 + static_cast<double>(pw) * bw + (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
                  if (yy < -1.0 || yy > static_cast<double>(H) || xx < -1.0 || xx > static_cast<double>(W)) {
                    samples.push_back({0, 0, 0, 0, 0, 0, 0, 0});
                    continue;
                  }
                  double sy = std::max(yy, 0.0), sx = std::max(xx, 0.0);
                  int64_t yl = static_cast<int64_t>(sy), xl = static_cast<int64_t>(sx), yh, xh;
                  if (yl >= H - 1) {
                    yh = yl = H - 1;
                    sy = static_cast<double>(yl);
                  } else {
                    yh = yl + 1;
                  }
                  if (xl >= W - 1) {
                    xh = xl = W - 1;
                    sx = static_cast<double>(xl);
                  } else {
                    xh = xl + 1;
                  }
                  double ly = sy - static_cast<double>(yl), lx = sx - static_cast<double>(xl);
                  double hy = 1 - ly, hx = 1 - lx;
                  samples.push_back({yl * W + xl, yl * W + xh, yh * W + xl, yh * W + xh, hy * hx, hy * lx, ly * hx, ly * lx});
                }
              }
              for (int64_t c = 0; c < C; ++c) {
                const T* xp = xd + (batch[static_cast<size_t>(ri)] * C + c) * H * W;
                double acc = 0;
                bool first = true;
                for (const Sample& s : samples) {
                  double v1 = static_cast<double>(Load(xp[s.o1])), v2 = static_cast<double>(Load(xp[s.o2]));
                  double v3 = static_cast<double>(Load(xp[s.o3])), v4 = static_cast<double>(Load(xp[s.o4]));
                  if (max_) {
                    double m = std::max(std::max(s.w1 * v1, s.w2 * v2), std::max(s.w3 * v3, s.w4 * v4));
                    acc = first ? m : std::max(acc, m);
                    first = false;
                  } else {
                    acc += s.w1 * v1 + s.w2 * v2 + s.w3 * v3 + s.w4 * v4;
                  }
                }
                if (!max_) acc /= count;
                yd[((ri * C + c) * oh_ + ph) * ow_ + pw] = StoreAs<T>(static_cast<CT>(acc));
              }
            }
        }
      });
    });
  }

 private:
  bool max_ = false;
  int64_t oh_ = 1, ow_ = 1, sampling_ = 0;
  float scale_ = 1.0f;
  bool half_pixel_ = false;  // opset 10 behaves as output_half_pixel
};

// ---- NonMaxSuppression --------------------------------------------------------------------
class NonMaxSuppression final : public OpKernel {
 public:
  explicit NonMaxSuppression(const KernelInfo& info) {
    center_ = info.attr_int("center_point_box", 0);
    if (center_ != 0 && center_ != 1) info.Fail("center_point_box must be 0 or 1");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.rank() != 3 || boxes.dim(2) != 4) ctx.Fail("boxes must have shape [batch, spatial, 4], got ", ShapeToString(boxes.shape()));
    if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
      ctx.Fail("scores of shape ", ShapeToString(scores.shape()), " do not match boxes of shape ", ShapeToString(boxes.shape()));
    int64_t max_out = 0;
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) max_out = ctx.input(2).GetAsInt64(0);
    double iou_th = 0;
    if (ctx.has_input(3) && ctx.input(3).numel() > 0) iou_th = ctx.input(3).GetAsDouble(0);
    bool has_score_th = ctx.has_input(4) && ctx.input(4).numel() > 0;
    double score_th = has_score_th ? ctx.input(4).GetAsDouble(0) : 0;
    if (iou_th < 0 || iou_th > 1) ctx.Fail("iou_threshold must be in [0, 1], got ", iou_th);
    int64_t B = boxes.dim(0), S = boxes.dim(1), C = scores.dim(1);
    std::vector<int64_t> sel;
    if (max_out > 0) {
      std::vector<double> bx(static_cast<size_t>(boxes.numel())), sc(static_cast<size_t>(scores.numel()));
      for (int64_t i = 0; i < boxes.numel(); ++i) bx[static_cast<size_t>(i)] = boxes.GetAsDouble(i);
      for (int64_t i = 0; i < scores.numel(); ++i) sc[static_cast<size_t>(i)] = scores.GetAsDouble(i);
      // Normalized corners (y1, x1, y2, x2) with y1 <= y2, x1 <= x2.
      std::vector<double> cn(bx.size());
      for (int64_t i = 0; i < B * S; ++i) {
        const double* b = &bx[static_cast<size_t>(i * 4)];
        double* o = &cn[static_cast<size_t>(i * 4)];
        if (center_) {
          double xc = b[0], yc = b[1], w = b[2], h = b[3];
          o[0] = yc - h / 2;
          o[1] = xc - w / 2;
          o[2] = yc + h / 2;
          o[3] = xc + w / 2;
        } else {
          o[0] = std::min(b[0], b[2]);
          o[1] = std::min(b[1], b[3]);
          o[2] = std::max(b[0], b[2]);
          o[3] = std::max(b[1], b[3]);
        }
      }
      auto iou = [&](int64_t i, int64_t j) {
        const double* a = &cn[static_cast<size_t>(i * 4)];
        const double* b = &cn[static_cast<size_t>(j * 4)];
        double ih = std::min(a[2], b[2]) - std::max(a[0], b[0]);
        double iw = std::min(a[3], b[3]) - std::max(a[1], b[1]);
        if (ih <= 0 || iw <= 0) return 0.0;
        double inter = ih * iw;
        double aa = (a[2] - a[0]) * (a[3] - a[1]), ab = (b[2] - b[0]) * (b[3] - b[1]);
        double uni = aa + ab - inter;
        if (aa <= 0 || ab <= 0 || uni <= 0) return 0.0;
        return inter / uni;
      };
      std::vector<int64_t> cand, kept;
      for (int64_t b = 0; b < B; ++b)
        for (int64_t c = 0; c < C; ++c) {
          const double* s = &sc[static_cast<size_t>((b * C + c) * S)];
          cand.clear();
          for (int64_t i = 0; i < S; ++i)
            if (!has_score_th || s[i] > score_th) cand.push_back(i);
          std::stable_sort(cand.begin(), cand.end(), [&](int64_t a, int64_t bb) { return s[a] > s[bb]; });
          kept.clear();
          for (int64_t i : cand) {
            if (static_cast<int64_t>(kept.size()) >= max_out) break;
            bool ok = true;
            for (int64_t k : kept)
              if (iou(b * S + i, b * S + k) > iou_th) {
                ok = false;
                break;
              }
            if (ok) {
              kept.push_back(i);
              sel.push_back(b);
              sel.push_back(c);
              sel.push_back(i);
            }
          }
        }
    }
    int64_t n = static_cast<int64_t>(sel.size() / 3);
    Tensor& y = ctx.allocate_output(0, DataType::kInt64, {n, 3});
    if (!sel.empty()) std::memcpy(y.raw_data(), sel.data(), sel.size() * sizeof(int64_t));
  }

 private:
  int64_t center_ = 0;
};

}  // namespace

std::vector<KernelRow> ObjectDetectionKernels() {
  std::vector<DataType> f3 = {DataType::kFloat, DataType::kDouble, DataType::kFloat16};
  return {
      {"ai.onnx", "RoiAlign", 10, 15, f3, Make<RoiAlign>()},
      {"ai.onnx", "RoiAlign", 16, kMaxOnnxOpset, types::Floats(), Make<RoiAlign>()},
      {"ai.onnx", "NonMaxSuppression", 10, kMaxOnnxOpset, {DataType::kFloat}, Make<NonMaxSuppression>()},
  };
}

}  // namespace tessera::cpu
