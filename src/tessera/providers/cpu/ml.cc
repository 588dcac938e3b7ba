// ai.onnx.ml kernels: encoders and preprocessing (LabelEncoder, CategoryMapper,
// OneHotEncoder, Binarizer, Scaler, Normalizer, Imputer, ArrayFeatureExtractor,
// FeatureVectorizer) and the map/sequence ones (DictVectorizer, ZipMap, CastMap).
// The tree ensembles live in ml_trees.cc, the linear and SVM models in
// ml_linear.cc; MlKernels() returns every ai.onnx.ml row.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"
#include "tessera/providers/cpu/ml_common.h"

namespace tessera::cpu {
namespace {

using ml::ReadAsDouble;
using ml::Vocabulary;

bool IsFloatType(DataType t) {
  return t == DataType::kFloat || t == DataType::kDouble || t == DataType::kFloat16 || t == DataType::kBFloat16;
}

// Output 0, of x's type and shape, with y[i] = fn(i, x[i]); fn is generic
// over the numeric element type.
template <typename Fn>
void MapElements(KernelContext& ctx, const Tensor& x, Fn&& fn) {
  Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
  DispatchNumeric(x.dtype(), ctx, [&]<typename T>() {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = fn(i, in[i]);
  });
}

// Hash key of a numeric element: the integer value for integer types, the bit
// pattern of the value as a double for float types (all NaNs alike).
int64_t NumericKey(double v) {
  if (std::isnan(v)) v = std::numeric_limits<double>::quiet_NaN();
  int64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}
int64_t NumericKey(const Tensor& t, int64_t i) {
  return IsFloatType(t.dtype()) ? NumericKey(t.GetAsDouble(i)) : t.GetAsInt64(i);
}

// Copies element `si` of src into element `di` of dst (same element type).
void CopyElement(const Tensor& src, int64_t si, Tensor& dst, int64_t di) {
  if (src.dtype() == DataType::kString) {
    dst.data<std::string>()[di] = src.data<std::string>()[si];
    return;
  }
  size_t es = static_cast<size_t>(ElementBits(src.dtype()) / 8);
  std::memcpy(static_cast<char*>(dst.raw_data()) + di * es, static_cast<const char*>(src.raw_data()) + si * es, es);
}

// ---- LabelEncoder ----------------------------------------------------------------------

// Opset 1: classes_strings maps strings to their index and indices to strings.
class LabelEncoderV1 final : public OpKernel {
 public:
  explicit LabelEncoderV1(const KernelInfo& info)
      : classes_(info.attr_strings("classes_strings", {})),
        default_int_(info.attr_int("default_int64", -1)),
        default_str_(info.attr_string("default_string", "_Unused")) {
    for (size_t i = 0; i < classes_.size(); ++i) index_.emplace(classes_[i], static_cast<int64_t>(i));
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == DataType::kString) {
      Tensor& y = ctx.allocate_output(0, DataType::kInt64, x.shape());
      const std::string* in = x.data<std::string>();
      int64_t* out = y.data<int64_t>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = index_.find(in[i]);
        out[i] = it == index_.end() ? default_int_ : it->second;
      }
    } else if (x.dtype() == DataType::kInt64) {
      Tensor& y = ctx.allocate_output(0, DataType::kString, x.shape());
      const int64_t* in = x.data<int64_t>();
      std::string* out = y.data<std::string>();
      int64_t n = static_cast<int64_t>(classes_.size());
      for (int64_t i = 0; i < x.numel(); ++i)
        out[i] = (in[i] >= 0 && in[i] < n) ? classes_[static_cast<size_t>(in[i])] : default_str_;
    } else {
      ctx.Fail("X must be string or int64, got ", DataTypeName(x.dtype()));
    }
  }

 private:
  std::vector<std::string> classes_;
  int64_t default_int_;
  std::string default_str_;
  std::unordered_map<std::string, int64_t> index_;
};

