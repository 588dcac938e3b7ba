// String kernels: StringNormalizer, StringConcat, StringSplit, RegexFullMatch,
// TfIdfVectorizer.
//
// Case mapping is done here (ASCII, Latin-1, Latin Extended-A, Greek and
// Cyrillic) so results never depend on the machine's installed locales.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "tessera/providers/common/kernel_util.h"
#include "tessera/providers/cpu/families.h"

namespace tessera::cpu {
namespace {

// ---- UTF-8 case mapping ------------------------------------------------------

char32_t LowerCodePoint(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xFF;
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 0) ? c + 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 1) ? c + 1 : c;
    return c;
  }
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;  // Greek
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if (c >= 0x410 && c <= 0x42F) return c + 32;  // Cyrillic
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

char32_t UpperCodePoint(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  if (c == 0xB5) return 0x39C;  // micro sign -> Greek capital mu
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 32;
  if (c == 0xFF) return 0x178;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x131) return 'I';
    if (c == 0x17F) return 'S';
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return (c % 2 == 1) ? c - 1 : c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c % 2 == 0) ? c - 1 : c;
    return c;
  }
  if (c >= 0x3B1 && c <= 0x3C9 && c != 0x3C2) return c - 32;  // Greek
  if (c == 0x3C2) return 0x3A3;                               // final sigma
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 37;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 63;
  if (c >= 0x430 && c <= 0x44F) return c - 32;  // Cyrillic
  if (c >= 0x450 && c <= 0x45F) return c - 80;
  return c;
}

void AppendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// Maps each well-formed code point through fn; malformed bytes pass through.
template <typename Fn>
std::string MapCase(const std::string& s, Fn fn) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char b = p[i];
    if (b < 0x80) {
      out.push_back(static_cast<char>(fn(b)));
      ++i;
      continue;
    }
    size_t len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = len != 0 && i + len <= n;
    char32_t c = 0;
    if (ok) {
      c = len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
      for (size_t k = 1; k < len; ++k) {
        if ((p[i + k] & 0xC0) != 0x80) {
          ok = false;
          break;
        }
        c = (c << 6) | (p[i + k] & 0x3F);
      }
    }
    if (!ok) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    char32_t m = fn(c);
    if (m == c)
      out.append(s, i, len);
    else
      AppendUtf8(out, m);
    i += len;
  }
  return out;
}

std::string ToLower(const std::string& s) { return MapCase(s, LowerCodePoint); }
std::string ToUpper(const std::string& s) { return MapCase(s, UpperCodePoint); }

void RequireString(const Tensor& t, const KernelContext& ctx, const char* what) {
  if (t.dtype() != DataType::kString) ctx.Fail(what, " must be a string tensor, got ", DataTypeName(t.dtype()));
}

// ---- StringNormalizer -----------------------------------------------------------

class StringNormalizer final : public OpKernel {
 public:
  explicit StringNormalizer(const KernelInfo& info) {
    std::string action = info.attr_string("case_change_action", "NONE");
    if (action == "NONE")
      action_ = 0;
    else if (action == "LOWER")
      action_ = 1;
    else if (action == "UPPER")
      action_ = 2;
    else
      info.Fail("case_change_action must be NONE, LOWER or UPPER, got '", action, "'");
    case_sensitive_ = info.attr_int("is_case_sensitive", 0) != 0;
    for (const auto& w : info.attr_strings("stopwords", {})) stopwords_.insert(case_sensitive_ ? w : ToLower(w));
    // `locale` is accepted; case mapping is locale-independent by design.
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    RequireString(x, ctx, "X");
    const Shape& s = x.shape();
    bool two_dim = s.size() == 2;
    if (!(s.size() == 1 || (two_dim && s[0] == 1)))
      ctx.Fail("X must have shape [C] or [1, C], got ", ShapeToString(s));
    const std::string* in = x.data<std::string>();
    std::vector<std::string> kept;
    kept.reserve(static_cast<size_t>(x.numel()));
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string& w = in[i];
      if (!stopwords_.empty() && stopwords_.count(case_sensitive_ ? w : ToLower(w))) continue;
      kept.push_back(action_ == 0 ? w : action_ == 1 ? ToLower(w) : ToUpper(w));
    }
    if (kept.empty()) kept.emplace_back();  // all dropped: one empty string
    int64_t c = static_cast<int64_t>(kept.size());
    Tensor& y = ctx.allocate_output(0, DataType::kString, two_dim ? Shape{1, c} : Shape{c});
    std::string* out = y.data<std::string>();
    for (int64_t i = 0; i < c; ++i) out[i] = std::move(kept[static_cast<size_t>(i)]);
  }

 private:
  int action_ = 0;
  bool case_sensitive_ = false;
  std::unordered_set<std::string> stopwords_;
};

