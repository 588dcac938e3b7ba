// numpy <-> Tessera values for the Python module: dtype mapping, feeds
// (numpy arrays, lists, dicts, OrtValues) to Values and results back.
//
// Conversions (see docs/python.md):
//  - numeric numpy inputs that are C-contiguous, aligned and native-endian
//    are borrowed without a copy (the array is kept alive until the runtime
//    drops the buffer); anything else is copied once.
//  - outputs whose buffer nothing else references are handed to numpy without
//    a copy; outputs that alias an input, an initializer or a constant are
//    copied so the caller never writes into the model or into its own feed.
//  - bfloat16 / float8 travel as their raw bits (uint16 / uint8); 4- and
//    2-bit integer types as one int8 / uint8 per element.
#include "tessera/api/python/numpy_convert.h"

#include <pybind11/stl.h>

#include <cstring>
#include <vector>

namespace tessera {

void ThrowInvalid(const std::string& message) { throw Error(StatusCode::kInvalidArgument, message); }

// ------------------------------------------------------------- dtype mapping

// numpy dtype used for a Tensor's elements in Python.
py::dtype NumpyDtypeFor(DataType t) {
  switch (t) {
    case DataType::kFloat: return py::dtype("float32");
    case DataType::kDouble: return py::dtype("float64");
    case DataType::kFloat16: return py::dtype("float16");
    case DataType::kInt8: return py::dtype("int8");
    case DataType::kInt16: return py::dtype("int16");
    case DataType::kInt32: return py::dtype("int32");
    case DataType::kInt64: return py::dtype("int64");
    case DataType::kUInt8: return py::dtype("uint8");
    case DataType::kUInt16: return py::dtype("uint16");
    case DataType::kUInt32: return py::dtype("uint32");
    case DataType::kUInt64: return py::dtype("uint64");
    case DataType::kBool: return py::dtype("bool");
    case DataType::kComplex64: return py::dtype("complex64");
    case DataType::kComplex128: return py::dtype("complex128");
    case DataType::kString: return py::dtype("O");
    case DataType::kBFloat16: return py::dtype("uint16");
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1:
    case DataType::kUInt4:
    case DataType::kUInt2: return py::dtype("uint8");
    case DataType::kInt4:
    case DataType::kInt2: return py::dtype("int8");
    case DataType::kUndefined: break;
  }
  throw Error(StatusCode::kNotImplemented, std::string("element type ") + DataTypeName(t) + " has no numpy equivalent");
}

bool IsRawBitsType(DataType t) {
  switch (t) {
    case DataType::kBFloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0: return true;
    default: return false;
  }
}

// The element type a numpy dtype maps to, or kUndefined. `hint` is the
// declared element type of the input, used to accept raw-bit (uint16/uint8)
// arrays for bfloat16 / float8 and int8/uint8 arrays for the packed types.
DataType DataTypeForNumpy(const py::dtype& dt, DataType hint) {
  char kind = dt.kind();
  auto size = dt.itemsize();
  std::string name = py::str(dt.attr("name"));
  // ml_dtypes' extension types, if the caller uses them.
  if (kind == 'V') {
    // np.void (fixed-size raw bytes) feeds a string input, as in onnxruntime.
    if (hint == DataType::kString && name.rfind("void", 0) == 0) return DataType::kString;
    if (name == "bfloat16") return DataType::kBFloat16;
    if (name == "float8_e4m3fn") return DataType::kFloat8E4M3FN;
    if (name == "float8_e4m3fnuz") return DataType::kFloat8E4M3FNUZ;
    if (name == "float8_e5m2") return DataType::kFloat8E5M2;
    if (name == "float8_e5m2fnuz") return DataType::kFloat8E5M2FNUZ;
    if (name == "float8_e8m0fnu") return DataType::kFloat8E8M0;
    if (name == "int4") return DataType::kInt4;
    if (name == "uint4") return DataType::kUInt4;
    if (name == "float4_e2m1fn") return DataType::kFloat4E2M1;
    if (name == "int2") return DataType::kInt2;
    if (name == "uint2") return DataType::kUInt2;
    return DataType::kUndefined;
  }
  if (hint == DataType::kBFloat16 && kind == 'u' && size == 2) return hint;
  if (IsRawBitsType(hint) && hint != DataType::kBFloat16 && kind == 'u' && size == 1) return hint;
  if ((hint == DataType::kUInt4 || hint == DataType::kUInt2 || hint == DataType::kFloat4E2M1) && kind == 'u' &&
      size == 1)
    return hint;
  if ((hint == DataType::kInt4 || hint == DataType::kInt2) && kind == 'i' && size == 1) return hint;
  switch (kind) {
    case 'f':
      if (size == 2) return DataType::kFloat16;
      if (size == 4) return DataType::kFloat;
      if (size == 8) return DataType::kDouble;
      break;
    case 'i':
      if (size == 1) return DataType::kInt8;
      if (size == 2) return DataType::kInt16;
      if (size == 4) return DataType::kInt32;
      if (size == 8) return DataType::kInt64;
      break;
    case 'u':
      if (size == 1) return DataType::kUInt8;
      if (size == 2) return DataType::kUInt16;
      if (size == 4) return DataType::kUInt32;
      if (size == 8) return DataType::kUInt64;
      break;
    case 'b':
      if (size == 1) return DataType::kBool;
      break;
    case 'c':
      if (size == 8) return DataType::kComplex64;
      if (size == 16) return DataType::kComplex128;
      break;
    case 'O':
    case 'U':
    case 'S': return DataType::kString;
    default: break;
  }
  return DataType::kUndefined;
}

// ------------------------------------------------------------- numpy -> IR

// Holds a Python object alive from C++; drops it under the GIL from whatever
// thread releases the last reference.
std::shared_ptr<const void> PyKeepalive(py::object obj) {
  auto* held = new py::object(std::move(obj));
  return std::shared_ptr<const void>(held, [](const void* p) {
    auto* o = static_cast<py::object*>(const_cast<void*>(p));
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    py::gil_scoped_acquire gil;
    delete o;
  });
}

std::string PyToUtf8(const py::handle& item, const std::string& what) {
  if (PyUnicode_Check(item.ptr())) {
    Py_ssize_t len = 0;
    const char* s = PyUnicode_AsUTF8AndSize(item.ptr(), &len);
    if (!s) {
      PyErr_Clear();
      // Lone surrogates (from surrogateescape decoding) round-trip as bytes.
      py::object b = py::reinterpret_steal<py::object>(
          PyUnicode_AsEncodedString(item.ptr(), "utf-8", "surrogateescape"));
      if (!b) {
        PyErr_Clear();
        ThrowInvalid(what + ": a string element is not encodable as UTF-8");
      }
      return std::string(PyBytes_AS_STRING(b.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(b.ptr())));
    }
    return std::string(s, static_cast<size_t>(len));
  }
  if (PyBytes_Check(item.ptr()))
    return std::string(PyBytes_AS_STRING(item.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(item.ptr())));
  // np.void elements (raw fixed-size bytes) read as their bytes.
  if (py::isinstance(item, py::module_::import("numpy").attr("void"))) {
    py::bytes b = py::reinterpret_steal<py::bytes>(PyBytes_FromObject(item.ptr()));
    if (!b) throw py::error_already_set();
    return std::string(b);
  }
  ThrowInvalid(what + ": string tensors take str or bytes elements, got " +
               std::string(py::str(py::type::handle_of(item).attr("__name__"))));
}

// Packs one int8/uint8 per element into ONNX's sub-byte layout (element k in
// bits [k*bits % 8, ...) of byte k*bits/8, lowest first).
Tensor PackSubByte(const py::array& arr, DataType t, const Shape& shape, const std::string& what) {
  int bits = ElementBits(t);
  bool is_signed = t == DataType::kInt4 || t == DataType::kInt2;
  int lo = is_signed ? -(1 << (bits - 1)) : 0;
  int hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  py::array c = py::array::ensure(arr, py::array::c_style | py::array::forcecast);
  Tensor out(t, shape);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  if (out.nbytes() > 0) std::memset(dst, 0, out.nbytes());
  const auto* src = static_cast<const uint8_t*>(c.data());
  int per_byte = 8 / bits;
  for (int64_t k = 0; k < out.numel(); ++k) {
    int v = is_signed ? static_cast<int>(static_cast<int8_t>(src[k])) : static_cast<int>(src[k]);
    if (v < lo || v > hi)
      ThrowInvalid(what + ": value " + std::to_string(v) + " at flat index " + std::to_string(k) +
                   " does not fit in " + DataTypeName(t));
    uint8_t field = static_cast<uint8_t>(v) & static_cast<uint8_t>((1 << bits) - 1);
    dst[k / per_byte] |= static_cast<uint8_t>(field << ((k % per_byte) * bits));
  }
  return out;
}

Tensor ArrayToTensor(py::object obj, DataType hint, const std::string& what) {
  py::module_ np = py::module_::import("numpy");
  py::array arr;
  if (py::isinstance<py::array>(obj)) {
    arr = py::reinterpret_borrow<py::array>(obj);
  } else if (hint == DataType::kString) {
    arr = np.attr("asarray")(obj, py::dtype("O"));
  } else if (hint != DataType::kUndefined && !IsRawBitsType(hint) && !IsSubByte(hint) &&
             (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj) || py::isinstance<py::float_>(obj) ||
              py::isinstance<py::int_>(obj) || py::isinstance<py::bool_>(obj))) {
    // A Python list or scalar takes the model's element type, as onnxruntime
    // casts it ([1, 2] feeds a float input as float32, not int64).
    arr = np.attr("asarray")(obj, NumpyDtypeFor(hint));
  } else {
    arr = np.attr("asarray")(obj);
  }
  DataType t = DataTypeForNumpy(arr.dtype(), hint);
  if (t == DataType::kUndefined)
    ThrowInvalid(what + ": numpy dtype '" + std::string(py::str(arr.dtype())) + "' has no ONNX element type");
  Shape shape(arr.shape(), arr.shape() + arr.ndim());
  if (t == DataType::kString && hint != DataType::kUndefined && hint != DataType::kString)
    ThrowInvalid(what + ": expected element type " + DataTypeName(hint) + " but got a numpy array of dtype '" +
                 std::string(py::str(arr.dtype())) + "'");
  if (t == DataType::kString) {
    Tensor out(t, shape);
    py::list items = arr.attr("ravel")().attr("tolist")();
    auto* dst = out.data<std::string>();
    for (size_t i = 0; i < items.size(); ++i) dst[i] = PyToUtf8(items[i], what);
    return out;
  }
  if (IsSubByte(t)) return PackSubByte(arr, t, shape, what);
  if (!arr.dtype().attr("isnative").cast<bool>())
    arr = arr.attr("astype")(arr.dtype().attr("newbyteorder")("="));
  const int needed = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((arr.flags() & needed) != needed) arr = np.attr("ascontiguousarray")(arr);
  size_t bytes = static_cast<size_t>(arr.nbytes());
  // Read-only arrays are borrowed too: kernels never write into their inputs.
  void* data = const_cast<void*>(arr.data());
  auto buffer = TensorBuffer::Borrow(data, bytes, PyKeepalive(arr));
  return Tensor(t, std::move(shape), std::move(buffer));
}