// Opsets 2 and 4: keys_* -> values_* with a default of the values' type.
class LabelEncoder final : public OpKernel {
 public:
  explicit LabelEncoder(const KernelInfo& info) {
    bool v4 = info.opset() >= 4;
    keys_ = ReadList(info, "keys", v4);
    values_ = ReadList(info, "values", v4);
    if (keys_.numel() != values_.numel())
      info.Fail("keys and values must have the same length (", keys_.numel(), " vs ", values_.numel(), ")");
    DataType vt = values_.dtype();
    default_ = Tensor(vt, Shape{});
    if (v4 && info.has_attr("default_tensor")) {
      const Tensor& d = info.attr_tensor("default_tensor");
      if (d.dtype() != vt || d.numel() < 1)
        info.Fail("default_tensor must hold one ", DataTypeName(vt), " value, got ", d.Describe());
      CopyElement(d, 0, default_, 0);
    } else if (vt == DataType::kString) {
      default_.data<std::string>()[0] = info.attr_string("default_string", "_Unused");
    } else if (vt == DataType::kFloat) {
      default_.data<float>()[0] = info.attr_float("default_float", -0.0f);
    } else if (vt == DataType::kDouble) {
      default_.data<double>()[0] = info.attr_float("default_float", -0.0f);
    } else {
      int64_t d = info.attr_int("default_int64", -1);
      switch (vt) {
        case DataType::kInt64: default_.data<int64_t>()[0] = d; break;
        case DataType::kInt32: default_.data<int32_t>()[0] = static_cast<int32_t>(d); break;
        case DataType::kInt16: default_.data<int16_t>()[0] = static_cast<int16_t>(d); break;
        default: info.Fail("values of type ", DataTypeName(vt), " are not supported");
      }
    }
    for (int64_t i = 0; i < keys_.numel(); ++i) {  // the last repeated key wins
      if (keys_.dtype() == DataType::kString)
        string_index_[keys_.data<std::string>()[i]] = i;
      else
        numeric_index_[NumericKey(keys_, i)] = i;
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != keys_.dtype())
      ctx.Fail("X has element type ", DataTypeName(x.dtype()), " but the keys are ", DataTypeName(keys_.dtype()));
    Tensor& y = ctx.allocate_output(0, values_.dtype(), x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t found = -1;
      if (x.dtype() == DataType::kString) {
        auto it = string_index_.find(x.data<std::string>()[i]);
        if (it != string_index_.end()) found = it->second;
      } else {
        auto it = numeric_index_.find(NumericKey(x, i));
        if (it != numeric_index_.end()) found = it->second;
      }
      if (found >= 0)
        CopyElement(values_, found, y, i);
      else
        CopyElement(default_, 0, y, i);
    }
  }

 private:
  // keys_/values_ from the *_strings, *_int64s, *_floats or (opset 4) *_tensor attribute.
  static Tensor ReadList(const KernelInfo& info, const std::string& prefix, bool v4) {
    std::vector<Tensor> found;
    if (info.has_attr(prefix + "_strings")) {
      auto v = info.attr_strings(prefix + "_strings");
      found.push_back(Tensor::FromVector<std::string>(v, {static_cast<int64_t>(v.size())}));
    }
    if (info.has_attr(prefix + "_int64s")) {
      auto v = info.attr_ints(prefix + "_int64s");
      found.push_back(Tensor::FromVector<int64_t>(v, {static_cast<int64_t>(v.size())}));
    }
    if (info.has_attr(prefix + "_floats")) {
      auto v = info.attr_floats(prefix + "_floats");
      found.push_back(Tensor::FromVector<float>(v, {static_cast<int64_t>(v.size())}));
    }
    if (v4 && info.has_attr(prefix + "_tensor")) {
      const Tensor& t = info.attr_tensor(prefix + "_tensor");
      switch (t.dtype()) {
        case DataType::kString:
        case DataType::kInt64:
        case DataType::kInt32:
        case DataType::kInt16:
        case DataType::kFloat:
        case DataType::kDouble: break;
        default: info.Fail(prefix, "_tensor of type ", DataTypeName(t.dtype()), " is not supported");
      }
      found.push_back(t.Reshaped({t.numel()}));
    }
    if (found.size() != 1) info.Fail("exactly one of the ", prefix, "_* attributes must be set");
    return found[0];
  }

  Tensor keys_, values_, default_;
  std::unordered_map<std::string, int64_t> string_index_;
  std::unordered_map<int64_t, int64_t> numeric_index_;
};