// ---- StringConcat -----------------------------------------------------------------

class StringConcat final : public OpKernel {
 public:
  explicit StringConcat(const KernelInfo&) {}

  void Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    RequireString(a, ctx, "X");
    RequireString(b, ctx, "Y");
    Shape out_shape = BroadcastShapes({a.shape(), b.shape()}, ctx);
    Tensor& out = ctx.allocate_output(0, DataType::kString, out_shape);
    if (out.numel() == 0) return;
    const std::string* pa = a.data<std::string>();
    const std::string* pb = b.data<std::string>();
    std::string* po = out.data<std::string>();
    BroadcastIndexer idx(out_shape, {a.shape(), b.shape()});
    idx.ForEachRun([&](int64_t o, const int64_t* offs, int64_t n, const int64_t* steps) {
      for (int64_t k = 0; k < n; ++k) {
        const std::string& l = pa[offs[0] + k * steps[0]];
        const std::string& r = pb[offs[1] + k * steps[1]];
        std::string& d = po[o + k];
        d.reserve(l.size() + r.size());
        d.assign(l);
        d.append(r);
      }
    });
  }
};

// ---- StringSplit -------------------------------------------------------------------

class StringSplit final : public OpKernel {
 public:
  explicit StringSplit(const KernelInfo& info)
      : delimiter_(info.attr_string("delimiter", "")), maxsplit_(info.attr_int("maxsplit", -1)) {
    if (info.has_attr("maxsplit") && maxsplit_ < 0) info.Fail("maxsplit must be >= 0, got ", maxsplit_);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    RequireString(x, ctx, "X");
    const std::string* in = x.data<std::string>();
    int64_t n = x.numel();
    std::vector<std::vector<std::string>> parts(static_cast<size_t>(n));
    int64_t widest = 0;
    for (int64_t i = 0; i < n; ++i) {
      parts[static_cast<size_t>(i)] = Split(in[i]);
      widest = std::max<int64_t>(widest, static_cast<int64_t>(parts[static_cast<size_t>(i)].size()));
    }
    Shape ys = x.shape();
    ys.push_back(widest);
    Tensor& y = ctx.allocate_output(0, DataType::kString, ys);
    std::string* out = y.data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      auto& p = parts[static_cast<size_t>(i)];
      for (size_t k = 0; k < p.size(); ++k) out[i * widest + static_cast<int64_t>(k)] = std::move(p[k]);
    }
    if (ctx.output_requested(1)) {
      Tensor& z = ctx.allocate_output(1, DataType::kInt64, x.shape());
      int64_t* counts = z.data<int64_t>();
      for (int64_t i = 0; i < n; ++i) counts[i] = static_cast<int64_t>(parts[static_cast<size_t>(i)].size());
    }
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

  std::vector<std::string> Split(const std::string& s) const {
    std::vector<std::string> out;
    int64_t splits = 0;
    bool limited = maxsplit_ >= 0;
    if (delimiter_.empty()) {
      size_t i = 0, n = s.size();
      while (i < n) {
        while (i < n && IsSpace(s[i])) ++i;
        if (i >= n) break;
        if (limited && splits >= maxsplit_) {
          out.emplace_back(s, i, std::string::npos);  // remainder keeps trailing blanks
          break;
        }
        size_t j = i;
        while (j < n && !IsSpace(s[j])) ++j;
        out.emplace_back(s, i, j - i);
        ++splits;
        i = j;
      }
      return out;
    }
    size_t start = 0;
    while (true) {
      if (limited && splits >= maxsplit_) break;
      size_t pos = s.find(delimiter_, start);
      if (pos == std::string::npos) break;
      out.emplace_back(s, start, pos - start);
      start = pos + delimiter_.size();
      ++splits;
    }
    out.emplace_back(s, start, std::string::npos);
    return out;
  }

