// _tessera: the native half of the `tessera` Python package. It exposes a
// low-level Session (load, describe, run with numpy conversion) and the
// exception classes; python/tessera/__init__.py builds the onnxruntime-shaped
// API on top of it.
//
// Conversions between numpy and the runtime's values are in numpy_convert.cc.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "tessera/api/providers.h"
#include "tessera/api/python/numpy_convert.h"
#include "tessera/api/python/ort_value_binding.h"
#include "tessera/api/python/quantization_binding.h"
#include "tessera/api/python/session_binding.h"
#include "tessera/api/python/session_options_binding.h"
#include "tessera/api/python/validation_binding.h"
#include "tessera/base/logging.h"


namespace py = pybind11;

namespace tessera {
namespace {

// ---------------------------------------------------------------- exceptions

struct ExceptionClasses {
  PyObject* base = nullptr;
  PyObject* invalid_argument = nullptr;
  PyObject* invalid_model = nullptr;
  PyObject* not_implemented = nullptr;
  PyObject* opset_mismatch = nullptr;
  PyObject* io_error = nullptr;
  PyObject* resource_exhausted = nullptr;
  PyObject* runtime_error = nullptr;
  PyObject* internal = nullptr;
};
ExceptionClasses g_exc;

PyObject* NewException(py::module_& m, const char* name, const char* doc, std::vector<PyObject*> bases) {
  py::tuple t(bases.size());
  for (size_t i = 0; i < bases.size(); ++i) t[i] = py::reinterpret_borrow<py::object>(bases[i]);
  std::string qualified = std::string("tessera.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, t.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;  // the module keeps a reference; this one is never released
}

PyObject* ExceptionFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return g_exc.invalid_argument;
    case StatusCode::kInvalidModel: return g_exc.invalid_model;
    case StatusCode::kNotImplemented: return g_exc.not_implemented;
    case StatusCode::kOpsetMismatch: return g_exc.opset_mismatch;
    case StatusCode::kIoError: return g_exc.io_error;
    case StatusCode::kResourceExhausted: return g_exc.resource_exhausted;
    case StatusCode::kRuntimeError: return g_exc.runtime_error;
    case StatusCode::kInternal: return g_exc.internal;
    case StatusCode::kOk: break;
  }
  return g_exc.base;
}


}  // namespace
}  // namespace tessera

PYBIND11_MODULE(_tessera, m) {
  using namespace tessera;
  m.doc() = "Native core of the tessera package (use `import tessera`).";
#ifdef TESSERA_VERSION
  m.attr("__version__") = TESSERA_VERSION;
#endif

  g_exc.base = NewException(m, "TesseraError", "Base class of every error Tessera raises.", {PyExc_RuntimeError});
  g_exc.invalid_argument = NewException(m, "InvalidArgument", "A bad feed, option or argument.",
                                        {g_exc.base, PyExc_ValueError});
  g_exc.invalid_model = NewException(m, "InvalidModel", "The model is malformed or inconsistent.", {g_exc.base});
  g_exc.not_implemented = NewException(m, "NotImplemented", "An operator, type or attribute Tessera lacks.",
                                       {g_exc.base, PyExc_NotImplementedError});
  g_exc.opset_mismatch =
      NewException(m, "OpsetMismatch", "The model imports an opset Tessera does not implement.", {g_exc.base});
  g_exc.io_error = NewException(m, "IoError", "A file is missing or unreadable.", {g_exc.base, PyExc_OSError});
  g_exc.resource_exhausted =
      NewException(m, "ResourceExhausted", "A configured limit (or memory) was exceeded.", {g_exc.base});
  g_exc.runtime_error = NewException(m, "RuntimeException", "A kernel failed while running.", {g_exc.base});
  g_exc.internal = NewException(m, "InternalError", "A bug in Tessera.", {g_exc.base});

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      PyErr_SetString(ExceptionFor(e.code()), e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(g_exc.resource_exhausted, "out of memory");
    }
  });

  m.def("available_providers", &AvailableProviders, "Providers built into this module (Tessera names).");
  m.def("default_providers", &DefaultProviders, "Providers a session uses when none are named (Tessera names).");
  m.def("canonical_provider_name", &CanonicalProviderName,
        "Maps a provider name (Tessera's or onnxruntime's) to Tessera's.");

  BindOrtValue(m);
  BindSessionOptionRows(m);
  BindSession(m);
  BindValidation(m);
  m.def("build_info", [] {
    std::string info = "Tessera " TESSERA_VERSION ", build type " TESSERA_BUILD_TYPE ", compiler " __VERSION__;
    info += ", providers: " + DefaultProviderList() + " (default); available:";
    for (const auto& p : AvailableProviders()) info += " " + p;
    return info;
  });

  // Routes the runtime's log lines to a Python callable (None = stderr):
  // callback(severity, category, logid, code_location, message).
  m.def("set_log_sink", [](const py::object& callback) {
    if (callback.is_none()) {
      SetLogSink(nullptr);
      return;
    }
    if (!PyCallable_Check(callback.ptr())) ThrowInvalid("the logger callback must be callable");
    std::shared_ptr<const void> held = PyKeepalive(callback);
    SetLogSink([held](const std::string& log_id, Severity severity, const std::string& message) {
      if (!Py_IsInitialized()) return;
      py::gil_scoped_acquire gil;
      try {
        (*static_cast<const py::object*>(held.get()))(static_cast<int>(severity), "tessera", log_id, "", message);
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("tessera logger callback");
      }
    });
  });

  BindQuantization(m, [](py::object obj, const std::string& what) {
    return ArrayToTensor(std::move(obj), DataType::kUndefined, what);
  });
}
