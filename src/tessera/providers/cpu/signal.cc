// Signal processing: DFT (opset 17 axis attribute, opset 20 axis input), STFT,
// the Hann / Hamming / Blackman windows and MelWeightMatrix. Transforms run as
// O(n log n) FFTs in double: iterative radix-2 for powers of two, Bluestein's
// chirp-z algorithm (on a radix-2 FFT) for every other length.
#include <algorithm>
#include <cmath>
#include <limits>
#include <complex>
#include <numbers>
#include <vector>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {

namespace {

using cd = std::complex<double>;

constexpr int64_t kMaxFftLength = int64_t{1} << 31;

inline cd Mul(const cd& a, const cd& b) {
  return cd(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

bool IsPow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// In-place radix-2 FFT of a power-of-two length (forward, unscaled).
class Radix2 {
 public:
  explicit Radix2(int64_t m) : m_(m), rev_(static_cast<size_t>(m)), tw_(static_cast<size_t>(m > 1 ? m - 1 : 0)) {
    int logm = 0;
    while ((int64_t{1} << logm) < m) ++logm;
    if (m > 1) {
      rev_[0] = 0;
      for (int64_t i = 1; i < m; ++i)
        rev_[static_cast<size_t>(i)] = (rev_[static_cast<size_t>(i >> 1)] >> 1) | ((i & 1) << (logm - 1));
    }
    // Twiddles of every stage stored contiguously: stage len at [len/2 - 1, len - 1).
    // Each angle is computed directly (no recurrences) for full accuracy.
    for (int64_t len = 2; len <= m; len <<= 1) {
      const int64_t half = len >> 1;
      cd* w = tw_.data() + (half - 1);
      for (int64_t j = 0; j < half; ++j) {
        if (j == 0) {
          w[j] = cd(1.0, 0.0);
        } else if (4 * j == len) {
          w[j] = cd(0.0, -1.0);
        } else {
          const double a = -2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(len);
          w[j] = cd(std::cos(a), std::sin(a));
        }
      }
    }
  }

  int64_t size() const { return m_; }

  void Forward(cd* a) const {
    for (int64_t i = 0; i < m_; ++i) {
      const int64_t r = rev_[static_cast<size_t>(i)];
      if (i < r) std::swap(a[i], a[r]);
    }
    // First stage: twiddle 1.
    for (int64_t s = 0; s + 1 < m_; s += 2) {
      const cd u = a[s], v = a[s + 1];
      a[s] = u + v;
      a[s + 1] = u - v;
    }
    for (int64_t len = 4; len <= m_; len <<= 1) {
      const int64_t half = len >> 1;
      const cd* w = tw_.data() + (half - 1);
      for (int64_t s = 0; s < m_; s += len) {
        cd* lo = a + s;
        cd* hi = a + s + half;
        for (int64_t j = 0; j < half; ++j) {
          // Explicit complex product (std::complex's operator* checks for NaN).
          const double wr = w[j].real(), wi = w[j].imag();
          const double hr = hi[j].real(), hi_ = hi[j].imag();
          const cd v(hr * wr - hi_ * wi, hr * wi + hi_ * wr);
          const cd u = lo[j];
          lo[j] = u + v;
          hi[j] = u - v;
        }
      }
    }
  }

 private:
  int64_t m_;
  std::vector<int64_t> rev_;
  std::vector<cd> tw_;
};

// An unscaled DFT of one fixed length n, forward or inverse: radix-2 for
// powers of two, mixed radix (recursive decimation in time) when every prime
// factor is small, Bluestein's algorithm otherwise.
class FftPlan {
 public:
  explicit FftPlan(int64_t n) : n_(n), kind_(Choose(n, &factors_)), r2_(Radix2Size(n, kind_)) {
    if (kind_ == Kind::kMixed) {
      tw_.resize(static_cast<size_t>(n_));
      for (int64_t j = 0; j < n_; ++j) {
        const double a = -2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n_);
        tw_[static_cast<size_t>(j)] = cd(std::cos(a), std::sin(a));
      }
      return;
    }
    if (kind_ != Kind::kBluestein) return;
    const int64_t m = r2_.size();
    chirp_.resize(static_cast<size_t>(n_));
    const int64_t two_n = 2 * n_;
    for (int64_t k = 0; k < n_; ++k) {
      // exp(-i*pi*k^2/n) with k^2 reduced modulo 2n for an accurate angle.
      const int64_t k2 = static_cast<int64_t>((static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k)) %
                                              static_cast<unsigned __int128>(two_n));
      const double a = -std::numbers::pi * static_cast<double>(k2) / static_cast<double>(n_);
      chirp_[static_cast<size_t>(k)] = cd(std::cos(a), std::sin(a));
    }
    kernel_.assign(static_cast<size_t>(m), cd(0, 0));
    kernel_[0] = std::conj(chirp_[0]);
    for (int64_t k = 1; k < n_; ++k) {
      kernel_[static_cast<size_t>(k)] = std::conj(chirp_[static_cast<size_t>(k)]);
      kernel_[static_cast<size_t>(m - k)] = std::conj(chirp_[static_cast<size_t>(k)]);
    }
    r2_.Forward(kernel_.data());
  }

  int64_t size() const { return n_; }
  // Scratch a caller provides per thread.
  int64_t scratch_size() const {
    switch (kind_) {
      case Kind::kMixed: return n_;
      case Kind::kBluestein: return r2_.size();
      default: return 0;
    }
  }

  // Transforms a[0..n) in place; inverse omits the 1/n factor.
  void Run(cd* a, bool inverse, cd* scratch) const {
    if (kind_ == Kind::kTrivial) return;
    if (inverse)
      for (int64_t i = 0; i < n_; ++i) a[i] = std::conj(a[i]);
    if (kind_ == Kind::kRadix2) {
      r2_.Forward(a);
    } else if (kind_ == Kind::kMixed) {
      std::copy(a, a + n_, scratch);
      MixedWork(a, scratch, 1, 0, n_);
    } else {
      const int64_t m = r2_.size();
      for (int64_t k = 0; k < n_; ++k) scratch[k] = Mul(a[k], chirp_[static_cast<size_t>(k)]);
      for (int64_t k = n_; k < m; ++k) scratch[k] = cd(0, 0);
      r2_.Forward(scratch);
      // Inverse FFT of the product through conjugation.
      for (int64_t k = 0; k < m; ++k) scratch[k] = std::conj(Mul(scratch[k], kernel_[static_cast<size_t>(k)]));
      r2_.Forward(scratch);
      const double inv_m = 1.0 / static_cast<double>(m);
      for (int64_t k = 0; k < n_; ++k) a[k] = Mul(std::conj(scratch[k]) * inv_m, chirp_[static_cast<size_t>(k)]);
    }
    if (inverse)
      for (int64_t i = 0; i < n_; ++i) a[i] = std::conj(a[i]);
  }

 private:
  enum class Kind { kTrivial, kRadix2, kMixed, kBluestein };
  static constexpr int64_t kMaxRadix = 61;

  static Kind Choose(int64_t n, std::vector<int64_t>* factors) {
    if (n <= 1) return Kind::kTrivial;
    if (IsPow2(n)) return Kind::kRadix2;
    int64_t rest = n;
    for (int64_t p = 2; p <= kMaxRadix && rest > 1; ++p) {
      while (rest % p == 0) {
        factors->push_back(p);
        rest /= p;
      }
    }
    if (rest == 1) return Kind::kMixed;
    factors->clear();
    return Kind::kBluestein;
  }
  static int64_t Radix2Size(int64_t n, Kind kind) {
    if (kind == Kind::kRadix2) return n;
    if (kind != Kind::kBluestein) return 1;
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    return m;
  }

  // DFT of the n_sub inputs in[0], in[stride], ... into out[0..n_sub), using
  // factors_[f..]: p sub-transforms of length n_sub/p, then radix-p butterflies.
  void MixedWork(cd* out, const cd* in, int64_t in_stride, size_t f, int64_t n_sub) const {
    const int64_t p = factors_[f];
    const int64_t m = n_sub / p;
    if (m == 1) {
      for (int64_t r = 0; r < p; ++r) out[r] = in[r * in_stride];
    } else {
      for (int64_t r = 0; r < p; ++r) MixedWork(out + r * m, in + r * in_stride, in_stride * p, f + 1, m);
    }
    const int64_t tws = n_ / n_sub;  // W_{n_sub}^j = W_n^{j*tws}
    const int64_t root = n_ / p;     // W_p^j = W_n^{j*root}
    cd t[kMaxRadix];
    for (int64_t k = 0; k < m; ++k) {
      for (int64_t r = 0; r < p; ++r)
        t[r] = (r == 0 || k == 0) ? out[r * m + k] : Mul(out[r * m + k], tw_[static_cast<size_t>(r * k * tws)]);
      if (p == 2) {
        out[k] = t[0] + t[1];
        out[k + m] = t[0] - t[1];
        continue;
      }
      for (int64_t q = 0; q < p; ++q) {
        cd acc = t[0];
        for (int64_t r = 1; r < p; ++r) acc += Mul(t[r], tw_[static_cast<size_t>(((r * q) % p) * root)]);
        out[k + q * m] = acc;
      }
    }
  }

  int64_t n_;
  std::vector<int64_t> factors_;
  Kind kind_;
  Radix2 r2_;
  std::vector<cd> tw_;      // mixed radix: W_n^j
  std::vector<cd> chirp_;   // Bluestein
  std::vector<cd> kernel_;  // Bluestein
};

template <typename T>
double LoadD(const T& v) {
  return static_cast<double>(Load<T>(v));
}

int64_t ScalarInt(const Tensor& t, const char* name, const KernelContext& ctx) {
  if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
    ctx.Fail(name, " must be int32 or int64, got ", DataTypeName(t.dtype()));
  if (t.numel() != 1) ctx.Fail(name, " must be a scalar, got shape ", ShapeToString(t.shape()));
  return t.GetAsInt64(0);
}

double ScalarFloat(const Tensor& t, const char* name, const KernelContext& ctx) {
  if (t.numel() != 1) ctx.Fail(name, " must be a scalar, got shape ", ShapeToString(t.shape()));
  if (!IsFloatingPoint(t.dtype()) && !IsInteger(t.dtype()))
    ctx.Fail(name, " has unsupported type ", DataTypeName(t.dtype()));
  return t.GetAsDouble(0);
}

// ---- DFT ---------------------------------------------------------------------
class Dft final : public OpKernel {
 public:
  explicit Dft(const KernelInfo& info) : opset_(info.opset()) {
    inverse_ = info.attr_int("inverse", 0) != 0;
    onesided_ = info.attr_int("onesided", 0) != 0;
    if (opset_ < 20) axis_attr_ = info.attr_int("axis", 1);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t r = x.rank();
    if (r < 2) ctx.Fail("input must have rank >= 2 (signal dims + a trailing complex dim), got ", ShapeToString(x.shape()));
    const int64_t c = x.dim(r - 1);
    if (c != 1 && c != 2) ctx.Fail("the last input dimension must be 1 (real) or 2 (complex), got ", c);

    int64_t axis = opset_ < 20 ? axis_attr_ : -2;
    if (opset_ >= 20 && ctx.has_input(2)) axis = ScalarInt(ctx.input(2), "axis", ctx);
    if (axis < -r || axis > r - 2 || axis == -1)
      ctx.Fail("axis ", axis, " is out of range for rank ", r, " (accepted [-r, -2] and [0, r-2])");
    if (axis < 0) axis += r;

    const int64_t dim = x.dim(axis);
    const bool irfft = onesided_ && inverse_;
    int64_t n;
    if (ctx.has_input(1)) {
      n = ScalarInt(ctx.input(1), "dft_length", ctx);
      if (n < 1) ctx.Fail("dft_length must be positive, got ", n);
    } else {
      n = irfft ? 2 * (dim - 1) : dim;
      if (n < 1) ctx.Fail("the transform length derived from input dimension ", dim, " is ", n, "; it must be positive");
    }
    if (n > kMaxFftLength) ctx.Fail("dft_length ", n, " exceeds the supported maximum ", kMaxFftLength);
    const int64_t out_len = (onesided_ && !inverse_) ? n / 2 + 1 : n;
    const int64_t oc = irfft ? 1 : 2;
    Shape out_shape = x.shape();
    out_shape[static_cast<size_t>(axis)] = out_len;
    out_shape[static_cast<size_t>(r - 1)] = oc;

    const int64_t outer = SizeToDim(x.shape(), static_cast<size_t>(axis));
    const int64_t inner_dims = SizeFromDim(x.shape(), static_cast<size_t>(axis) + 1) / c;

    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
      if (y.numel() == 0) return;
      const T* px = x.data<T>();
      T* py = y.data<T>();
      const int64_t lines = outer * inner_dims;
      const FftPlan plan(n);
      const int64_t take = irfft ? std::min(dim, n / 2 + 1) : std::min(dim, n);
      const double scale = inverse_ ? 1.0 / static_cast<double>(n) : 1.0;
      ParallelFor(ctx.thread_pool(), lines, std::max<int64_t>(1, 4096 / std::max<int64_t>(1, n)),
                  [&](int64_t lb, int64_t le) {
                    std::vector<cd> buf(static_cast<size_t>(n));
                    std::vector<cd> scratch(static_cast<size_t>(plan.scratch_size()));
                    for (int64_t line = lb; line < le; ++line) {
                      const int64_t o = line / inner_dims, i = line % inner_dims;
                      std::fill(buf.begin(), buf.end(), cd(0, 0));
                      for (int64_t j = 0; j < take; ++j) {
                        const T* e = px + ((o * dim + j) * inner_dims + i) * c;
                        buf[static_cast<size_t>(j)] = cd(LoadD(e[0]), c == 2 ? LoadD(e[1]) : 0.0);
                      }
                      if (irfft) {
                        // Rebuild the full Hermitian spectrum from its first half.
                        for (int64_t k = n / 2 + 1; k < n; ++k)
                          buf[static_cast<size_t>(k)] = std::conj(buf[static_cast<size_t>(n - k)]);
                      }
                      plan.Run(buf.data(), inverse_, scratch.data());
                      for (int64_t k = 0; k < out_len; ++k) {
                        T* e = py + ((o * out_len + k) * inner_dims + i) * oc;
                        const cd v = buf[static_cast<size_t>(k)] * scale;
                        e[0] = StoreAs<T>(v.real());
                        if (oc == 2) e[1] = StoreAs<T>(v.imag());
                      }
                    }
                  });
    });
  }

 private:
  int64_t opset_;
  bool inverse_ = false;
  bool onesided_ = false;
  int64_t axis_attr_ = 1;
};

