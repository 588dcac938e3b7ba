// Random generators: RandomNormal/Uniform (+Like), Multinomial, Bernoulli.
// Every call makes its own engine: seeded from the `seed` attribute when
// given (so a seeded node is deterministic), otherwise from a fresh seed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

using Engine = std::mt19937_64;

// Seed attribute (a float) -> engine seed; nullopt draws a fresh one per call.
std::optional<uint64_t> ReadSeed(const KernelInfo& info) {
  if (!info.has_attr("seed")) return std::nullopt;
  float s = info.attr_float("seed");
  if (!std::isfinite(s)) info.Fail("seed must be finite, got ", s);
  // Integral seeds map to themselves; fractional ones keep their bit pattern
  // so that 1.5 and 1.0 give different streams.
  if (s == std::floor(s) && std::fabs(s) < 9.0e15f) return static_cast<uint64_t>(static_cast<int64_t>(s));
  uint32_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  return (uint64_t{1} << 63) | bits;
}

Engine MakeEngine(const std::optional<uint64_t>& seed) {
  if (seed) {
    std::seed_seq seq{static_cast<uint32_t>(*seed), static_cast<uint32_t>(*seed >> 32)};
    return Engine(seq);
  }
  static std::atomic<uint64_t> counter{0};
  uint64_t c = counter.fetch_add(1, std::memory_order_relaxed);
  uint64_t t = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  uint32_t rd = 0;
  try {
    std::random_device dev;
    rd = dev();
  } catch (...) {
    rd = 0x9e3779b9u;  // no entropy source: time and counter still vary per call
  }
  std::seed_seq seq{rd, static_cast<uint32_t>(t), static_cast<uint32_t>(t >> 32), static_cast<uint32_t>(c),
                    static_cast<uint32_t>(c >> 32)};
  return Engine(seq);
}

bool IsOutputFloat(DataType dt) {
  return dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kFloat16 || dt == DataType::kBFloat16;
}

// dtype attribute of the generators: a float type, or unset (nullopt).
std::optional<DataType> ReadFloatDType(const KernelInfo& info, bool required_default_float) {
  if (!info.has_attr("dtype")) {
    if (required_default_float) return DataType::kFloat;
    return std::nullopt;
  }
  int64_t code = info.attr_int("dtype");
  if (!IsKnownDataType(static_cast<int32_t>(code)) || !IsOutputFloat(static_cast<DataType>(code)))
    info.Fail("dtype must be float, double, float16 or bfloat16, got ", code);
  return static_cast<DataType>(code);
}

// Fills `out` with draws from a normal or uniform distribution.
void FillRandom(Tensor& out, bool normal, double a, double b, Engine& eng, const KernelContext& ctx) {
  const int64_t n = out.numel();
  switch (out.dtype()) {
    case DataType::kDouble: {
      double* p = out.data<double>();
      if (normal) {
        std::normal_distribution<double> d(a, b);
        for (int64_t i = 0; i < n; ++i) p[i] = d(eng);
      } else {
        std::uniform_real_distribution<double> d(a, b);
        for (int64_t i = 0; i < n; ++i) p[i] = d(eng);
      }
      return;
    }
    case DataType::kFloat:
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      DispatchFloat(out.dtype(), ctx, [&]<typename T>() {
        T* p = out.data<T>();
        if (normal) {
          std::normal_distribution<float> d(static_cast<float>(a), static_cast<float>(b));
          for (int64_t i = 0; i < n; ++i) p[i] = StoreAs<T>(d(eng));
        } else {
          std::uniform_real_distribution<float> d(static_cast<float>(a), static_cast<float>(b));
          for (int64_t i = 0; i < n; ++i) p[i] = StoreAs<T>(d(eng));
        }
      });
      return;
    }
    default: ctx.Fail("output type ", DataTypeName(out.dtype()), " is not a float type");
  }
}

// The distribution's parameters: mean and scale (normal) or low and high
// (uniform), checked.
void ReadDistribution(const KernelInfo& info, bool normal, double& a, double& b) {
  if (normal) {
    a = info.attr_float("mean", 0.0f);
    b = info.attr_float("scale", 1.0f);
    if (!(b > 0.0) || !std::isfinite(b)) info.Fail("scale must be a positive finite number, got ", b);
  } else {
    a = info.attr_float("low", 0.0f);
    b = info.attr_float("high", 1.0f);
    if (!(a <= b) || !std::isfinite(a) || !std::isfinite(b))
      info.Fail("low (", a, ") must not exceed high (", b, ") and both must be finite");
  }
}

