#include "tessera/api/python/session_options_binding.h"

#include <string>

#include "tessera/api/python/numpy_convert.h"
#include "tessera/api/session_option_table.h"

namespace tessera {

namespace {

using Kind = SessionOptionRow::Kind;

py::object DefaultToPy(const SessionOptionRow& row) {
  switch (row.kind) {
    case Kind::kBool: return py::bool_(row.default_value.number != 0);
    case Kind::kString: return py::str(row.default_value.text);
    case Kind::kInt:
    case Kind::kEnum: break;
  }
  return py::int_(row.default_value.number);
}

SessionOptionValue ValueFromPy(const SessionOptionRow& row, py::handle value) {
  SessionOptionValue v;
  bool is_bool = py::isinstance<py::bool_>(value);
  bool fits = row.kind == Kind::kString ? py::isinstance<py::str>(value)
              : row.kind == Kind::kBool ? is_bool
                                        : py::isinstance<py::int_>(value) && !is_bool;
  if (!fits)
    ThrowInvalid(std::string("session option ") + row.name + " must be of type " + SessionOptionKindName(row.kind) +
                 ", got " + std::string(py::str(py::type::handle_of(value).attr("__name__"))));
  if (row.kind == Kind::kString)
    v.text = value.cast<std::string>();
  else
    v.number = value.cast<int64_t>();
  return v;
}

}  // namespace

void ApplyPythonSessionOptions(SessionOptions& options, const py::dict& values) {
  for (auto [key, value] : values) {
    std::string name = py::str(key);
    const SessionOptionRow* row = FindSessionOptionRow(name);
    if (!row) ThrowInvalid("'" + name + "' is not a session option");
    ApplySessionOption(options, name, ValueFromPy(*row, value));
  }
}

void BindSessionOptionRows(py::module_& m) {
  m.def(
      "session_option_rows",
      [] {
        py::list rows;
        for (const auto& row : SessionOptionRows())
          rows.append(py::make_tuple(row.name, SessionOptionKindName(row.kind), row.enum_type, DefaultToPy(row),
                                     row.doc, row.apply != nullptr));
        return rows;
      },
      "(name, kind, enum type, default, doc, applied) per SessionOptions attribute, from the C++ table.");
}

}  // namespace tessera