  std::string delimiter_;
  int64_t maxsplit_;
};

// ---- RegexFullMatch ---------------------------------------------------------------

// Translates the RE2 features std::regex (ECMAScript) lacks and refuses the
// ECMAScript-only ones RE2 rejects, so behaviour follows RE2 syntax.
std::string TranslateRe2(const std::string& p, std::regex_constants::syntax_option_type* flags, std::string* error) {
  std::string out;
  size_t i = 0, n = p.size();
  // Leading inline flags: (?i), (?s), (?is)...
  if (p.compare(0, 2, "(?") == 0) {
    size_t j = 2;
    bool ok = true;
    while (j < n && p[j] != ')') {
      if (p[j] == 'i')
        *flags |= std::regex_constants::icase;
      else if (p[j] != 's' && p[j] != 'm' && p[j] != 'U')
        ok = false;
      ++j;
    }
    if (ok && j < n && j > 2) i = j + 1;
  }
  bool in_class = false;
  for (; i < n; ++i) {
    char c = p[i];
    if (c == '\\') {
      if (i + 1 >= n) {
        *error = "trailing backslash";
        return {};
      }
      char e = p[i + 1];
      if (!in_class && e >= '1' && e <= '9') {
        *error = "backreferences are not supported by RE2";
        return {};
      }
      if (e == 'A' && !in_class) {
        out += "^";
      } else if (e == 'z' && !in_class) {
        out += "$";
      } else {
        out += c;
        out += e;
      }
      ++i;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < n && p[i + 1] == ':') {  // [:alpha:] inside a class
        size_t close = p.find(":]", i + 2);
        if (close != std::string::npos) {
          out.append(p, i, close + 2 - i);
          i = close + 1;
          continue;
        }
      }
      if (c == ']') in_class = false;
      out += c;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < n && p[i + 1] == '^') out += p[++i];
      if (i + 1 < n && p[i + 1] == ']') out += p[++i];  // literal ']' first in a class
      continue;
    }
    if (c == '(' && i + 1 < n && p[i + 1] == '?') {
      if (i + 2 < n && (p[i + 2] == '=' || p[i + 2] == '!' || p[i + 2] == '<') &&
          !(p[i + 2] == '<' && i + 3 < n && p[i + 3] != '=' && p[i + 3] != '!')) {
        *error = "lookaround assertions are not supported by RE2";
        return {};
      }
      if (i + 2 < n && p[i + 2] == 'P' && i + 3 < n && p[i + 3] == '<') {  // (?P<name>...)
        size_t close = p.find('>', i + 4);
        if (close == std::string::npos) {
          *error = "unterminated group name";
          return {};
        }
        out += '(';
        i = close;
        continue;
      }
      if (i + 2 < n && p[i + 2] == '<') {  // (?<name>...)
        size_t close = p.find('>', i + 3);
        if (close == std::string::npos) {
          *error = "unterminated group name";
          return {};
        }
        out += '(';
        i = close;
        continue;
      }
    }
    if (c == '{') {  // RE2 caps repetition counts at 1000
      size_t j = i + 1;
      int64_t v = 0;
      bool digits = false;
      while (j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == ',')) {
        if (p[j] == ',') {
          v = 0;
        } else {
          digits = true;
          v = std::min<int64_t>(v * 10 + (p[j] - '0'), 100000);
          if (v > 1000) {
            *error = "repetition count exceeds 1000";
            return {};
          }
        }
        ++j;
      }
      (void)digits;
    }
    out += c;
  }
  return out;
}

