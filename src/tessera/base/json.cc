#include "tessera/base/json.h"

#include <cstdio>
#include <cstdlib>

#include "tessera/base/status.h"

namespace tessera {

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Json Document() {
    Json v = Value(0);
    Space();
    if (i_ != s_.size()) Fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void Fail(const char* what) { TS_THROW(kInvalidArgument, "JSON: ", what, " at offset ", i_); }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail("unexpected character");
  }
  bool Word(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) == 0) {
      i_ += n;
      return true;
    }
    return false;
  }

  std::string String() {
    Expect('"');
    std::string out;
    while (true) {
      if (i_ >= s_.size()) Fail("unterminated string");
      char c = s_[i_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) Fail("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) Fail("bad \\u escape");
          unsigned code = static_cast<unsigned>(std::strtoul(s_.substr(i_, 4).c_str(), nullptr, 16));
          i_ += 4;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xc0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (code & 0x3f));
          }
          break;
        }
        default: out += e;
      }
    }
    return out;
  }

  Json Value(int depth) {
    if (depth > 200) Fail("nested too deeply");
    Space();
    if (i_ >= s_.size()) Fail("unexpected end");
    Json v;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.type = Json::Type::kObject;
      if (Eat('}')) return v;
      do {
        Space();
        std::string key = String();
        Expect(':');
        v.object[key] = Value(depth + 1);
      } while (Eat(','));
      Expect('}');
    } else if (c == '[') {
      ++i_;
      v.type = Json::Type::kArray;
      if (Eat(']')) return v;
      do v.array.push_back(Value(depth + 1));
      while (Eat(','));
      Expect(']');
    } else if (c == '"') {
      v.type = Json::Type::kString;
      v.string = String();
    } else if (Word("true")) {
      v.type = Json::Type::kBool;
      v.boolean = true;
    } else if (Word("false")) {
      v.type = Json::Type::kBool;
    } else if (Word("null")) {
      v.type = Json::Type::kNull;
    } else {
      char* end = nullptr;
      v.number = std::strtod(s_.c_str() + i_, &end);
      if (end == s_.c_str() + i_) Fail("unexpected character");
      i_ = static_cast<size_t>(end - s_.c_str());
      v.type = Json::Type::kNumber;
    }
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

const Json* Json::Find(const std::string& key) const {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

std::string Json::StringOr(const std::string& key, const std::string& fallback) const {
  const Json* v = Find(key);
  return v && v->type == Type::kString ? v->string : fallback;
}

double Json::NumberOr(const std::string& key, double fallback) const {
  const Json* v = Find(key);
  return v && v->type == Type::kNumber ? v->number : fallback;
}

Json ParseJson(const std::string& text) { return Parser(text).Document(); }

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace tessera
