// Shared pieces of the ai.onnx.ml kernels (ml.cc, ml_trees.cc, ml_linear.cc):
// score post-transforms, numeric input reading, class labels.
#pragma once

#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/ops/kernel_table.h"
#include "tessera/providers/common/kernel_util.h"

namespace tessera::cpu::ml {

// A vocabulary given as integers or as strings (exactly one of the two
// attributes must be set), with each entry's position.
class Vocabulary {
 public:
  Vocabulary(const KernelInfo& info, const char* int_attr, const char* string_attr) {
    auto ints = info.attr_ints(int_attr, {});
    auto strs = info.attr_strings(string_attr, {});
    if (ints.empty() == strs.empty()) info.Fail("exactly one of ", int_attr, " and ", string_attr, " must be set");
    strings_ = !strs.empty();
    size_ = static_cast<int64_t>(strings_ ? strs.size() : ints.size());
    for (int64_t i = 0; i < size_; ++i) {
      if (strings_)
        by_string_.emplace(strs[static_cast<size_t>(i)], i);
      else
        by_int_.emplace(ints[static_cast<size_t>(i)], i);
    }
  }
  bool strings() const { return strings_; }
  int64_t size() const { return size_; }
  // Position of a key, or -1 when it is not in the vocabulary.
  int64_t Find(const std::string& key) const {
    auto it = by_string_.find(key);
    return it == by_string_.end() ? -1 : it->second;
  }
  int64_t Find(int64_t key) const {
    auto it = by_int_.find(key);
    return it == by_int_.end() ? -1 : it->second;
  }

 private:
  bool strings_ = false;
  int64_t size_ = 0;
  std::unordered_map<std::string, int64_t> by_string_;
  std::unordered_map<int64_t, int64_t> by_int_;
};

enum class PostTransform { kNone = 0, kSoftmax = 1, kLogistic = 2, kSoftmaxZero = 3, kProbit = 4 };

inline PostTransform ParsePostTransform(const std::string& s, const KernelInfo& info) {
  if (s == "NONE") return PostTransform::kNone;
  if (s == "SOFTMAX") return PostTransform::kSoftmax;
  if (s == "LOGISTIC") return PostTransform::kLogistic;
  if (s == "SOFTMAX_ZERO") return PostTransform::kSoftmaxZero;
  if (s == "PROBIT") return PostTransform::kProbit;
  info.Fail("post_transform must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT, got '", s, "'");
}

// Inverse error function: a rational first guess refined by Newton steps on std::erf.
inline double ErfInv(double y) {
  if (y <= -1.0) return -INFINITY;
  if (y >= 1.0) return INFINITY;
  double w = -std::log((1.0 - y) * (1.0 + y));
  double x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * y;
  }
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int k = 0; k < 2; ++k) {
    double err = std::erf(x) - y;
    x -= err / (two_over_sqrt_pi * std::exp(-x * x));
  }
  return x;
}

inline double Probit(double p) { return std::sqrt(2.0) * ErfInv(2.0 * p - 1.0); }
inline double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Applies the transform in place to one row of scores.
inline void ApplyPostTransform(PostTransform t, double* s, int64_t n) {
  switch (t) {
    case PostTransform::kNone: return;
    case PostTransform::kLogistic:
      for (int64_t i = 0; i < n; ++i) s[i] = Sigmoid(s[i]);
      return;
    case PostTransform::kProbit:
      for (int64_t i = 0; i < n; ++i) s[i] = Probit(s[i]);
      return;
    case PostTransform::kSoftmax: {
      if (n == 0) return;
      double m = s[0];
      for (int64_t i = 1; i < n; ++i) m = std::max(m, s[i]);
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += (s[i] = std::exp(s[i] - m));
      for (int64_t i = 0; i < n; ++i) s[i] /= sum;
      return;
    }
    case PostTransform::kSoftmaxZero: {
      // Softmax over the non-zero scores; zeros stay zero.
      double m = -INFINITY;
      for (int64_t i = 0; i < n; ++i)
        if (s[i] != 0) m = std::max(m, s[i]);
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (s[i] == 0) continue;
        sum += (s[i] = std::exp(s[i] - m));
      }
      if (sum > 0)
        for (int64_t i = 0; i < n; ++i) s[i] /= sum;
      return;
    }
  }
}