Value PyToValue(py::object obj, const TypeInfo* declared, const std::string& what) {
  using Kind = TypeInfo::Kind;
  if (py::isinstance<PyOrtValue>(obj)) return obj.cast<const PyOrtValue&>().value;
  Kind kind = declared ? declared->kind : Kind::kUnknown;
  if (kind == Kind::kOptional) {
    TypeInfo inner = declared->inner ? *declared->inner : TypeInfo{};
    if (obj.is_none()) return Value::None(inner);
    return PyToValue(std::move(obj), declared->inner.get(), what);
  }
  if (obj.is_none()) ThrowInvalid(what + ": None is only accepted for optional inputs");
  if (kind == Kind::kSequence || (kind == Kind::kUnknown && (py::isinstance<py::list>(obj) ||
                                                             py::isinstance<py::tuple>(obj)))) {
    if (!py::isinstance<py::list>(obj) && !py::isinstance<py::tuple>(obj))
      ThrowInvalid(what + ": expected a list for " + declared->TypeString() + ", got " +
                   std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
    SequenceValue seq;
    const TypeInfo* inner = declared && declared->inner ? declared->inner.get() : nullptr;
    size_t i = 0;
    for (py::handle item : obj) {
      seq.items.push_back(
          PyToValue(py::reinterpret_borrow<py::object>(item), inner, what + "[" + std::to_string(i) + "]"));
      ++i;
    }
    if (inner) {
      seq.elem_type = *inner;
    } else if (!seq.items.empty() && seq.items[0].is_tensor()) {
      seq.elem_type = TypeInfo::Tensor(seq.items[0].tensor().dtype());
    }
    return Value::Sequence(std::move(seq));
  }
  if (kind == Kind::kMap) {
    if (!py::isinstance<py::dict>(obj))
      ThrowInvalid(what + ": expected a dict for " + declared->TypeString() + ", got " +
                   std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
    py::dict d = py::reinterpret_borrow<py::dict>(obj);
    MapValue m;
    m.key_type = declared->elem_type;
    py::list values;
    for (auto [k, v] : d) {
      if (m.key_type == DataType::kString) {
        m.string_keys.push_back(PyToUtf8(k, what + " key"));
      } else {
        if (!PyLong_Check(k.ptr())) ThrowInvalid(what + ": map keys must be int for " + declared->TypeString());
        m.int_keys.push_back(k.cast<int64_t>());
      }
      values.append(v);
    }
    const TypeInfo* vt = declared->inner.get();
    if (vt && vt->kind == Kind::kSequence) {
      m.values = std::make_shared<Value>(PyToValue(values, vt, what + " values"));
    } else {
      py::module_ np = py::module_::import("numpy");
      py::object arr = (vt && vt->elem_type != DataType::kUndefined && !IsRawBitsType(vt->elem_type) &&
                        !IsSubByte(vt->elem_type))
                           ? np.attr("asarray")(values, NumpyDtypeFor(vt->elem_type))
                           : np.attr("asarray")(values);
      m.values = std::make_shared<Value>(
          ArrayToTensor(arr, vt ? vt->elem_type : DataType::kUndefined, what + " values"));
    }
    return Value::Map(std::move(m));
  }
  DataType hint = declared && declared->kind == Kind::kTensor ? declared->elem_type : DataType::kUndefined;
  return Value(ArrayToTensor(std::move(obj), hint, what));
}

// ------------------------------------------------------------- IR -> numpy

py::object UnpackSubByte(const Tensor& t, const py::array& out) {
  int bits = ElementBits(t.dtype());
  bool is_signed = t.dtype() == DataType::kInt4 || t.dtype() == DataType::kInt2;
  int per_byte = 8 / bits;
  const auto* src = static_cast<const uint8_t*>(t.raw_data());
  auto* dst = static_cast<uint8_t*>(const_cast<void*>(out.data()));
  for (int64_t k = 0; k < t.numel(); ++k) {
    int v = (src[k / per_byte] >> ((k % per_byte) * bits)) & ((1 << bits) - 1);
    if (is_signed && (v & (1 << (bits - 1)))) v -= (1 << bits);
    dst[k] = static_cast<uint8_t>(static_cast<int8_t>(v));
  }
  return out;
}

py::object TensorToPy(const Tensor& t) {
  if (!t.defined()) return py::none();
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  py::dtype dt = NumpyDtypeFor(t.dtype());
  if (t.dtype() == DataType::kString) {
    py::list items;
    const auto* s = t.data<std::string>();
    for (int64_t i = 0; i < t.numel(); ++i) {
      PyObject* u = PyUnicode_DecodeUTF8(s[i].data(), static_cast<Py_ssize_t>(s[i].size()), "surrogateescape");
      if (!u) throw py::error_already_set();
      items.append(py::reinterpret_steal<py::object>(u));
    }
    py::module_ np = py::module_::import("numpy");
    py::array flat = np.attr("empty")(py::int_(t.numel()), dt);
    for (int64_t i = 0; i < t.numel(); ++i) flat[py::int_(i)] = items[static_cast<size_t>(i)];
    return flat.attr("reshape")(py::tuple(py::cast(shape)));
  }
  if (IsSubByte(t.dtype())) return UnpackSubByte(t, py::array(dt, shape));
  const auto& buffer = t.buffer();
  // Zero-copy only when nothing else can see the buffer: not borrowed (the
  // caller's feed, an mmap'd file) and referenced by this tensor alone.
  if (buffer && !buffer->borrowed() && buffer.use_count() == 1) {
    auto* holder = new std::shared_ptr<TensorBuffer>(buffer);
    py::capsule owner(holder, [](void* p) { delete static_cast<std::shared_ptr<TensorBuffer>*>(p); });
    return py::array(dt, shape, {}, t.raw_data(), owner);
  }
  py::array out(dt, shape);
  if (t.nbytes() > 0) std::memcpy(out.mutable_data(), t.raw_data(), t.nbytes());
  return out;
}

py::array TensorView(const Tensor& t, bool writeable) {
  if (t.dtype() == DataType::kString || IsSubByte(t.dtype()))
    ThrowInvalid(std::string("a ") + DataTypeName(t.dtype()) + " tensor has no numpy view of its memory");
  const auto& buffer = t.buffer();
  if (!buffer || !buffer->on_host()) ThrowInvalid("the tensor's memory is not on the host");
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  auto* holder = new std::shared_ptr<TensorBuffer>(buffer);
  py::capsule owner(holder, [](void* p) { delete static_cast<std::shared_ptr<TensorBuffer>*>(p); });
  py::array out(NumpyDtypeFor(t.dtype()), shape, {}, t.raw_data(), owner);
  if (!writeable) out.attr("flags").attr("writeable") = false;
  return out;
}

py::object ValueToPy(const Value& v) {
  if (v.is_tensor()) return TensorToPy(v.tensor());
  if (v.is_sequence()) {
    py::list out;
    for (const auto& item : v.sequence().items) out.append(ValueToPy(item));
    return out;
  }
  if (v.is_map()) {
    const MapValue& m = v.map();
    py::dict out;
    size_t n = m.key_type == DataType::kString ? m.string_keys.size() : m.int_keys.size();
    py::object values = m.values ? ValueToPy(*m.values) : py::none();
    bool flat_tensor = m.values && m.values->is_tensor() && m.values->tensor().rank() == 1;
    if (flat_tensor) values = values.attr("tolist")();  // python scalars, as onnxruntime returns
    for (size_t i = 0; i < n; ++i) {
      py::object key = m.key_type == DataType::kString ? py::object(py::str(m.string_keys[i]))
                                                       : py::object(py::int_(m.int_keys[i]));
      out[key] = values.is_none() ? py::none() : py::object(values[py::int_(i)]);
    }
    return out;
  }
  return py::none();  // empty optional or no value
}

}  // namespace tessera