// ---- CategoryMapper -----------------------------------------------------------------------

class CategoryMapper final : public OpKernel {
 public:
  explicit CategoryMapper(const KernelInfo& info)
      : default_int_(info.attr_int("default_int64", -1)),
        default_str_(info.attr_string("default_string", "_Unused")) {
    auto ints = info.attr_ints("cats_int64s", {});
    auto strs = info.attr_strings("cats_strings", {});
    if (ints.size() != strs.size()) info.Fail("cats_int64s and cats_strings must have the same length");
    for (size_t i = 0; i < ints.size(); ++i) {
      to_int_.emplace(strs[i], ints[i]);
      to_str_.emplace(ints[i], strs[i]);
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == DataType::kString) {
      Tensor& y = ctx.allocate_output(0, DataType::kInt64, x.shape());
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = to_int_.find(x.data<std::string>()[i]);
        y.data<int64_t>()[i] = it == to_int_.end() ? default_int_ : it->second;
      }
    } else if (x.dtype() == DataType::kInt64) {
      Tensor& y = ctx.allocate_output(0, DataType::kString, x.shape());
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = to_str_.find(x.data<int64_t>()[i]);
        y.data<std::string>()[i] = it == to_str_.end() ? default_str_ : it->second;
      }
    } else {
      ctx.Fail("X must be string or int64, got ", DataTypeName(x.dtype()));
    }
  }

 private:
  int64_t default_int_;
  std::string default_str_;
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, std::string> to_str_;
};

// ---- OneHotEncoder -----------------------------------------------------------------------

class OneHotEncoder final : public OpKernel {
 public:
  explicit OneHotEncoder(const KernelInfo& info)
      : zeros_(info.attr_int("zeros", 1) != 0), vocab_(info, "cats_int64s", "cats_strings") {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if ((x.dtype() == DataType::kString) != vocab_.strings())
      ctx.Fail("X of type ", DataTypeName(x.dtype()), " does not match the ", vocab_.strings() ? "string" : "integer",
               " categories");
    Shape shape = x.shape();
    shape.push_back(vocab_.size());
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, shape);
    float* out = y.data<float>();
    std::fill(out, out + y.numel(), 0.0f);
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t idx = -1;
      if (vocab_.strings()) {
        idx = vocab_.Find(x.data<std::string>()[i]);
      } else {
        double v = IsFloatType(x.dtype()) ? x.GetAsDouble(i) : static_cast<double>(x.GetAsInt64(i));
        if (std::isfinite(v)) {
          int64_t k = IsFloatType(x.dtype()) ? static_cast<int64_t>(v) : x.GetAsInt64(i);
          idx = vocab_.Find(k);
        }
      }
      if (idx < 0) {
        if (!zeros_) ctx.Fail("element ", i, " is not one of the categories (and zeros = 0)");
        continue;
      }
      out[i * vocab_.size() + idx] = 1.0f;
    }
  }

 private:
  bool zeros_;
  Vocabulary vocab_;
};

// ---- Binarizer ----------------------------------------------------------------------------

class Binarizer final : public OpKernel {
 public:
  explicit Binarizer(const KernelInfo& info) : threshold_(info.attr_float("threshold", 0.0f)) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    MapElements(ctx, x, [&]<typename T>(int64_t, T v) {
      const bool above = static_cast<double>(Load(v)) > threshold_;
      return StoreAs<T>(static_cast<typename cpu::Compute<T>::type>(above ? 1 : 0));
    });
  }

 private:
  double threshold_;
};

// ---- Scaler ----------------------------------------------------------------------------------

class Scaler final : public OpKernel {
 public:
  explicit Scaler(const KernelInfo& info) {
    auto o = info.attr_floats("offset", {});
    auto s = info.attr_floats("scale", {});
    offset_.assign(o.begin(), o.end());
    scale_.assign(s.begin(), s.end());
    if (offset_.empty()) offset_.push_back(0.0);
    if (scale_.empty()) scale_.push_back(1.0);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<double> xv = ReadAsDouble(x, ctx);
    int64_t f = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    for (const auto* v : {&offset_, &scale_})
      if (v->size() != 1 && static_cast<int64_t>(v->size()) != f)
        ctx.Fail("offset/scale have ", v->size(), " entries; X has ", f, " features");
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, x.shape());
    float* out = y.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      size_t j = static_cast<size_t>(f > 0 ? i % f : 0);
      double o = offset_.size() == 1 ? offset_[0] : offset_[j];
      double s = scale_.size() == 1 ? scale_[0] : scale_[j];
      out[i] = static_cast<float>((xv[static_cast<size_t>(i)] - o) * s);
    }
  }

 private:
  std::vector<double> offset_, scale_;
};