// ---- STFT --------------------------------------------------------------------
class Stft final : public OpKernel {
 public:
  explicit Stft(const KernelInfo& info) { onesided_ = info.attr_int("onesided", 1) != 0; }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t c;
    if (x.rank() == 3) {
      c = x.dim(2);
      if (c != 1 && c != 2) ctx.Fail("the last signal dimension must be 1 (real) or 2 (complex), got ", c);
    } else if (x.rank() == 2) {
      c = 1;  // [batch][signal_length] real signal
    } else {
      ctx.Fail("signal must have shape [batch][signal_length][1 or 2], got ", ShapeToString(x.shape()));
    }
    const int64_t batch = x.dim(0), len = x.dim(1);
    const int64_t step = ScalarInt(ctx.input(1), "frame_step", ctx);
    if (step < 1) ctx.Fail("frame_step must be positive, got ", step);
    const Tensor* window = ctx.optional_input(2);
    if (window != nullptr) {
      if (window->rank() != 1) ctx.Fail("window must be 1-D, got shape ", ShapeToString(window->shape()));
      if (window->dtype() != x.dtype())
        ctx.Fail("window type ", DataTypeName(window->dtype()), " differs from the signal type ", DataTypeName(x.dtype()));
    }
    int64_t frame_length;
    if (ctx.has_input(3)) {
      frame_length = ScalarInt(ctx.input(3), "frame_length", ctx);
      if (window != nullptr && window->dim(0) != frame_length)
        ctx.Fail("window length ", window->dim(0), " differs from frame_length ", frame_length);
    } else if (window != nullptr) {
      frame_length = window->dim(0);
    } else {
      ctx.Fail("either window or frame_length must be given");
    }
    if (frame_length < 1) ctx.Fail("frame_length must be positive, got ", frame_length);
    if (frame_length > kMaxFftLength)
      ctx.Fail("frame_length ", frame_length, " exceeds the supported maximum ", kMaxFftLength);
    if (frame_length > len)
      ctx.Fail("frame_length ", frame_length, " exceeds the signal length ", len);
    if (onesided_ && c == 2) ctx.Fail("onesided output is not possible for a complex signal; set onesided=0");
    const int64_t frames = (len - frame_length) / step + 1;
    const int64_t bins = onesided_ ? frame_length / 2 + 1 : frame_length;
    const Shape out_shape = {batch, frames, bins, 2};

