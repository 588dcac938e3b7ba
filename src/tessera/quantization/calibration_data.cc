#include "tessera/quantization/calibration_data.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "tessera/base/status.h"
#include "tessera/format/model_loader.h"
#include "tessera/format/npy.h"

namespace tessera::quant {

namespace fs = std::filesystem;

namespace {

bool IsDataFile(const fs::path& p) { return p.extension() == ".npy" || p.extension() == ".pb"; }

// Reference outputs of an ONNX test folder (output_K.pb) are not inputs.
bool IsReferenceOutput(const fs::path& p) {
  const std::string stem = p.stem().string();
  return stem.rfind("output_", 0) == 0 && std::all_of(stem.begin() + 7, stem.end(), [](unsigned char c) {
           return std::isdigit(c);
         });
}

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string InputNames(const std::vector<ValueInfo>& inputs) {
  std::string out;
  for (const auto& in : inputs) out += (out.empty() ? "" : ", ") + in.name;
  return out;
}

// The input a file in a batch folder holds: input_K by position, else its stem.
std::string InputForFile(const fs::path& file, const std::vector<ValueInfo>& inputs) {
  const std::string stem = file.stem().string();
  for (const auto& in : inputs)
    if (in.name == stem) return in.name;
  if (stem.rfind("input_", 0) == 0 && AllDigits(stem.substr(6))) {
    const size_t k = std::stoul(stem.substr(6));
    if (k < inputs.size()) return inputs[k].name;
  }
  TS_THROW(kInvalidArgument, "calibration file '", file.string(), "' names no model input (inputs: ",
           InputNames(inputs), "; expected NAME.npy, NAME.pb or input_K.pb)");
}

std::vector<fs::path> SortedEntries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

CalibrationFolder::CalibrationFolder(const std::string& dir, const std::vector<ValueInfo>& inputs) : inputs_(inputs) {
  std::error_code ec;
  TS_CHECK(fs::is_directory(dir, ec), kIoError, "calibration folder '", dir, "' does not exist or is not a folder");
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> loose;  // batch key -> files
  for (const fs::path& p : SortedEntries(dir)) {
    if (fs::is_directory(p)) {
      std::vector<std::pair<std::string, std::string>> batch;
      for (const fs::path& f : SortedEntries(p))
        if (IsDataFile(f) && !IsReferenceOutput(f)) batch.emplace_back(InputForFile(f, inputs_), f.string());
      if (!batch.empty()) batches_.push_back(std::move(batch));
      continue;
    }
    if (!IsDataFile(p)) continue;
    if (inputs_.size() == 1) {
      loose[p.filename().string()].emplace_back(inputs_[0].name, p.string());
      continue;
    }
    // NAME.npy or NAME_K.npy, the suffix naming the batch.
    const std::string stem = p.stem().string();
    std::string input, key = "";
    for (const auto& in : inputs_) {
      if (stem == in.name) input = in.name;
      else if (stem.rfind(in.name + "_", 0) == 0 && AllDigits(stem.substr(in.name.size() + 1))) {
        input = in.name;
        key = stem.substr(in.name.size() + 1);
      }
    }
    TS_CHECK(!input.empty(), kInvalidArgument, "calibration file '", p.string(), "' names no model input (inputs: ",
             InputNames(inputs_), "; expected NAME.npy or NAME_K.npy)");
    loose[key].emplace_back(input, p.string());
  }
  for (auto& [key, files] : loose) batches_.push_back(std::move(files));
  TS_CHECK(!batches_.empty(), kInvalidArgument, "calibration folder '", dir,
           "' holds no .npy or .pb inputs (expected test_data_set_*/input_K.pb or files named after the inputs: ",
           InputNames(inputs_), ")");
}

bool CalibrationFolder::Next(Feeds& feeds) {
  if (next_ >= batches_.size()) return false;
  feeds.clear();
  for (const auto& [input, file] : batches_[next_]) {
    const bool npy = fs::path(file).extension() == ".npy";
    feeds.emplace_back(input, Value(npy ? LoadNpyFile(file) : LoadTensorFile(file)));
  }
  ++next_;
  return true;
}

}  // namespace tessera::quant
