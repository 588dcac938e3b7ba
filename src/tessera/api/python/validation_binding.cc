#include "tessera/api/python/validation_binding.h"

#include <string>

#include "tessera/api/python/numpy_convert.h"
#include "tessera/ir/output_verdict.h"

namespace tessera {

void BindValidation(py::module_& m) {
  py::class_<OutputVerdict>(m, "OutputVerdict",
                            "The verdict on one model output over the reference sets of tessera.validate().")
      .def(py::init([](const std::string& name) {
             OutputVerdict v;
             v.name = name;
             return v;
           }),
           py::arg("name"))
      // actual / expected: what a run returns or a reference holds (an
      // array, a list for a sequence, None...), converted as feeds are, with
      // no declared type so a dtype difference stays visible to the rule.
      .def(
          "add",
          [](OutputVerdict& v, const py::object& actual, const py::object& expected, double rtol, double atol,
             const std::string& label) {
            Value a = PyToValue(actual, nullptr, "output '" + v.name + "'");
            Value e = PyToValue(expected, nullptr, "the expected value of output '" + v.name + "'");
            v.Add(a, e, rtol, atol, label);
          },
          py::arg("actual"), py::arg("expected"), py::arg("rtol"), py::arg("atol"), py::arg("label") = "")
      .def("to_dict", [](const OutputVerdict& v) {
        py::dict d;
        d["checked"] = v.checked;
        d["elements"] = v.elements;
        d["mismatched"] = v.mismatched;
        d["max_abs_error"] = v.max_abs_error;
        d["max_rel_error"] = v.max_rel_error;
        d["mismatch_fraction"] = v.mismatch_fraction();
        d["passed"] = v.passed;
        d["message"] = v.message;
        return d;
      });
}

}  // namespace tessera