// ---- Normalizer ------------------------------------------------------------------------------

class Normalizer final : public OpKernel {
 public:
  explicit Normalizer(const KernelInfo& info) {
    std::string n = info.attr_string("norm", "MAX");
    if (n == "MAX")
      norm_ = 0;
    else if (n == "L1")
      norm_ = 1;
    else if (n == "L2")
      norm_ = 2;
    else
      info.Fail("norm must be MAX, L1 or L2, got '", n, "'");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t rows, cols;
    ml::RowsCols(x, ctx, &rows, &cols);
    std::vector<double> xv = ReadAsDouble(x, ctx);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, x.shape());
    float* out = y.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      const double* in = xv.data() + r * cols;
      double d = 0;
      if (norm_ == 0) {
        d = cols > 0 ? in[0] : 0;
        for (int64_t c = 1; c < cols; ++c) d = std::max(d, in[c]);
      } else if (norm_ == 1) {
        for (int64_t c = 0; c < cols; ++c) d += std::fabs(in[c]);
      } else {
        for (int64_t c = 0; c < cols; ++c) d += in[c] * in[c];
        d = std::sqrt(d);
      }
      for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = static_cast<float>(d == 0 ? in[c] : in[c] / d);
    }
  }

 private:
  int norm_ = 0;
};

// ---- Imputer -----------------------------------------------------------------------------------

class Imputer final : public OpKernel {
 public:
  explicit Imputer(const KernelInfo& info) {
    auto f = info.attr_floats("imputed_value_floats", {});
    imputed_f_.assign(f.begin(), f.end());
    imputed_i_ = info.attr_ints("imputed_value_int64s", {});
    if (imputed_f_.empty() == imputed_i_.empty())
      info.Fail("exactly one of imputed_value_floats and imputed_value_int64s must be set");
    replaced_f_ = info.attr_float("replaced_value_float", 0.0f);
    replaced_i_ = info.attr_int("replaced_value_int64", 0);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    bool is_float = IsFloatType(x.dtype());
    if (is_float && imputed_f_.empty()) ctx.Fail("float input needs imputed_value_floats");
    if (!is_float && imputed_i_.empty()) ctx.Fail("integer input needs imputed_value_int64s");
    int64_t f = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    size_t nimp = is_float ? imputed_f_.size() : imputed_i_.size();
    if (nimp != 1 && static_cast<int64_t>(nimp) != f)
      ctx.Fail("the imputed values have ", nimp, " entries; X has ", f, " features");
    MapElements(ctx, x, [&]<typename T>(int64_t i, T in) -> T {
      using C = typename cpu::Compute<T>::type;
      size_t j = nimp == 1 ? 0 : static_cast<size_t>(i % f);
      if (is_float) {
        double v = static_cast<double>(Load(in));
        bool hit = std::isnan(replaced_f_) ? std::isnan(v) : v == static_cast<double>(replaced_f_);
        return hit ? StoreAs<T>(static_cast<C>(imputed_f_[j])) : in;
      }
      int64_t v = static_cast<int64_t>(Load(in));
      return v == replaced_i_ ? StoreAs<T>(static_cast<C>(imputed_i_[j])) : in;
    });
  }

 private:
  std::vector<double> imputed_f_;
  std::vector<int64_t> imputed_i_;
  float replaced_f_ = 0;
  int64_t replaced_i_ = 0;
};

// ---- ArrayFeatureExtractor -----------------------------------------------------------------------