    DispatchFloat(x.dtype(), ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out_shape);
      if (y.numel() == 0) return;
      const T* px = x.data<T>();
      T* py = y.data<T>();
      std::vector<double> w(static_cast<size_t>(frame_length), 1.0);
      if (window != nullptr)
        for (int64_t j = 0; j < frame_length; ++j) w[static_cast<size_t>(j)] = LoadD(window->data<T>()[j]);
      const FftPlan plan(frame_length);
      ParallelFor(ctx.thread_pool(), batch * frames, std::max<int64_t>(1, 4096 / frame_length),
                  [&](int64_t lb, int64_t le) {
                    std::vector<cd> buf(static_cast<size_t>(frame_length));
                    std::vector<cd> scratch(static_cast<size_t>(plan.scratch_size()));
                    for (int64_t line = lb; line < le; ++line) {
                      const int64_t b = line / frames, f = line % frames;
                      const T* src = px + (b * len + f * step) * c;
                      for (int64_t j = 0; j < frame_length; ++j) {
                        const double wj = w[static_cast<size_t>(j)];
                        buf[static_cast<size_t>(j)] =
                            cd(LoadD(src[j * c]) * wj, c == 2 ? LoadD(src[j * c + 1]) * wj : 0.0);
                      }
                      plan.Run(buf.data(), false, scratch.data());
                      T* dst = py + line * bins * 2;
                      for (int64_t k = 0; k < bins; ++k) {
                        dst[2 * k] = StoreAs<T>(buf[static_cast<size_t>(k)].real());
                        dst[2 * k + 1] = StoreAs<T>(buf[static_cast<size_t>(k)].imag());
                      }
                    }
                  });
    });
  }

 private:
  bool onesided_ = true;
};