// RandomNormal / RandomUniform: shape from the attribute.
class RandomGenerator final : public OpKernel {
 public:
  RandomGenerator(const KernelInfo& info, bool normal) : normal_(normal), seed_(ReadSeed(info)) {
    dtype_ = *ReadFloatDType(info, true);
    ReadDistribution(info, normal, a_, b_);
    shape_ = info.attr_ints("shape");
    for (int64_t d : shape_)
      if (d < 0) info.Fail("shape ", ShapeToString(shape_), " has a negative dimension");
  }

  void Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.allocate_output(0, dtype_, shape_);
    Engine eng = MakeEngine(seed_);
    FillRandom(out, normal_, a_, b_, eng, ctx);
  }

 private:
  bool normal_;
  std::optional<uint64_t> seed_;
  DataType dtype_ = DataType::kFloat;
  double a_ = 0, b_ = 1;
  Shape shape_;
};

// RandomNormal (normal = true) and RandomUniform.
KernelFactory MakeRandomGenerator(bool normal) {
  return [normal](const KernelInfo& info) -> std::unique_ptr<OpKernel> {
    return std::make_unique<RandomGenerator>(info, normal);
  };
}

// RandomNormalLike / RandomUniformLike: shape (and by default type) of the input.
template <bool kNormal>
class RandomLike final : public OpKernel {
 public:
  explicit RandomLike(const KernelInfo& info) : seed_(ReadSeed(info)), dtype_(ReadFloatDType(info, false)) {
    ReadDistribution(info, kNormal, a_, b_);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    DataType dt = dtype_ ? *dtype_ : in.dtype();
    if (!IsOutputFloat(dt))
      ctx.Fail("input type ", DataTypeName(in.dtype()),
               " is not a float type; set the dtype attribute to choose the output type");
    Tensor& out = ctx.allocate_output(0, dt, in.shape());
    Engine eng = MakeEngine(seed_);
    FillRandom(out, kNormal, a_, b_, eng, ctx);
  }

 private:
  std::optional<uint64_t> seed_;
  std::optional<DataType> dtype_;
  double a_ = 0, b_ = 1;
};

// Multinomial: samples class indices from rows of unnormalized log-probabilities.
class Multinomial final : public OpKernel {
 public:
  explicit Multinomial(const KernelInfo& info) : seed_(ReadSeed(info)) {
    int64_t code = info.attr_int("dtype", static_cast<int64_t>(DataType::kInt32));
    if (code != static_cast<int64_t>(DataType::kInt32) && code != static_cast<int64_t>(DataType::kInt64))
      info.Fail("dtype must be int32 (6) or int64 (7), got ", code);
    dtype_ = static_cast<DataType>(code);
    samples_ = info.attr_int("sample_size", 1);
    if (samples_ < 0) info.Fail("sample_size must be non-negative, got ", samples_);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    if (in.rank() != 2) ctx.Fail("input must be 2D [batch_size, class_size], got ", in.Describe());
    const int64_t batch = in.dim(0), classes = in.dim(1);
    if (classes == 0 && samples_ > 0 && batch > 0) ctx.Fail("cannot sample from zero classes");
    std::vector<double> logits(static_cast<size_t>(in.numel()));
    DispatchFloat(in.dtype(), ctx, [&]<typename T>() {
      const T* p = in.data<T>();
      for (int64_t i = 0; i < in.numel(); ++i) logits[static_cast<size_t>(i)] = static_cast<double>(Load(p[i]));
    });
    Tensor& out = ctx.allocate_output(0, dtype_, {batch, samples_});
    Engine eng = MakeEngine(seed_);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    std::vector<double> cdf(static_cast<size_t>(classes));
    for (int64_t b = 0; b < batch; ++b) {
      const double* row = logits.data() + b * classes;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < classes; ++c) {
        if (std::isnan(row[c])) ctx.Fail("input row ", b, " contains NaN");
        mx = std::max(mx, row[c]);
      }
      if (samples_ > 0 && std::isinf(mx) && mx < 0) ctx.Fail("input row ", b, " has no class with finite probability");
      if (std::isinf(mx) && mx > 0) ctx.Fail("input row ", b, " contains +inf");
      double total = 0;
      for (int64_t c = 0; c < classes; ++c) {
        total += std::exp(row[c] - mx);
        cdf[static_cast<size_t>(c)] = total;
      }
      for (int64_t s = 0; s < samples_; ++s) {
        double u = uni(eng) * total;
        auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
        int64_t idx = std::min<int64_t>(it - cdf.begin(), classes - 1);
        // Skip zero-probability classes a rounding at the end might select.
        while (idx > 0 && cdf[static_cast<size_t>(idx)] == cdf[static_cast<size_t>(idx - 1)]) --idx;
        if (dtype_ == DataType::kInt32)
          out.data<int32_t>()[b * samples_ + s] = static_cast<int32_t>(idx);
        else
          out.data<int64_t>()[b * samples_ + s] = idx;
      }
    }
  }

 private:
  std::optional<uint64_t> seed_;
  DataType dtype_ = DataType::kInt32;
  int64_t samples_ = 1;
};