class ArrayFeatureExtractor final : public OpKernel {
 public:
  explicit ArrayFeatureExtractor(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& ind = ctx.input(1);
    if (x.rank() == 0) ctx.Fail("X must have rank >= 1");
    if (ind.dtype() != DataType::kInt64 && ind.dtype() != DataType::kInt32)
      ctx.Fail("Y must be int64, got ", DataTypeName(ind.dtype()));
    int64_t last = x.dim(x.rank() - 1);
    std::vector<int64_t> idx = ind.ToInt64Vector();
    for (int64_t v : idx)
      if (v < 0 || v >= last) ctx.Fail("index ", v, " is out of range [0, ", last - 1, "]");
    int64_t k = static_cast<int64_t>(idx.size());
    if (k == 0) ctx.Fail("Y must hold at least one index");
    Shape shape = x.shape();
    if (x.rank() == 1)
      shape = {1, k};
    else
      shape.back() = k;
    Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
    int64_t outer = last == 0 ? 0 : x.numel() / last;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < k; ++j) CopyElement(x, o * last + idx[static_cast<size_t>(j)], y, o * k + j);
  }
};

// ---- FeatureVectorizer -----------------------------------------------------------------------------

class FeatureVectorizer final : public OpKernel {
 public:
  explicit FeatureVectorizer(const KernelInfo& info) : dims_(info.attr_ints("inputdimensions", {})) {
    for (int64_t d : dims_)
      if (d < 0) info.Fail("inputdimensions must be >= 0");
  }

  void Compute(KernelContext& ctx) const override {
    size_t n_in = ctx.num_inputs();
    if (dims_.size() != n_in) ctx.Fail("inputdimensions has ", dims_.size(), " entries for ", n_in, " inputs");
    int64_t total = std::accumulate(dims_.begin(), dims_.end(), int64_t{0});
    int64_t rows = -1;
    for (size_t k = 0; k < n_in; ++k) {
      const Tensor& t = ctx.input(k);
      int64_t r = t.rank() <= 1 ? 1 : t.dim(0);
      if (rows >= 0 && r != rows) ctx.Fail("input ", k, " has ", r, " rows, expected ", rows);
      rows = r;
    }
    if (rows < 0) rows = 1;
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, Shape{rows, total});
    float* out = y.data<float>();
    std::fill(out, out + y.numel(), 0.0f);
    int64_t off = 0;
    for (size_t k = 0; k < n_in; ++k) {
      const Tensor& t = ctx.input(k);
      std::vector<double> v = ReadAsDouble(t, ctx);
      int64_t c = rows == 0 ? 0 : t.numel() / rows;
      int64_t take = std::min(c, dims_[k]);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < take; ++j) out[r * total + off + j] = static_cast<float>(v[static_cast<size_t>(r * c + j)]);
      off += dims_[k];
    }
  }

 private:
  std::vector<int64_t> dims_;
};

// ---- DictVectorizer ---------------------------------------------------------------------------------

class DictVectorizer final : public OpKernel {
 public:
  explicit DictVectorizer(const KernelInfo& info) : vocab_(info, "int64_vocabulary", "string_vocabulary") {}

  void Compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_map()) ctx.Fail("X must be a map, got ", v.Describe());
    const MapValue& m = v.map();
    bool str_keys = m.key_type == DataType::kString;
    if (str_keys != vocab_.strings())
      ctx.Fail("the map's keys are ", DataTypeName(m.key_type), " but the vocabulary is ",
               vocab_.strings() ? "string" : "int64");
    if (!m.values || !m.values->is_tensor()) ctx.Fail("the map's values must be a tensor");
    const Tensor& vals = m.values->tensor();
    int64_t n = static_cast<int64_t>(str_keys ? m.string_keys.size() : m.int_keys.size());
    if (vals.numel() != n) ctx.Fail("the map has ", n, " keys but ", vals.numel(), " values");
    Tensor& y = ctx.allocate_output(0, vals.dtype(), Shape{1, vocab_.size()});
    if (vals.dtype() != DataType::kString) {
      std::memset(y.raw_data(), 0, static_cast<size_t>(StorageBytes(vals.dtype(), vocab_.size())));
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t pos = str_keys ? vocab_.Find(m.string_keys[static_cast<size_t>(i)])
                             : vocab_.Find(m.int_keys[static_cast<size_t>(i)]);
      if (pos >= 0) CopyElement(vals, i, y, pos);  // keys outside the vocabulary are ignored
    }
  }

 private:
  Vocabulary vocab_;
};

