// numpy <-> Tessera values for the Python module (numpy_convert.cc has the
// rules: which arrays are borrowed, which results are handed over uncopied).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "tessera/base/status.h"
#include "tessera/ir/type_info.h"
#include "tessera/ir/value.h"

namespace tessera {

namespace py = pybind11;

// What _tessera.OrtValue holds: one value (a tensor, a sequence, a map or an
// empty optional) as the runtime sees it.
struct PyOrtValue {
  Value value;
  // The tensor's memory belongs to the caller (a numpy array it gave, or a
  // pointer it bound): numpy() may view it, and a run may write into it.
  bool caller_memory = false;
  // The caller's memory may not be written (a read-only array).
  bool read_only = false;
};

[[noreturn]] void ThrowInvalid(const std::string& message);

// numpy dtype used for a Tensor's elements in Python (raw bits for
// bfloat16 / float8, one byte per element for the packed types).
py::dtype NumpyDtypeFor(DataType t);
bool IsRawBitsType(DataType t);
// The element type a numpy dtype maps to (kUndefined if none); `hint` is the
// declared type, which decides how raw-bit and byte-per-element arrays read.
DataType DataTypeForNumpy(const py::dtype& dt, DataType hint);
// Holds a Python object alive from C++ (released under the GIL).
std::shared_ptr<const void> PyKeepalive(py::object obj);

// A numpy array (or anything numpy.asarray takes, cast to `hint` when it is
// not an array yet) as a tensor; numeric arrays are borrowed when they can be.
Tensor ArrayToTensor(py::object obj, DataType hint, const std::string& what);
// A feed: array, list (sequence), dict (map), None (empty optional) or an
// _tessera.OrtValue, checked against the declared type when there is one.
Value PyToValue(py::object obj, const TypeInfo* declared, const std::string& what);

// A result as numpy; the buffer is handed over without a copy when nothing
// else references it.
py::object TensorToPy(const Tensor& t);
py::object ValueToPy(const Value& v);
// A numpy array viewing the tensor's memory (no copy); it keeps the buffer
// alive. Host, non-string, byte-addressable tensors only.
py::array TensorView(const Tensor& t, bool writeable);

}  // namespace tessera
