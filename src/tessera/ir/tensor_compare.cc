#include "tessera/ir/tensor_compare.h"

#include <cmath>
#include <complex>
#include <sstream>

#include "tessera/ir/float_formats.h"
#include "tessera/base/half.h"

namespace tessera {

double ElementAsDouble(const Tensor& t, int64_t i) {
  const auto* bytes = t.data<uint8_t>();
  switch (t.dtype()) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0: return Float8ToFloat(t.dtype(), bytes[i]);
    case DataType::kFloat4E2M1: return Float4E2M1ToFloat((bytes[i / 2] >> (4 * (i % 2))) & 0xf);
    default: return t.GetAsDouble(i);
  }
}

namespace {

std::string Fmt(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

int64_t SubByteInt(const Tensor& t, int64_t i) {
  int bits = ElementBits(t.dtype());
  int per = 8 / bits;
  uint8_t raw = static_cast<uint8_t>((t.data<uint8_t>()[i / per] >> (bits * (i % per))) & ((1 << bits) - 1));
  if (IsSignedInteger(t.dtype()) && (raw & (1 << (bits - 1)))) return static_cast<int64_t>(raw) - (1 << bits);
  return raw;
}

}  // namespace

CompareResult CompareTensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  CompareResult r;
  if (actual.dtype() != expected.dtype()) {
    r.match = false;
    r.message = std::string("dtype ") + DataTypeName(actual.dtype()) + ", expected " + DataTypeName(expected.dtype());
    return r;
  }
  if (actual.shape() != expected.shape()) {
    r.match = false;
    r.message = "shape " + ShapeToString(actual.shape()) + ", expected " + ShapeToString(expected.shape());
    return r;
  }
  int64_t n = expected.numel();
  auto note = [&](int64_t i, const std::string& a, const std::string& e) {
    ++r.mismatches;
    if (r.match) r.message = "element " + std::to_string(i) + " is " + a + ", expected " + e;
    r.match = false;
  };
  DataType dt = expected.dtype();
  if (dt == DataType::kString) {
    for (int64_t i = 0; i < n; ++i)
      if (actual.data<std::string>()[i] != expected.data<std::string>()[i])
        note(i, "'" + actual.data<std::string>()[i] + "'", "'" + expected.data<std::string>()[i] + "'");
    return r;
  }
  if (IsSubByte(dt) && IsInteger(dt)) {
    for (int64_t i = 0; i < n; ++i)
      if (SubByteInt(actual, i) != SubByteInt(expected, i))
        note(i, std::to_string(SubByteInt(actual, i)), std::to_string(SubByteInt(expected, i)));
    return r;
  }
  if (IsInteger(dt) || dt == DataType::kBool) {
    for (int64_t i = 0; i < n; ++i)
      if (actual.GetAsInt64(i) != expected.GetAsInt64(i))
        note(i, std::to_string(actual.GetAsInt64(i)), std::to_string(expected.GetAsInt64(i)));
    return r;
  }
  auto check = [&](int64_t i, double a, double e) {
    if (std::isnan(e) || std::isnan(a)) {
      if (!(std::isnan(e) && std::isnan(a))) note(i, Fmt(a), Fmt(e));
      return;
    }
    if (std::isinf(e) || std::isinf(a)) {
      if (a != e) note(i, Fmt(a), Fmt(e));
      return;
    }
    double err = std::fabs(a - e);
    r.max_abs_error = std::max(r.max_abs_error, err);
    if (e != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(e));
    if (err > atol + rtol * std::fabs(e)) note(i, Fmt(a), Fmt(e));
  };
  if (dt == DataType::kComplex64 || dt == DataType::kComplex128) {
    for (int64_t i = 0; i < 2 * n; ++i) {
      double a = dt == DataType::kComplex64 ? actual.data<float>()[i] : actual.data<double>()[i];
      double e = dt == DataType::kComplex64 ? expected.data<float>()[i] : expected.data<double>()[i];
      check(i / 2, a, e);
    }
    return r;
  }
  for (int64_t i = 0; i < n; ++i) check(i, ElementAsDouble(actual, i), ElementAsDouble(expected, i));
  return r;
}

int64_t ElementCount(const Value& v) {
  if (v.is_tensor()) return v.tensor().numel();
  if (v.is_sequence()) {
    int64_t n = 0;
    for (const auto& item : v.sequence().items) n += ElementCount(item);
    return n;
  }
  return 1;
}

int64_t MismatchedElements(const CompareResult& r, const Value& expected) {
  if (r.match) return 0;
  return r.mismatches > 0 ? r.mismatches : ElementCount(expected);
}

CompareResult CompareValues(const Value& actual, const Value& expected, double rtol, double atol) {
  CompareResult r;
  if (expected.is_tensor()) {
    if (!actual.is_tensor()) {
      r.match = false;
      r.message = "got a " + actual.Describe() + ", expected a tensor";
      return r;
    }
    return CompareTensors(actual.tensor(), expected.tensor(), rtol, atol);
  }
  if (expected.is_none()) {
    r.match = actual.is_none();
    if (!r.match) r.message = "got a " + actual.Describe() + ", expected an empty optional";
    return r;
  }
  if (expected.is_sequence()) {
    if (!actual.is_sequence()) {
      r.match = false;
      r.message = "got a " + actual.Describe() + ", expected a sequence";
      return r;
    }
    const auto& a = actual.sequence().items;
    const auto& e = expected.sequence().items;
    if (a.size() != e.size()) {
      r.match = false;
      r.message = "sequence has " + std::to_string(a.size()) + " items, expected " + std::to_string(e.size());
      return r;
    }
    for (size_t i = 0; i < e.size(); ++i) {
      CompareResult item = CompareValues(a[i], e[i], rtol, atol);
      r.max_abs_error = std::max(r.max_abs_error, item.max_abs_error);
      r.max_rel_error = std::max(r.max_rel_error, item.max_rel_error);
      r.mismatches += MismatchedElements(item, e[i]);
      if (!item.match && r.match) {
        r.match = false;
        r.message = "sequence item " + std::to_string(i) + ": " + item.message;
      }
    }
    return r;
  }
  if (expected.is_map()) {
    if (!actual.is_map()) {
      r.match = false;
      r.message = "got a " + actual.Describe() + ", expected a map";
      return r;
    }
    const auto& a = actual.map();
    const auto& e = expected.map();
    if (a.int_keys != e.int_keys || a.string_keys != e.string_keys) {
      r.match = false;
      r.message = "map keys differ";
      return r;
    }
    return CompareValues(*a.values, *e.values, rtol, atol);
  }
  r.match = actual.empty();
  return r;
}

}  // namespace tessera