// Bernoulli: output[i] = 1 with probability input[i], else 0.
class Bernoulli final : public OpKernel {
 public:
  explicit Bernoulli(const KernelInfo& info) : seed_(ReadSeed(info)) {
    if (info.has_attr("dtype")) {
      int64_t code = info.attr_int("dtype");
      DataType dt = static_cast<DataType>(code);
      if (!IsKnownDataType(static_cast<int32_t>(code)) ||
          !(IsOutputFloat(dt) || dt == DataType::kBool || (IsInteger(dt) && !IsSubByte(dt))))
        info.Fail("dtype must be a numeric or bool type, got ", code);
      dtype_ = dt;
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    std::vector<double> p(static_cast<size_t>(in.numel()));
    DispatchFloat(in.dtype(), ctx, [&]<typename T>() {
      const T* ip = in.data<T>();
      for (int64_t i = 0; i < in.numel(); ++i) p[static_cast<size_t>(i)] = static_cast<double>(Load(ip[i]));
    });
    for (size_t i = 0; i < p.size(); ++i)
      if (!(p[i] >= 0.0 && p[i] <= 1.0)) ctx.Fail("input value ", p[i], " at ", i, " is not a probability in [0, 1]");
    DataType dt = dtype_ ? *dtype_ : in.dtype();
    Tensor& out = ctx.allocate_output(0, dt, in.shape());
    Engine eng = MakeEngine(seed_);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    auto fill = [&]<typename T>() {
      T* op = out.data<T>();
      for (size_t i = 0; i < p.size(); ++i) op[i] = StoreAs<T>(uni(eng) < p[i] ? 1.0f : 0.0f);
    };
    if (dt == DataType::kBool) {
      bool* op = out.data<bool>();
      for (size_t i = 0; i < p.size(); ++i) op[i] = uni(eng) < p[i];
    } else {
      DispatchNumeric(dt, ctx, fill);
    }
  }

 private:
  std::optional<uint64_t> seed_;
  std::optional<DataType> dtype_;
};

}  // namespace

std::vector<KernelRow> RandomKernels() {
  return {
      {kOnnxDomain, "RandomNormal", 1, kMaxOnnxOpset, {}, MakeRandomGenerator(true)},
      {kOnnxDomain, "RandomUniform", 1, kMaxOnnxOpset, {}, MakeRandomGenerator(false)},
      {kOnnxDomain, "RandomNormalLike", 1, kMaxOnnxOpset, {}, Make<RandomLike<true>>()},
      {kOnnxDomain, "RandomUniformLike", 1, kMaxOnnxOpset, {}, Make<RandomLike<false>>()},
      {kOnnxDomain, "Multinomial", 7, kMaxOnnxOpset, types::Floats(), Make<Multinomial>()},
      {kOnnxDomain, "Bernoulli", 15, kMaxOnnxOpset, types::Floats(), Make<Bernoulli>()},
  };
}

}  // namespace tessera::cpu
