// `tessera validate`: run a model on reference inputs (saved from the training
// framework) and compare its outputs with the reference outputs.
//
// A reference is either
//   - a folder in the ONNX test layout: test_data_set_N/input_i.pb and
//     output_i.pb (each set is used), or a single folder holding
//     input_i / output_i as .pb or .npy (i = position in the model's inputs /
//     outputs), or
//   - a .npz archive (numpy.savez) whose arrays are named by the model's
//     input and output names. Only "stored" (uncompressed) entries are read.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tessera/api/providers.h"
#include "tessera/format/npy.h"
#include "tessera/ir/output_verdict.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

namespace fs = std::filesystem;

// One set of reference data: inputs and expected outputs, by name.
struct ReferenceSet {
  std::string label;
  std::map<std::string, Value> inputs;
  std::map<std::string, Value> outputs;
};

// ------------------------------------------------------------------- .npz

uint32_t Le(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return static_cast<uint32_t>(v);
}
uint64_t Le64(const std::string& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

// Reads every array of a numpy .npz archive (a zip file). The central
// directory gives each entry's sizes and the offset of its local header
// (zip64 extensions included, which numpy writes); the local header then
// locates the data.
std::map<std::string, Tensor> LoadNpz(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) TS_THROW(kIoError, "cannot open '", path, "'");
  std::string b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto bad = [&](const std::string& why) { TS_THROW(kInvalidArgument, "'", path, "' is not a valid .npz: ", why); };
  auto need = [&](uint64_t at, uint64_t len) {
    if (at > b.size() || len > b.size() - at) bad("truncated");
  };
  if (b.size() < 22) bad("too small for a zip archive");
  // End of central directory: the last "PK\5\6" within the final 64 KiB + 22.
  size_t eocd = std::string::npos;
  size_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (size_t i = b.size() - 22 + 1; i-- > lowest;)
    if (Le(b, i, 4) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) bad("no zip end-of-central-directory record");
  uint64_t count = Le(b, eocd + 10, 2);
  uint64_t cd_size = Le(b, eocd + 12, 4);
  uint64_t cd_offset = Le(b, eocd + 16, 4);
  if (count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    // zip64: a locator right before the EOCD points at the zip64 EOCD record.
    if (eocd < 20 || Le(b, eocd - 20, 4) != 0x07064b50) bad("zip64 locator missing");
    uint64_t z64 = Le64(b, eocd - 20 + 8);
    need(z64, 56);
    if (Le(b, z64, 4) != 0x06064b50) bad("bad zip64 end-of-central-directory record");
    count = Le64(b, z64 + 32);
    cd_size = Le64(b, z64 + 40);
    cd_offset = Le64(b, z64 + 48);
  }
  need(cd_offset, cd_size);
  std::map<std::string, Tensor> arrays;
  uint64_t p = cd_offset;
  for (uint64_t e = 0; e < count; ++e) {
    need(p, 46);
    if (Le(b, p, 4) != 0x02014b50) bad("bad central directory entry");
    uint32_t flags = Le(b, p + 8, 2);
    uint32_t method = Le(b, p + 10, 2);
    uint64_t csize = Le(b, p + 20, 4), usize = Le(b, p + 24, 4);
    uint32_t name_len = Le(b, p + 28, 2), extra_len = Le(b, p + 30, 2), comment_len = Le(b, p + 32, 2);
    uint64_t local = Le(b, p + 42, 4);
    need(p + 46, uint64_t{name_len} + extra_len + comment_len);
    std::string name = b.substr(p + 46, name_len);
    // zip64 extended information: 64-bit values for the fields set to ~0.
    for (uint64_t x = p + 46 + name_len, end = x + extra_len; x + 4 <= end;) {
      uint32_t id = Le(b, x, 2), len = Le(b, x + 2, 2);
      if (x + 4 + len > end) bad("bad extra field");
      if (id == 0x0001) {
        uint64_t q = x + 4, qend = q + len;
        auto take = [&](uint64_t& field) {
          if (q + 8 > qend) bad("short zip64 extra field");
          field = Le64(b, q);
          q += 8;
        };
        if (usize == 0xffffffffu) take(usize);
        if (csize == 0xffffffffu) take(csize);
        if (local == 0xffffffffu) take(local);
      }
      x += 4 + len;
    }
    p += 46 + uint64_t{name_len} + extra_len + comment_len;
    if (!name.empty() && name.back() == '/') continue;  // a folder entry
    if (method != 0)
      TS_THROW(kInvalidArgument, "'", path, "': entry '", name, "' is compressed (zip method ", method,
               "); only uncompressed archives are read: save it with numpy.savez, not numpy.savez_compressed");
    if (flags & 1) TS_THROW(kInvalidArgument, "'", path, "': entry '", name, "' is encrypted");
    if (csize != usize) bad("stored entry '" + name + "' has different compressed and uncompressed sizes");
    need(local, 30);
    if (Le(b, local, 4) != 0x04034b50) bad("bad local header for '" + name + "'");
    uint64_t data = local + 30 + Le(b, local + 26, 2) + Le(b, local + 28, 2);
    need(data, csize);
    std::string key = name;
    if (key.size() > 4 && key.compare(key.size() - 4, 4, ".npy") == 0) key.resize(key.size() - 4);
    arrays[key] = ParseNpy(b.substr(data, csize), "'" + name + "' in " + path);
  }
  return arrays;
}

