// `tessera doctor MODEL [--providers LIST] [--static] [--json] [--fail-on
// SEVERITY] [--free-dim NAME=SIZE]`: what in an exported model will not
// deploy well, one finding per line, each with the export fix.
#include <cstdio>

#include "tessera/api/providers.h"
#include "tessera/format/model_loader.h"
#include "tessera/tools/cli.h"
#include "tessera/tools/doctor.h"
#include "tessera/tools/placement_plan.h"

namespace tessera::cli {

namespace {

void PrintFindingsText(const std::string& model, const std::vector<std::string>& providers,
                       const std::vector<Finding>& findings) {
  int count[3] = {0, 0, 0};
  for (const auto& f : findings) count[static_cast<int>(f.severity)]++;
  std::string list;
  for (const auto& p : providers) list += (list.empty() ? "" : ",") + p;
  std::printf("doctor %s (providers %s): %zu finding(s): %d error, %d warning, %d info\n", model.c_str(), list.c_str(),
              findings.size(), count[2], count[1], count[0]);
  for (const auto& f : findings) {
    std::string nodes = f.nodes.empty() ? "" : " [" + NameList(f.nodes) + "]";
    std::printf("%s %s%s: %s. why: %s. fix: %s\n", SeverityName(f.severity), f.code.c_str(), nodes.c_str(),
                f.what.c_str(), f.why.c_str(), f.fix.c_str());
  }
}

void PrintFindingsJson(const std::string& model, const std::vector<std::string>& providers,
                       const std::vector<Finding>& findings) {
  std::printf("{\n  \"schema\": \"tessera.doctor/1\",\n  \"model\": \"%s\",\n  \"providers\": [", JsonEscape(model).c_str());
  for (size_t i = 0; i < providers.size(); ++i) std::printf("%s\"%s\"", i ? ", " : "", JsonEscape(providers[i]).c_str());
  std::printf("],\n  \"findings\": [\n");
  for (size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    std::printf("    {\"severity\": \"%s\", \"code\": \"%s\", \"nodes\": [", SeverityName(f.severity), f.code.c_str());
    for (size_t k = 0; k < f.nodes.size(); ++k) std::printf("%s\"%s\"", k ? ", " : "", JsonEscape(f.nodes[k]).c_str());
    std::printf("], \"what\": \"%s\", \"why\": \"%s\", \"fix\": \"%s\"}%s\n", JsonEscape(f.what).c_str(),
                JsonEscape(f.why).c_str(), JsonEscape(f.fix).c_str(), i + 1 < findings.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace

int DoctorCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"json", "static"});
  if (args.positional.size() != 1)
    TS_THROW(kInvalidArgument,
             "usage: tessera doctor MODEL [--providers LIST] [--static] [--json] [--fail-on info|warning|error] "
             "[--free-dim NAME=SIZE]");
  const std::string& path = args.positional[0];
  FindingSeverity fail_on = ParseSeverity(args.get("fail-on", "error"));
  std::vector<std::string> names = SplitList(args.get("providers", DefaultProviderList()));
  Model model = LoadModelFromFile(path);
  DoctorInput in;
  in.model = &model;
  in.provider_names = names;
  in.providers = MakeProviders(names);
  in.free_dims = ParseFreeDims(args);
  in.want_static = args.has("static");
  std::vector<Finding> findings;
  Plan plan, static_plan;
  try {
    plan = MakePlan(path, names, args);
    in.plan = &plan;
  } catch (const Error& e) {
    findings.push_back({FindingSeverity::kError, "does-not-load", {}, std::string("a session cannot be made: ") + e.what(),
                        "the model does not run with these providers at all",
                        "the error names the node and the reason; the findings below give the export fix where one "
                        "is known"});
  }
  // The same placement with every named input dimension fixed (at 1, or
  // what --free-dim says), to see which providers need static shapes.
  if (in.plan) {
    Args fixed = args;
    bool any = false;
    for (const auto& i : model.graph->inputs)
      if (i.type.shape)
        for (const Dim& d : *i.type.shape)
          if (!d.known() && !d.param.empty()) {
            bool given = false;
            for (const auto& o : in.free_dims) given |= o.key == d.param;
            if (!given) {
              fixed.options.emplace("free-dim", d.param + "=1");
              any = true;
            }
          }
    if (any) {
      try {
        static_plan = MakePlan(path, names, fixed);
        in.static_plan = &static_plan;
      } catch (const Error&) {
        // Fixed at 1 the model may not be valid (a dim that must be > 1): then
        // there is no comparison to make.
      }
    }
  }
  CheckConstants(in, &findings);
  CheckControlFlow(in, &findings);
  CheckDynamicDims(in, &findings);
  CheckUnsupportedOps(in, &findings);
  CheckMissingKernels(in, &findings);
  CheckOpsets(in, &findings);
  AddReexportAdvice(in, &findings);
  if (args.has("json")) PrintFindingsJson(path, names, findings);
  else PrintFindingsText(path, names, findings);
  for (const auto& f : findings)
    if (f.severity >= fail_on) return 1;
  return 0;
}

}  // namespace tessera::cli