// ---- window functions ------------------------------------------------------------
// Calls fn.template operator()<T>() for every numeric output type.
template <typename Fn>
void DispatchNumericOut(DataType dt, const KernelContext& ctx, Fn&& fn) {
  DispatchNumeric(dt, ctx, fn);
}

template <typename T>
T StoreNumeric(double v) {
  if constexpr (std::is_integral_v<T>) {
    // Truncation toward zero like a cast; values out of range saturate.
    if (std::isnan(v)) return T(0);
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::min();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return StoreAs<T>(v);
  }
}

DataType ParseOutputType(const KernelInfo& info) {
  const int64_t code = info.attr_int("output_datatype", 1);
  if (!IsKnownDataType(static_cast<int32_t>(code))) info.Fail("output_datatype ", code, " is not a data type");
  const DataType dt = static_cast<DataType>(code);
  const bool float_type = dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kFloat16 ||
                          dt == DataType::kBFloat16;
  if (!float_type && !(IsInteger(dt) && !IsSubByte(dt)))
    info.Fail("output_datatype ", DataTypeName(dt), " is not a numeric type");
  return dt;
}

// a0 - a1*cos(2*pi*n/N) + a2*cos(4*pi*n/N)
class CosineWindow final : public OpKernel {
 public:
  CosineWindow(const KernelInfo& info, double a0, double a1, double a2) : a0_(a0), a1_(a1), a2_(a2) {
    periodic_ = info.attr_int("periodic", 1) != 0;
    out_type_ = ParseOutputType(info);
  }