// ------------------------------------------------------------- folders

bool HasSuffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// input_i / output_i (.pb or .npy) in one folder, mapped to the model's names.
ReferenceSet LoadFolderSet(const fs::path& dir, const Session& session) {
  ReferenceSet set;
  set.label = dir.filename().string();
  auto find = [&](const std::string& stem) -> fs::path {
    for (const char* ext : {".pb", ".npy"})
      if (fs::exists(dir / (stem + ext))) return dir / (stem + ext);
    return {};
  };
  const auto& inputs = session.inputs();
  const auto& outputs = session.outputs();
  for (size_t i = 0;; ++i) {
    fs::path f = find("input_" + std::to_string(i));
    if (f.empty()) break;
    if (i >= inputs.size())
      TS_THROW(kInvalidArgument, dir.string(), " has more inputs than the model (", inputs.size(), ")");
    set.inputs[inputs[i].name] = LoadInputFile(f.string(), inputs[i].type);
  }
  for (size_t i = 0;; ++i) {
    fs::path f = find("output_" + std::to_string(i));
    if (f.empty()) break;
    if (i >= outputs.size())
      TS_THROW(kInvalidArgument, dir.string(), " has more outputs than the model (", outputs.size(), ")");
    set.outputs[outputs[i].name] = LoadInputFile(f.string(), outputs[i].type);
  }
  if (set.inputs.empty() && set.outputs.empty())
    TS_THROW(kInvalidArgument, "no input_N / output_N files (.pb or .npy) in ", dir.string());
  return set;
}

std::vector<ReferenceSet> LoadReference(const std::string& ref, const Session& session) {
  std::vector<ReferenceSet> sets;
  std::error_code ec;
  if (fs::is_directory(ref, ec)) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(ref))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) dirs.push_back(fs::path(ref));
    for (const auto& d : dirs) sets.push_back(LoadFolderSet(d, session));
    return sets;
  }
  if (!fs::exists(ref, ec)) TS_THROW(kIoError, "reference '", ref, "' does not exist");
  if (!HasSuffix(ref, ".npz"))
    TS_THROW(kInvalidArgument, "--reference expects a folder or a .npz file, got '", ref, "'");
  ReferenceSet set;
  set.label = fs::path(ref).filename().string();
  std::map<std::string, Tensor> arrays = LoadNpz(ref);
  for (const auto& in : session.inputs()) {
    auto it = arrays.find(in.name);
    if (it == arrays.end()) continue;
    set.inputs[in.name] = Value(it->second);
    arrays.erase(it);
  }
  for (const auto& out : session.outputs()) {
    auto it = arrays.find(out.name);
    if (it == arrays.end()) continue;
    set.outputs[out.name] = Value(it->second);
    arrays.erase(it);
  }
  if (!arrays.empty()) {
    std::string names;
    for (const auto& in : session.inputs()) names += (names.empty() ? "" : ", ") + in.name;
    std::string outs;
    for (const auto& out : session.outputs()) outs += (outs.empty() ? "" : ", ") + out.name;
    TS_THROW(kInvalidArgument, "array '", arrays.begin()->first, "' in ", ref,
             " is neither an input nor an output of the model (inputs: ", names, "; outputs: ", outs, ")");
  }
  sets.push_back(std::move(set));
  return sets;
}

// ------------------------------------------------------------ reporting

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

}  // namespace

int ValidateCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"json", "verbose", "no-winograd"});
  if (args.positional.size() != 1 || !args.has("reference"))
    TS_THROW(kInvalidArgument, "usage: tessera validate MODEL --reference DIR|FILE.npz [--rtol R] [--atol A] [--json]");
  auto number = [&](const std::string& name, double def) {
    if (!args.has(name)) return def;
    std::string v = args.get(name);
    char* end = nullptr;
    double r = std::strtod(v.c_str(), &end);
    if (end == v.c_str() || *end != '\0' || !(r >= 0))
      TS_THROW(kInvalidArgument, "--", name, " expects a non-negative number, got '", v, "'");
    return r;
  };
  double rtol = number("rtol", 1e-3), atol = number("atol", 1e-5);
  const std::string path = args.positional[0];
  const std::string ref = args.get("reference");
  bool json = args.has("json");

  SessionOptions options;
  options.intra_op_num_threads = args.get_int("threads", 0);
  if (args.has("verbose")) options.log_severity_level = Severity::kVerbose;
  ApplyCompileArgs(args, options);
  auto session = Session::FromFile(path, options, MakeProviders(SplitList(args.get("providers", DefaultProviderList()))));
  std::vector<ReferenceSet> sets = LoadReference(ref, *session);

  std::vector<OutputVerdict> reports(session->outputs().size());
  for (size_t i = 0; i < reports.size(); ++i) reports[i].name = session->outputs()[i].name;
  for (const auto& set : sets) {
    Feeds feeds;
    for (const auto& in : session->inputs()) {
      auto it = set.inputs.find(in.name);
      if (it == set.inputs.end())
        TS_THROW(kInvalidArgument, "the reference (", set.label, ") has no value for model input '", in.name, "'");
      feeds.emplace_back(in.name, it->second);
    }
    if (set.outputs.empty())
      TS_THROW(kInvalidArgument, "the reference (", set.label, ") has no expected value for any model output");
    std::vector<Value> actual = session->Run(feeds);
    for (size_t i = 0; i < reports.size(); ++i) {
      auto it = set.outputs.find(reports[i].name);
      if (it == set.outputs.end()) continue;
      reports[i].Add(actual[i], it->second, rtol, atol, sets.size() > 1 ? set.label : std::string());
    }
  }
  bool passed = true;
  for (const auto& r : reports) passed &= r.passed;

  if (json) {
    std::ostringstream os;
    os << "{\"model\": \"" << JsonEscape(path) << "\", \"reference\": \"" << JsonEscape(ref) << "\", \"rtol\": "
       << Num(rtol) << ", \"atol\": " << Num(atol) << ", \"sets\": " << sets.size()
       << ", \"passed\": " << (passed ? "true" : "false") << ", \"outputs\": [";
    for (size_t i = 0; i < reports.size(); ++i) {
      const auto& r = reports[i];
      os << (i ? ", " : "") << "{\"name\": \"" << JsonEscape(r.name) << "\", \"checked\": "
         << (r.checked ? "true" : "false") << ", \"elements\": " << r.elements << ", \"mismatched\": " << r.mismatched
         << ", \"max_abs_error\": " << Num(r.max_abs_error) << ", \"max_rel_error\": " << Num(r.max_rel_error)
         << ", \"mismatch_fraction\": " << Num(r.mismatch_fraction()) << ", \"passed\": " << (r.passed ? "true" : "false")
         << ", \"message\": \"" << JsonEscape(r.message) << "\"}";
    }
    os << "]}\n";
    std::fputs(os.str().c_str(), stdout);
  } else {
    std::printf("model      %s\nreference  %s (%zu set%s)\ntolerance  |actual - expected| <= %s + %s * |expected|\n\n",
                path.c_str(), ref.c_str(), sets.size(), sets.size() == 1 ? "" : "s", Num(atol).c_str(),
                Num(rtol).c_str());
    std::printf("%-24s %12s %12s %12s  %s\n", "output", "max abs err", "max rel err", "outside tol", "verdict");
    for (const auto& r : reports) {
      if (!r.checked) {
        std::printf("%-24s %12s %12s %12s  %s\n", r.name.c_str(), "-", "-", "-", "not checked (no reference)");
        continue;
      }
      char frac[32];
      std::snprintf(frac, sizeof(frac), "%.4g%%", 100.0 * r.mismatch_fraction());
      std::printf("%-24s %12s %12s %12s  %s\n", r.name.c_str(), Num(r.max_abs_error).c_str(),
                  Num(r.max_rel_error).c_str(), frac, r.passed ? "PASS" : "FAIL");
      if (!r.passed) std::printf("    %s\n", r.message.c_str());
    }
    std::printf("\n%s\n", passed ? "PASSED" : "FAILED");
  }
  return passed ? 0 : 1;
}

}  // namespace tessera::cli
