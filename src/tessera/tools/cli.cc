#include "tessera/tools/cli.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>

#include "tessera/base/cpu_isa.h"
#include "tessera/base/half.h"
#include "tessera/base/json.h"
#include "tessera/format/model_loader.h"
#include "tessera/format/npy.h"
#include "tessera/ir/tensor_compare.h"

namespace tessera::cli {

std::string Args::get(const std::string& name, const std::string& default_value) const {
  auto it = options.find(name);
  return it == options.end() ? default_value : it->second;
}

std::vector<std::string> Args::all(const std::string& name) const {
  std::vector<std::string> out;
  auto [b, e] = options.equal_range(name);
  for (auto it = b; it != e; ++it) out.push_back(it->second);
  return out;
}

int Args::get_int(const std::string& name, int default_value) const {
  if (!has(name)) return default_value;
  std::string v = get(name);
  char* end = nullptr;
  long r = std::strtol(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0') TS_THROW(kInvalidArgument, "--", name, " expects a number, got '", v, "'");
  return static_cast<int>(r);
}

Args ParseArgs(int argc, char** argv, int first, const std::vector<std::string>& flags) {
  Args args;
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0 && a.size() > 2) {
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      bool is_flag = false;
      for (const auto& f : flags) is_flag |= (f == name);
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (!is_flag) {
        if (i + 1 >= argc) TS_THROW(kInvalidArgument, "option --", name, " needs a value");
        value = argv[++i];
      }
      args.options.emplace(name, value);
    } else {
      args.positional.push_back(a);
    }
  }
  return args;
}

std::vector<std::string> SplitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::vector<FreeDimensionOverride> ParseFreeDims(const Args& args) {
  std::vector<FreeDimensionOverride> out;
  for (const auto& list : args.all("free-dim"))
    for (const auto& item : SplitList(list)) {
      size_t eq = item.find('=');
      std::string name = item.substr(0, eq), size = eq == std::string::npos ? "" : item.substr(eq + 1);
      char* end = nullptr;
      long long v = size.empty() ? -1 : std::strtoll(size.c_str(), &end, 10);
      if (name.empty() || size.empty() || *end != '\0' || v < 0)
        TS_THROW(kInvalidArgument, "--free-dim expects NAME=SIZE (a symbolic input dimension and a size >= 0), got '",
                 item, "'");
      FreeDimensionOverride o;
      o.match = FreeDimensionOverride::Match::kName;
      o.key = name;
      o.value = v;
      out.push_back(o);
    }
  return out;
}

void ApplyCompileArgs(const Args& args, SessionOptions& options) {
  for (auto& o : ParseFreeDims(args)) options.free_dimension_overrides.push_back(std::move(o));
  if (args.has("no-winograd")) options.winograd_convolutions = false;
  if (args.has("max-isa")) options.max_isa = IsaLevelName(ParseIsaLevel(args.get("max-isa"), "--max-isa"));
  if (args.has("level")) options.graph_optimization_level = ParseOptimizationLevel(args.get("level"));
  std::vector<std::string> known = PassManager().PassNames();
  for (const auto& list : args.all("disable"))
    for (const auto& name : SplitList(list)) {
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::string valid;
        for (const auto& k : known) valid += (valid.empty() ? "" : ", ") + k;
        TS_THROW(kInvalidArgument, "--disable: unknown graph optimizer pass '", name, "' (passes: ", valid, ")");
      }
      options.disabled_optimizers.push_back(name);
    }
}

Value MakeDefaultInput(const ValueInfo& info, uint64_t seed) {
  if (!info.type.is_tensor())
    TS_THROW(kInvalidArgument, "input '", info.name, "' is a ", info.type.TypeString(),
             "; give it with --input NAME=FILE.pb");
  Shape shape;
  if (info.type.shape)
    for (const Dim& d : *info.type.shape) shape.push_back(d.known() ? d.value : 1);
  Tensor t(info.type.elem_type, shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case DataType::kFloat: t.data<float>()[i] = uni(rng); break;
      case DataType::kDouble: t.data<double>()[i] = uni(rng); break;
      case DataType::kFloat16: t.data<uint16_t>()[i] = FloatToHalf(uni(rng)); break;
      case DataType::kBFloat16: t.data<uint16_t>()[i] = FloatToBFloat16(uni(rng)); break;
      case DataType::kInt64: t.data<int64_t>()[i] = static_cast<int64_t>(rng() % 100); break;
      case DataType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(rng() % 100); break;
      case DataType::kBool: t.data<bool>()[i] = (rng() & 1) != 0; break;
      case DataType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(rng()); break;
      case DataType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(rng()); break;
      default:
        TS_THROW(kNotImplemented, "cannot make a default value for input '", info.name, "' of type ",
                 info.type.TypeString(), "; give it with --input NAME=FILE");
    }
  }
  return Value(t);
}

Value LoadInputFile(const std::string& path, const TypeInfo& expected) {
  if (path.size() > 4 && path.substr(path.size() - 4) == ".npy") return Value(LoadNpyFile(path));
  return LoadValueFile(path, expected);
}

std::string DescribeValue(const Value& v, int count) {
  if (!v.is_tensor()) return v.Describe();
  const Tensor& t = v.tensor();
  std::ostringstream os;
  os << t.Describe() << " = [";
  int64_t n = std::min<int64_t>(t.numel(), count);
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ", ";
    if (t.dtype() == DataType::kString) os << '"' << t.data<std::string>()[i] << '"';
    else if (IsFloatingPoint(t.dtype())) os << ElementAsDouble(t, i);
    else if (t.dtype() == DataType::kComplex64 || t.dtype() == DataType::kComplex128) os << "(complex)";
    else if (IsSubByte(t.dtype())) os << "(packed)";
    else os << t.GetAsInt64(i);
  }
  if (t.numel() > n) os << ", ...";
  os << "]";
  return os.str();
}

}  // namespace tessera::cli