  void Compute(KernelContext& ctx) const override {
    const int64_t size = ScalarInt(ctx.input(0), "size", ctx);
    if (size < 0) ctx.Fail("size must be non-negative, got ", size);
    DispatchNumericOut(out_type_, ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, out_type_, {size});
      T* py = y.data<T>();
      const int64_t N = periodic_ ? size : size - 1;
      for (int64_t i = 0; i < size; ++i) {
        double v;
        if (N == 0) {
          v = 1.0;  // a one-point symmetric window
        } else {
          // Reduce the angle exactly: 2*pi*(i mod N)/N.
          const double t = 2.0 * std::numbers::pi * static_cast<double>(i % N) / static_cast<double>(N);
          const double t2 = 2.0 * std::numbers::pi * static_cast<double>((2 * i) % N) / static_cast<double>(N);
          v = a0_ - a1_ * std::cos(t) + a2_ * std::cos(t2);
        }
        py[i] = StoreNumeric<T>(v);
      }
    });
  }

 private:
  double a0_, a1_, a2_;
  bool periodic_ = true;
  DataType out_type_ = DataType::kFloat;
};

struct HannWindow final : OpKernel {
  explicit HannWindow(const KernelInfo& info) : w(info, 0.5, 0.5, 0.0) {}
  void Compute(KernelContext& ctx) const override { w.Compute(ctx); }
  CosineWindow w;
};
struct HammingWindow final : OpKernel {
  explicit HammingWindow(const KernelInfo& info) : w(info, 25.0 / 46.0, 21.0 / 46.0, 0.0) {}
  void Compute(KernelContext& ctx) const override { w.Compute(ctx); }
  CosineWindow w;
};
struct BlackmanWindow final : OpKernel {
  explicit BlackmanWindow(const KernelInfo& info) : w(info, 0.42, 0.5, 0.08) {}
  void Compute(KernelContext& ctx) const override { w.Compute(ctx); }
  CosineWindow w;
};