// ---- ZipMap --------------------------------------------------------------------------------------------

class ZipMap final : public OpKernel {
 public:
  explicit ZipMap(const KernelInfo& info) {
    ints_ = info.attr_ints("classlabels_int64s", {});
    strs_ = info.attr_strings("classlabels_strings", {});
    if (ints_.empty() == strs_.empty()) info.Fail("exactly one of classlabels_int64s and classlabels_strings must be set");
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) ctx.Fail("X must be float, got ", DataTypeName(x.dtype()));
    int64_t rows, cols;
    ml::RowsCols(x, ctx, &rows, &cols);
    int64_t keys = static_cast<int64_t>(strs_.empty() ? ints_.size() : strs_.size());
    if (cols != keys) ctx.Fail("X has ", cols, " columns but there are ", keys, " labels");
    DataType kt = strs_.empty() ? DataType::kInt64 : DataType::kString;
    TypeInfo map_type;
    map_type.kind = TypeInfo::Kind::kMap;
    map_type.elem_type = kt;
    map_type.inner = std::make_shared<TypeInfo>(TypeInfo::Tensor(DataType::kFloat));
    SequenceValue seq;
    seq.elem_type = map_type;
    const float* in = x.data<float>();
    for (int64_t r = 0; r < rows; ++r) {
      MapValue m;
      m.key_type = kt;
      m.int_keys = ints_;
      m.string_keys = strs_;
      std::vector<float> row(in + r * cols, in + (r + 1) * cols);
      m.values = std::make_shared<Value>(Tensor::FromVector<float>(row, {cols}));
      seq.items.push_back(Value::Map(std::move(m)));
    }
    ctx.set_output(0, Value::Sequence(std::move(seq)));
  }

 private:
  std::vector<int64_t> ints_;
  std::vector<std::string> strs_;
};

// ---- CastMap ---------------------------------------------------------------------------------------------

class CastMap final : public OpKernel {
 public:
  explicit CastMap(const KernelInfo& info) {
    std::string to = info.attr_string("cast_to", "TO_FLOAT");
    if (to == "TO_FLOAT")
      to_ = DataType::kFloat;
    else if (to == "TO_STRING")
      to_ = DataType::kString;
    else if (to == "TO_INT64")
      to_ = DataType::kInt64;
    else
      info.Fail("cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got '", to, "'");
    std::string form = info.attr_string("map_form", "DENSE");
    if (form != "DENSE" && form != "SPARSE") info.Fail("map_form must be DENSE or SPARSE, got '", form, "'");
    sparse_ = form == "SPARSE";
    max_map_ = info.attr_int("max_map", 1);
    if (sparse_ && max_map_ < 1) info.Fail("max_map must be >= 1");
  }