class RegexFullMatch final : public OpKernel {
 public:
  explicit RegexFullMatch(const KernelInfo& info) {
    std::string pattern = info.attr_string("pattern");
    std::regex_constants::syntax_option_type flags = std::regex_constants::ECMAScript;
    std::string error;
    std::string translated = TranslateRe2(pattern, &flags, &error);
    if (!error.empty()) info.Fail("invalid regex pattern '", pattern, "': ", error);
    try {
#ifdef __GLIBCXX__
      // Breadth-first executor: time linear in the input, stack bounded by the pattern.
      flags |= std::regex_constants::__polynomial;
#endif
      re_ = std::regex(translated, flags | std::regex_constants::optimize);
    } catch (const std::regex_error& e) {
      info.Fail("invalid regex pattern '", pattern, "': ", e.what());
    }
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    RequireString(x, ctx, "X");
    Tensor& y = ctx.allocate_output(0, DataType::kBool, x.shape());
    const std::string* in = x.data<std::string>();
    bool* out = y.data<bool>();
    auto match_flags = std::regex_constants::match_default;
    // Workers must not throw: an evaluation error is reported after the loop.
    std::atomic<bool> failed{false};
    ParallelFor(ctx.thread_pool(), x.numel(), 64, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        try {
          out[i] = std::regex_match(in[i], re_, match_flags);
        } catch (const std::exception&) {
          failed = true;
          return;
        }
      }
    });
    if (failed) ctx.Fail("regex evaluation failed (input too complex for the pattern)");
  }

 private:
  std::regex re_;
};

// ---- TfIdfVectorizer ----------------------------------------------------------------