// ---- MelWeightMatrix ------------------------------------------------------------
// Python-style floor division of doubles.
double FloorDiv(double a, double b) {
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  double fl = std::floor(div);
  if (div - fl > 0.5) fl += 1.0;
  return fl;
}

class MelWeightMatrix final : public OpKernel {
 public:
  explicit MelWeightMatrix(const KernelInfo& info) { out_type_ = ParseOutputType(info); }

  void Compute(KernelContext& ctx) const override {
    const int64_t num_mel = ScalarInt(ctx.input(0), "num_mel_bins", ctx);
    const int64_t dft_length = ScalarInt(ctx.input(1), "dft_length", ctx);
    const int64_t sample_rate = ScalarInt(ctx.input(2), "sample_rate", ctx);
    const double lower = ScalarFloat(ctx.input(3), "lower_edge_hertz", ctx);
    const double upper = ScalarFloat(ctx.input(4), "upper_edge_hertz", ctx);
    if (num_mel < 0) ctx.Fail("num_mel_bins must be non-negative, got ", num_mel);
    if (dft_length < 1) ctx.Fail("dft_length must be positive, got ", dft_length);
    if (sample_rate < 1) ctx.Fail("sample_rate must be positive, got ", sample_rate);
    if (!(lower >= 0.0) || !(upper >= lower))
      ctx.Fail("need 0 <= lower_edge_hertz <= upper_edge_hertz, got ", lower, " and ", upper);
    const int64_t spec_bins = dft_length / 2 + 1;

    // Band edges: num_mel + 2 points on the mel scale starting at the lower
    // edge, mapped back to hertz and then to spectrogram bin indices. As in
    // the ONNX reference, the step divides the mel range by num_mel + 2 (so
    // the last edge stays one step below upper_edge_hertz).
    const double low_mel = 2595.0 * std::log10(1.0 + lower / 700.0);
    const double high_mel = 2595.0 * std::log10(1.0 + upper / 700.0);
    const double mel_step = (high_mel - low_mel) / static_cast<double>(num_mel + 2);
    std::vector<int64_t> edge(static_cast<size_t>(num_mel + 2));
    for (int64_t i = 0; i < num_mel + 2; ++i) {
      const double mel = static_cast<double>(i) * mel_step + low_mel;
      const double hz = 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
      const double b = FloorDiv(static_cast<double>(dft_length + 1) * hz, static_cast<double>(sample_rate));
      edge[static_cast<size_t>(i)] = static_cast<int64_t>(std::min(b, 9.0e18));
    }
    std::vector<double> w(static_cast<size_t>(spec_bins * num_mel), 0.0);
    auto set = [&](int64_t row, int64_t col, double v) {
      if (row >= 0 && row < spec_bins) w[static_cast<size_t>(row * num_mel + col)] = v;
    };
    for (int64_t i = 0; i < num_mel; ++i) {
      const int64_t lo = edge[static_cast<size_t>(i)], mid = edge[static_cast<size_t>(i + 1)],
                    hi = edge[static_cast<size_t>(i + 2)];
      if (mid == lo) {
        set(mid, i, 1.0);
      } else {
        for (int64_t j = lo; j <= mid && j < spec_bins; ++j)
          set(j, i, static_cast<double>(j - lo) / static_cast<double>(mid - lo));
      }
      if (hi > mid)
        for (int64_t j = mid; j < hi && j < spec_bins; ++j)
          set(j, i, static_cast<double>(hi - j) / static_cast<double>(hi - mid));
    }
    DispatchNumericOut(out_type_, ctx, [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, out_type_, {spec_bins, num_mel});
      T* py = y.data<T>();
      for (size_t k = 0; k < w.size(); ++k) py[k] = StoreNumeric<T>(w[k]);
    });
  }

 private:
  DataType out_type_ = DataType::kFloat;
};

}  // namespace

std::vector<KernelRow> SignalKernels() {
  const std::vector<DataType> ints = {DataType::kInt32, DataType::kInt64};
  return {
      {"ai.onnx", "DFT", 17, 19, types::Floats(), Make<Dft>()},
      {"ai.onnx", "DFT", 20, kMaxOnnxOpset, types::Floats(), Make<Dft>()},
      {"ai.onnx", "STFT", 17, kMaxOnnxOpset, types::Floats(), Make<Stft>()},
      {"ai.onnx", "HannWindow", 17, kMaxOnnxOpset, ints, Make<HannWindow>()},
      {"ai.onnx", "HammingWindow", 17, kMaxOnnxOpset, ints, Make<HammingWindow>()},
      {"ai.onnx", "BlackmanWindow", 17, kMaxOnnxOpset, ints, Make<BlackmanWindow>()},
      {"ai.onnx", "MelWeightMatrix", 17, kMaxOnnxOpset, ints, Make<MelWeightMatrix>()},
  };
}

}  // namespace tessera::cpu
