// A small JSON reader for the files Tessera's tools consume (profiles,
// reports). Not a general-purpose library: numbers are doubles.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

struct Json {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  Type type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  const Json* Find(const std::string& key) const;
  std::string StringOr(const std::string& key, const std::string& fallback) const;
  double NumberOr(const std::string& key, double fallback) const;
};

// Throws Error(kInvalidArgument) with the offset of the first problem.
Json ParseJson(const std::string& text);

// Escapes s for use inside a JSON string literal (without the quotes).
std::string JsonEscape(const std::string& s);

}  // namespace tessera