struct VecHash {
  size_t operator()(const std::vector<int64_t>& v) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : v) {
      h ^= static_cast<uint64_t>(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};

class TfIdfVectorizer final : public OpKernel {
 public:
  explicit TfIdfVectorizer(const KernelInfo& info) {
    min_n_ = info.attr_int("min_gram_length");
    max_n_ = info.attr_int("max_gram_length");
    max_skip_ = info.attr_int("max_skip_count");
    std::string mode = info.attr_string("mode");
    if (mode == "TF")
      mode_ = 0;
    else if (mode == "IDF")
      mode_ = 1;
    else if (mode == "TFIDF")
      mode_ = 2;
    else
      info.Fail("mode must be TF, IDF or TFIDF, got '", mode, "'");
    if (min_n_ < 1 || max_n_ < min_n_) info.Fail("need 1 <= min_gram_length <= max_gram_length");
    if (max_skip_ < 0) info.Fail("max_skip_count must be >= 0");
    std::vector<int64_t> counts = info.attr_ints("ngram_counts");
    std::vector<int64_t> indexes = info.attr_ints("ngram_indexes");
    weights_ = info.attr_floats("weights", {});
    bool has_int = info.has_attr("pool_int64s"), has_str = info.has_attr("pool_strings");
    if (has_int == has_str) info.Fail("exactly one of pool_int64s and pool_strings must be set");
    strings_ = has_str;
    std::vector<int64_t> pool;
    if (has_int) {
      pool = info.attr_ints("pool_int64s");
    } else {
      for (const auto& s : info.attr_strings("pool_strings")) {
        auto it = vocab_.emplace(s, static_cast<int64_t>(vocab_.size())).first;
        pool.push_back(it->second);
      }
    }
    if (!weights_.empty() && weights_.size() != indexes.size())
      info.Fail("weights has ", weights_.size(), " entries, ngram_indexes has ", indexes.size());
    for (int64_t v : indexes) {
      if (v < 0) info.Fail("ngram_indexes must be >= 0");
      out_size_ = std::max(out_size_, v + 1);
    }
    int64_t pool_size = static_cast<int64_t>(pool.size());
    size_t gram = 0;  // index into ngram_indexes
    for (size_t k = 0; k < counts.size(); ++k) {
      int64_t n = static_cast<int64_t>(k) + 1;
      int64_t begin = counts[k];
      int64_t end = k + 1 < counts.size() ? counts[k + 1] : pool_size;
      if (begin < 0 || end < begin || end > pool_size) info.Fail("ngram_counts is inconsistent with the pool size");
      if ((end - begin) % n != 0) info.Fail("pool entries for ", n, "-grams are not a multiple of ", n);
      for (int64_t p = begin; p < end; p += n, ++gram) {
        if (gram >= indexes.size()) info.Fail("ngram_indexes has fewer entries than the pool has n-grams");
        if (n < min_n_ || n > max_n_) continue;
        std::vector<int64_t> key(pool.begin() + p, pool.begin() + p + n);
        grams_[key] = static_cast<int64_t>(gram);
      }
    }
    gram_index_ = std::move(indexes);
  }

  void Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (strings_ && x.dtype() != DataType::kString) ctx.Fail("X must be a string tensor when pool_strings is set");
    if (!strings_ && x.dtype() != DataType::kInt32 && x.dtype() != DataType::kInt64)
      ctx.Fail("X must be int32 or int64 when pool_int64s is set, got ", DataTypeName(x.dtype()));
    if (x.rank() != 1 && x.rank() != 2) ctx.Fail("X must be 1-D or 2-D, got ", ShapeToString(x.shape()));
    int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    int64_t cols = x.rank() == 2 ? x.dim(1) : x.dim(0);
    Tensor& y = ctx.allocate_output(0, DataType::kFloat, x.rank() == 2 ? Shape{rows, out_size_} : Shape{out_size_});
    float* out = y.data<float>();
    std::fill(out, out + y.numel(), 0.0f);
    if (cols == 0 || out_size_ == 0) return;
    // Tokens as ids (-1: a string not in the pool).
    std::vector<int64_t> tokens(static_cast<size_t>(x.numel()));
    if (strings_) {
      const std::string* p = x.data<std::string>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = vocab_.find(p[i]);
        tokens[static_cast<size_t>(i)] = it == vocab_.end() ? -1 : it->second;
      }
    } else {
      for (int64_t i = 0; i < x.numel(); ++i) tokens[static_cast<size_t>(i)] = x.GetAsInt64(i);
    }
    ParallelFor(ctx.thread_pool(), rows, 1, [&](int64_t rb, int64_t re) {
      std::vector<int64_t> key;
      std::vector<double> counts(gram_index_.size());
      for (int64_t r = rb; r < re; ++r) {
        std::fill(counts.begin(), counts.end(), 0.0);
        const int64_t* t = tokens.data() + r * cols;
        for (int64_t n = min_n_; n <= max_n_; ++n) {
          int64_t skips = n == 1 ? 0 : max_skip_;
          for (int64_t s = 0; s <= skips; ++s) {
            int64_t step = s + 1;
            for (int64_t start = 0; start + (n - 1) * step < cols; ++start) {
              key.clear();
              for (int64_t k = 0; k < n; ++k) key.push_back(t[start + k * step]);
              auto it = grams_.find(key);
              if (it != grams_.end()) counts[static_cast<size_t>(it->second)] += 1.0;
            }
          }
        }
        float* o = out + r * out_size_;
        for (size_t g = 0; g < counts.size(); ++g) {
          if (counts[g] == 0) continue;
          double w = weights_.empty() ? 1.0 : weights_[g];
          double v = mode_ == 0 ? counts[g] : mode_ == 1 ? w : counts[g] * w;
          o[gram_index_[g]] = static_cast<float>(v);
        }
      }
    });
  }

 private:
  int64_t min_n_ = 1, max_n_ = 1, max_skip_ = 0;
  int mode_ = 0;
  bool strings_ = false;
  std::vector<float> weights_;
  std::vector<int64_t> gram_index_;
  int64_t out_size_ = 0;
  std::unordered_map<std::string, int64_t> vocab_;
  std::unordered_map<std::vector<int64_t>, int64_t, VecHash> grams_;
};

}  // namespace

std::vector<KernelRow> StringKernels() {
  const std::vector<DataType> str = {DataType::kString};
  return {
      {"ai.onnx", "StringNormalizer", 10, kMaxOnnxOpset, str, Make<StringNormalizer>()},
      {"ai.onnx", "StringConcat", 20, kMaxOnnxOpset, str, Make<StringConcat>()},
      {"ai.onnx", "StringSplit", 20, kMaxOnnxOpset, str, Make<StringSplit>()},
      {"ai.onnx", "RegexFullMatch", 20, kMaxOnnxOpset, str, Make<RegexFullMatch>()},
      {"ai.onnx", "TfIdfVectorizer", 9, kMaxOnnxOpset, {DataType::kString, DataType::kInt32, DataType::kInt64},
       Make<TfIdfVectorizer>()},
  };
}

}  // namespace tessera::cpu
