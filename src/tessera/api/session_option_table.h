// The attributes of the onnxruntime-shaped Python SessionOptions, declared
// once. A row names an option as onnxruntime's Python API does and gives its
// type, default and documentation, and how it sets the runtime's options
// (runtime/session_options.h). The Python module builds its SessionOptions
// class from these rows, so adding an option is adding a row here
// (docs/python.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/runtime/session_options.h"

namespace tessera {

// A row's value: numbers, flags (0 / 1) and enum members in `number`,
// text in `text`.
struct SessionOptionValue {
  int64_t number = 0;
  std::string text;
};

struct SessionOptionRow {
  enum class Kind { kInt, kBool, kString, kEnum };
  const char* name;
  Kind kind;
  // kEnum: the Python enum class its values belong to (tessera.<enum_type>).
  const char* enum_type;
  SessionOptionValue default_value;
  const char* doc;
  // Checks a value and writes it into the runtime's options. Null: an
  // onnxruntime option Tessera accepts and stores but does not act on.
  void (*apply)(SessionOptions& options, const SessionOptionValue& value);
};

// Every row, in the order Python lists the attributes.
const std::vector<SessionOptionRow>& SessionOptionRows();

// The row called `name`, or null.
const SessionOptionRow* FindSessionOptionRow(std::string_view name);

// Applies one option by name; an unknown name is kInvalidArgument.
void ApplySessionOption(SessionOptions& options, std::string_view name, const SessionOptionValue& value);

// "int", "bool", "str" or "enum": the kind as the Python side spells it.
const char* SessionOptionKindName(SessionOptionRow::Kind kind);

}  // namespace tessera