  void Compute(KernelContext& ctx) const override {
    const Value& v = ctx.input_value(0);
    if (!v.is_map()) ctx.Fail("X must be a map, got ", v.Describe());
    const MapValue& m = v.map();
    if (m.key_type != DataType::kInt64) ctx.Fail("the map's keys must be int64");
    if (!m.values || !m.values->is_tensor()) ctx.Fail("the map's values must be a tensor");
    const Tensor& vals = m.values->tensor();
    int64_t n = static_cast<int64_t>(m.int_keys.size());
    if (vals.numel() != n) ctx.Fail("the map has ", n, " keys but ", vals.numel(), " values");
    if (vals.dtype() != DataType::kString && vals.dtype() != DataType::kFloat)
      ctx.Fail("the map's values must be string or float");
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return m.int_keys[static_cast<size_t>(a)] < m.int_keys[static_cast<size_t>(b)];
    });
    int64_t width = sparse_ ? max_map_ : n;
    Tensor& y = ctx.allocate_output(0, to_, Shape{1, width});
    for (int64_t i = 0; i < width; ++i) Set(y, i, vals, -1, ctx);
    for (int64_t k = 0; k < n; ++k) {
      int64_t src = order[static_cast<size_t>(k)];
      int64_t dst = k;
      if (sparse_) {
        dst = m.int_keys[static_cast<size_t>(src)];
        if (dst < 0 || dst >= max_map_) ctx.Fail("key ", dst, " is out of range [0, ", max_map_, ")");
      }
      Set(y, dst, vals, src, ctx);
    }
  }

 private:
  // y[i] = vals[src] converted (src < 0: the zero value).
  void Set(Tensor& y, int64_t i, const Tensor& vals, int64_t src, const KernelContext& ctx) const {
    bool from_str = vals.dtype() == DataType::kString;
    std::string s = src < 0 ? "" : (from_str ? vals.data<std::string>()[src] : std::string());
    double d = src < 0 || from_str ? 0.0 : static_cast<double>(vals.data<float>()[src]);
    if (src >= 0 && from_str && to_ != DataType::kString) {
      char* end = nullptr;
      d = std::strtod(s.c_str(), &end);
      if (s.empty() || end == s.c_str()) ctx.Fail("map value '", s, "' is not a number");
    }
    switch (to_) {
      case DataType::kFloat: y.data<float>()[i] = static_cast<float>(d); break;
      case DataType::kInt64:
        y.data<int64_t>()[i] = std::isfinite(d) ? static_cast<int64_t>(d) : 0;
        break;
      default: y.data<std::string>()[i] = (src < 0 || from_str) ? s : std::to_string(static_cast<float>(d)); break;
    }
  }

  DataType to_ = DataType::kFloat;
  bool sparse_ = false;
  int64_t max_map_ = 1;
};

}  // namespace

std::vector<KernelRow> MlKernels() {
  const std::vector<DataType> numeric = {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32};
  const std::vector<DataType> str_int = {DataType::kString, DataType::kInt64};
  std::vector<KernelRow> rows = {
      {"ai.onnx.ml", "LabelEncoder", 1, 1, str_int, Make<LabelEncoderV1>()},
      {"ai.onnx.ml", "LabelEncoder", 2, 3, {DataType::kString, DataType::kInt64, DataType::kFloat},
       Make<LabelEncoder>()},
      {"ai.onnx.ml", "LabelEncoder", 4, kMaxOnnxMlOpset,
       {DataType::kString, DataType::kInt64, DataType::kFloat, DataType::kInt32, DataType::kInt16, DataType::kDouble},
       Make<LabelEncoder>()},
      {"ai.onnx.ml", "CategoryMapper", 1, kMaxOnnxMlOpset, str_int, Make<CategoryMapper>()},
      {"ai.onnx.ml", "OneHotEncoder", 1, kMaxOnnxMlOpset,
       {DataType::kString, DataType::kInt64, DataType::kInt32, DataType::kFloat, DataType::kDouble},
       Make<OneHotEncoder>()},
      {"ai.onnx.ml", "Binarizer", 1, kMaxOnnxMlOpset, numeric, Make<Binarizer>()},
      {"ai.onnx.ml", "Scaler", 1, kMaxOnnxMlOpset, numeric, Make<Scaler>()},
      {"ai.onnx.ml", "Normalizer", 1, kMaxOnnxMlOpset, numeric, Make<Normalizer>()},
      {"ai.onnx.ml", "Imputer", 1, kMaxOnnxMlOpset, numeric, Make<Imputer>()},
      {"ai.onnx.ml", "ArrayFeatureExtractor", 1, kMaxOnnxMlOpset,
       {DataType::kFloat, DataType::kDouble, DataType::kInt64, DataType::kInt32, DataType::kString},
       Make<ArrayFeatureExtractor>()},
      {"ai.onnx.ml", "FeatureVectorizer", 1, kMaxOnnxMlOpset, numeric, Make<FeatureVectorizer>()},
      {"ai.onnx.ml", "DictVectorizer", 1, kMaxOnnxMlOpset, {}, Make<DictVectorizer>()},
      {"ai.onnx.ml", "ZipMap", 1, kMaxOnnxMlOpset, {DataType::kFloat}, Make<ZipMap>()},
      {"ai.onnx.ml", "CastMap", 1, kMaxOnnxMlOpset, {}, Make<CastMap>()},
  };
  for (auto* part : {ml::MlTreeKernels, ml::MlLinearKernels})
    for (auto& r : part()) rows.push_back(std::move(r));
  return rows;
}

}  // namespace tessera::cpu
