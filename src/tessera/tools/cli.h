// Small helpers shared by the `tessera` subcommands.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tessera/base/json.h"
#include "tessera/ir/value.h"
#include "tessera/runtime/session.h"

namespace tessera::cli {

// Parses "--name value" / "--name=value" / "--flag" options; the rest are
// positional arguments. `flags` lists options that take no value.
struct Args {
  std::vector<std::string> positional;
  std::multimap<std::string, std::string> options;

  bool has(const std::string& name) const { return options.count(name) > 0; }
  std::string get(const std::string& name, const std::string& default_value = "") const;
  std::vector<std::string> all(const std::string& name) const;
  int get_int(const std::string& name, int default_value) const;
};
Args ParseArgs(int argc, char** argv, int first, const std::vector<std::string>& flags);

std::vector<std::string> SplitList(const std::string& s, char sep = ',');
// Applies how the session compiles the graph: --level L (disabled|basic|
// extended|layout|all), --disable A,B (pass names) and the flag
// --no-winograd (SessionOptions::winograd_convolutions = false), and
// --max-isa avx512|avx2|sse4|scalar (SessionOptions::max_isa).
// --free-dim NAME=SIZE (repeatable, or NAME=SIZE,NAME=SIZE) fixes symbolic
// input dimensions through SessionOptions::free_dimension_overrides.
void ApplyCompileArgs(const Args& args, SessionOptions& options);
std::vector<FreeDimensionOverride> ParseFreeDims(const Args& args);
// A deterministic pseudo-random value for a declared input (symbolic dims = 1).
Value MakeDefaultInput(const ValueInfo& info, uint64_t seed);
// Loads a tensor from .pb (TensorProto) or .npy.
Value LoadInputFile(const std::string& path, const TypeInfo& expected);
// "float[1,1000] = [0.1, 0.2, ...]" with up to `count` leading values.
std::string DescribeValue(const Value& v, int count = 8);

int RunCommand(int argc, char** argv);
int ConformanceCommand(int argc, char** argv);
int OpsCommand(int argc, char** argv);
int ProfileCommand(int argc, char** argv);
int BenchCommand(int argc, char** argv);
int PartitionCommand(int argc, char** argv);
int ValidateCommand(int argc, char** argv);
int OptimizeCommand(int argc, char** argv);
int IsaCommand(int argc, char** argv);
int QuantizeCommand(int argc, char** argv);
int DoctorCommand(int argc, char** argv);
int GenerateCommand(int argc, char** argv);

}  // namespace tessera::cli
