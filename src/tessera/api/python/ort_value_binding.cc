#include "tessera/api/python/ort_value_binding.h"

#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/api/python/numpy_convert.h"

namespace tessera {
namespace {

DataType DataTypeFromOnnxCode(int64_t code) {
  if (code <= 0 || !IsKnownDataType(static_cast<int32_t>(code)))
    ThrowInvalid("unknown ONNX element type " + std::to_string(code));
  return static_cast<DataType>(code);
}

// An element type given as a numpy dtype (or type such as numpy.float32), or
// as ONNX's TensorProto code.
DataType DataTypeFromPy(const py::object& element_type) {
  if (py::isinstance<py::int_>(element_type) && !py::isinstance<py::bool_>(element_type))
    return DataTypeFromOnnxCode(element_type.cast<int64_t>());
  py::dtype dt = py::module_::import("numpy").attr("dtype")(element_type);
  DataType t = DataTypeForNumpy(dt, DataType::kUndefined);
  if (t == DataType::kUndefined) ThrowInvalid("numpy dtype '" + std::string(py::str(dt)) + "' has no ONNX element type");
  return t;
}

Shape ShapeFromPy(const py::object& shape) {
  Shape out;
  for (py::handle d : shape) {
    int64_t v = d.cast<int64_t>();
    if (v < 0) ThrowInvalid("a shape dimension must be >= 0, got " + std::to_string(v));
    out.push_back(v);
  }
  return out;
}

std::string TypeStringOf(const Value& v) {
  if (v.is_tensor()) return std::string("tensor(") + DataTypeName(v.tensor().dtype()) + ")";
  if (v.is_sequence()) return "seq(" + v.sequence().elem_type.TypeString() + ")";
  if (v.is_map()) {
    const MapValue& m = v.map();
    std::string values = m.values && m.values->is_tensor()
                             ? std::string("tensor(") + DataTypeName(m.values->tensor().dtype()) + ")"
                             : (m.values ? TypeStringOf(*m.values) : std::string("undefined"));
    return std::string("map(") + DataTypeName(m.key_type) + "," + values + ")";
  }
  if (v.is_none()) return "optional(" + v.none().elem_type.TypeString() + ")";
  return "undefined";
}

const Tensor& TensorOf(const PyOrtValue& v, const char* what) {
  if (!v.value.is_tensor()) ThrowInvalid(std::string(what) + ": the OrtValue holds a " + TypeStringOf(v.value) +
                                          ", not a tensor");
  return v.value.tensor();
}

PyOrtValue FromNumpy(const py::object& obj) {
  if (!py::isinstance<py::array>(obj)) ThrowInvalid("ortvalue_from_numpy takes a numpy array");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  PyOrtValue out;
  out.value = Value(ArrayToTensor(arr, DataType::kUndefined, "ortvalue_from_numpy"));
  const Tensor& t = out.value.tensor();
  // Borrowed (no copy) exactly when the tensor sees the array's own memory.
  out.caller_memory = t.dtype() != DataType::kString && t.raw_data() == arr.data();
  out.read_only = out.caller_memory && !arr.writeable();
  return out;
}

// The array's bytes reinterpreted as `code` elements of the same width
// (bfloat16 from uint16, float8 from uint8...), without a copy.
PyOrtValue FromNumpyWithOnnxType(const py::object& obj, int64_t code) {
  DataType t = DataTypeFromOnnxCode(code);
  if (!py::isinstance<py::array>(obj)) ThrowInvalid("ortvalue_from_numpy_with_onnx_type takes a numpy array");
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (t == DataType::kString || IsSubByte(t)) ThrowInvalid(std::string("cannot reinterpret memory as ") + DataTypeName(t));
  if (ElementBits(t) != arr.itemsize() * 8)
    ThrowInvalid("the array's elements are " + std::to_string(arr.itemsize()) + " bytes but " + DataTypeName(t) +
                 " takes " + std::to_string(ElementBits(t) / 8));
  const int needed = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((arr.flags() & needed) != needed) ThrowInvalid("the array must be C-contiguous and aligned");
  Shape shape(arr.shape(), arr.shape() + arr.ndim());
  auto buffer = TensorBuffer::Borrow(const_cast<void*>(arr.data()), static_cast<size_t>(arr.nbytes()), PyKeepalive(arr));
  PyOrtValue out;
  out.value = Value(Tensor(t, std::move(shape), std::move(buffer)));
  out.caller_memory = true;
  out.read_only = !arr.writeable();
  return out;
}

PyOrtValue FromShapeAndType(const py::object& shape, DataType t) {
  PyOrtValue out;
  Tensor tensor(t, ShapeFromPy(shape));
  if (t != DataType::kString && tensor.nbytes() > 0) std::memset(tensor.raw_data(), 0, tensor.nbytes());
  out.value = Value(std::move(tensor));
  return out;
}

// Memory at `ptr` the caller owns and keeps alive (IOBinding's buffer_ptr).
PyOrtValue FromPointer(uintptr_t ptr, const py::object& shape, const py::object& element_type) {
  DataType t = DataTypeFromPy(element_type);
  if (t == DataType::kString) ThrowInvalid("a string tensor cannot be bound to raw memory");
  if (ptr == 0) ThrowInvalid("buffer_ptr is null");
  Shape dims = ShapeFromPy(shape);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  auto buffer = TensorBuffer::Borrow(reinterpret_cast<void*>(ptr), static_cast<size_t>(StorageBytes(t, n)),
                                     std::make_shared<int>(0));
  PyOrtValue out;
  out.value = Value(Tensor(t, std::move(dims), std::move(buffer)));
  out.caller_memory = true;
  return out;
}

py::object Numpy(PyOrtValue& v) {
  const Tensor& t = TensorOf(v, "numpy()");
  if (t.dtype() == DataType::kString || IsSubByte(t.dtype()) || !t.buffer()) return TensorToPy(t);
  // A result nothing else in the runtime holds becomes the caller's memory:
  // every numpy() of it views the same bytes. One the model still holds (an
  // initializer passed through) is copied, so the model cannot be changed.
  if (!v.caller_memory && !t.buffer()->borrowed() && t.buffer().use_count() == 1) v.caller_memory = true;
  if (v.caller_memory) return TensorView(t, !v.read_only);
  return TensorToPy(t);
}

void UpdateInplace(PyOrtValue& v, const py::object& obj) {
  const Tensor& t = TensorOf(v, "update_inplace()");
  if (v.read_only) ThrowInvalid("update_inplace(): the OrtValue's memory is a read-only array");
  if (t.dtype() == DataType::kString) ThrowInvalid("update_inplace(): string tensors cannot be updated in place");
  py::array arr = py::array::ensure(obj, py::array::c_style);
  if (!arr) ThrowInvalid("update_inplace() takes a numpy array");
  Tensor src = ArrayToTensor(arr, t.dtype(), "update_inplace()");
  if (src.dtype() != t.dtype() || src.shape() != t.shape())
    ThrowInvalid(std::string("update_inplace(): the array is ") + DataTypeName(src.dtype()) + " " +
                 ShapeToString(src.shape()) + " but the OrtValue is " + DataTypeName(t.dtype()) + " " +
                 ShapeToString(t.shape()));
  if (t.nbytes() > 0) std::memcpy(const_cast<void*>(t.raw_data()), src.raw_data(), t.nbytes());
}

}  // namespace

void BindOrtValue(py::module_& m) {
  py::class_<PyOrtValue>(m, "OrtValue", "One value for or from a session (onnxruntime's C-level OrtValue).")
      .def_static("ortvalue_from_numpy", [](const py::object& a, const py::object&) { return FromNumpy(a); },
                  py::arg("array"), py::arg("device") = py::none())
      .def_static("ortvalue_from_numpy_with_onnx_type", &FromNumpyWithOnnxType, py::arg("array"),
                  py::arg("onnx_element_type"))
      .def_static("ortvalue_from_shape_and_type",
                  [](const py::object& shape, const py::object& type, const py::object&) {
                    return FromShapeAndType(shape, DataTypeFromPy(type));
                  },
                  py::arg("shape"), py::arg("element_type"), py::arg("device") = py::none())
      .def_static("ortvalue_from_shape_and_onnx_type",
                  [](const py::object& shape, int64_t code, const py::object&) {
                    return FromShapeAndType(shape, DataTypeFromOnnxCode(code));
                  },
                  py::arg("shape"), py::arg("onnx_element_type"), py::arg("device") = py::none())
      .def_static("from_pointer", &FromPointer, py::arg("buffer_ptr"), py::arg("shape"), py::arg("element_type"))
      .def_static("from_object",
                  [](const py::object& obj) {
                    PyOrtValue out;
                    out.value = PyToValue(obj, nullptr, "OrtValue");
                    return out;
                  },
                  py::arg("value"), "Any feed (a list for a sequence, None for an empty optional) as an OrtValue.")
      .def("data_ptr",
           [](const PyOrtValue& v) {
             return reinterpret_cast<uintptr_t>(TensorOf(v, "data_ptr()").raw_data());
           })
      .def("device_name", [](const PyOrtValue&) { return std::string("Cpu"); })
      .def("shape",
           [](const PyOrtValue& v) {
             const Tensor& t = TensorOf(v, "shape()");
             return std::vector<int64_t>(t.shape().begin(), t.shape().end());
           })
      .def("data_type", [](const PyOrtValue& v) { return TypeStringOf(v.value); })
      .def("element_type", [](const PyOrtValue& v) { return static_cast<int>(TensorOf(v, "element_type()").dtype()); })
      .def("has_value", [](const PyOrtValue& v) { return !v.value.is_none() && !v.value.empty(); })
      .def("is_tensor", [](const PyOrtValue& v) { return v.value.is_tensor(); })
      .def("is_sparse_tensor", [](const PyOrtValue&) { return false; })
      .def("is_tensor_sequence", [](const PyOrtValue& v) { return v.value.is_sequence(); })
      .def("is_map", [](const PyOrtValue& v) { return v.value.is_map(); })
      .def("numpy", &Numpy)
      .def("to_python", [](const PyOrtValue& v) { return ValueToPy(v.value); },
           "The value as run() returns it (numpy array, list, dict or None).")
      .def("update_inplace", &UpdateInplace, py::arg("array"))
      .def("nbytes", [](const PyOrtValue& v) { return TensorOf(v, "nbytes()").nbytes(); })
      .def("shares_caller_memory", [](const PyOrtValue& v) { return v.caller_memory; });
}

}  // namespace tessera