// Reads a numeric tensor (float, double, float16, bfloat16, any int) as doubles.
inline std::vector<double> ReadAsDouble(const Tensor& t, const KernelContext& ctx) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  if (t.dtype() == DataType::kString || t.dtype() == DataType::kBool)
    ctx.Fail("expected a numeric input, got ", DataTypeName(t.dtype()));
  DispatchNumeric(t.dtype(), ctx, [&]<typename T>() {
    const T* p = t.data<T>();
    for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = static_cast<double>(Load(p[i]));
  });
  return v;
}

// [N, C] or [C] (treated as [1, C]) inputs of the classifiers and regressors.
inline void RowsCols(const Tensor& x, const KernelContext& ctx, int64_t* rows, int64_t* cols) {
  if (x.rank() == 0) {
    *rows = 1;
    *cols = 1;
  } else if (x.rank() == 1) {
    *rows = 1;
    *cols = x.dim(0);
  } else if (x.rank() == 2) {
    *rows = x.dim(0);
    *cols = x.dim(1);
  } else {
    ctx.Fail("X must be [N, C] or [C], got ", ShapeToString(x.shape()));
  }
}

// X ([N, C] or [C]) as doubles for a model of exactly `features` columns;
// `expecter` ("the model expects") finishes the error. Sets *rows.
inline std::vector<double> ReadFeatureRows(const Tensor& x, const KernelContext& ctx, int64_t features,
                                           const char* expecter, int64_t* rows) {
  int64_t cols;
  RowsCols(x, ctx, rows, &cols);
  if (cols != features) ctx.Fail("X has ", cols, " features, ", expecter, " ", features);
  return ReadAsDouble(x, ctx);
}

// Class labels: classlabels_ints / classlabels_int64s or classlabels_strings.
struct ClassLabels {
  bool strings = false;
  std::vector<int64_t> ints;
  std::vector<std::string> strs;
  int64_t size() const { return static_cast<int64_t>(strings ? strs.size() : ints.size()); }

  static ClassLabels Parse(const KernelInfo& info, const std::string& ints_name) {
    ClassLabels l;
    bool has_s = info.has_attr("classlabels_strings") && !info.attr_strings("classlabels_strings").empty();
    bool has_i = info.has_attr(ints_name) && !info.attr_ints(ints_name).empty();
    if (has_s && has_i) info.Fail("only one of classlabels_strings and ", ints_name, " may be set");
    if (has_s) {
      l.strings = true;
      l.strs = info.attr_strings("classlabels_strings");
    } else if (has_i) {
      l.ints = info.attr_ints(ints_name);
    }
    return l;
  }

  // Allocates output 0 ([rows]) with the label type.
  Tensor& Allocate(KernelContext& ctx, int64_t rows) const {
    return ctx.allocate_output(0, strings ? DataType::kString : DataType::kInt64, Shape{rows});
  }
  void Write(Tensor& out, int64_t row, int64_t cls) const {
    if (strings)
      out.data<std::string>()[row] = strs[static_cast<size_t>(cls)];
    else
      out.data<int64_t>()[row] = ints[static_cast<size_t>(cls)];
  }
};

// Row lists of the other ml_*.cc files, concatenated by MlKernels() in ml.cc.
std::vector<KernelRow> MlTreeKernels();    // ml_trees.cc
std::vector<KernelRow> MlLinearKernels();  // ml_linear.cc

inline int64_t ArgMax(const double* s, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (s[i] > s[best]) best = i;
  return best;
}

}  // namespace tessera::cpu::ml
