// `tessera partition MODEL --providers LIST [--json] [--compare A B]
// [--html OUT.html [--profile TRACE.json]] [--annotate OUT.onnx]`: where each
// node would run, the partitions, every copy between memory spaces and its
// bytes per run — without running the model.
#include <cstdio>
#include <fstream>

#include "tessera/api/providers.h"
#include "tessera/tools/cli.h"
#include "tessera/tools/placement_annotate.h"
#include "tessera/tools/placement_html.h"
#include "tessera/tools/placement_plan.h"

namespace tessera::cli {

namespace {

void PrintText(const Plan& plan) {
  for (const auto& n : plan.nodes) {
    std::printf("node %-40s %-24s -> %s", n.node.c_str(), n.op_type.c_str(), n.provider.c_str());
    for (const auto& d : n.declined) std::printf("  [declined by %s]", d.c_str());
    std::printf("\n");
  }
  std::printf("\npartitions:\n");
  for (size_t p = 0; p < plan.partitions.size(); ++p)
    std::printf("  #%zu %-8s %zu nodes (%s .. %s)\n", p, plan.nodes[plan.partitions[p].front()].provider.c_str(),
                plan.partitions[p].size(), plan.nodes[plan.partitions[p].front()].node.c_str(),
                plan.nodes[plan.partitions[p].back()].node.c_str());
  std::printf("\ncopies:\n");
  if (plan.copies.empty()) std::printf("  none\n");
  for (const auto& c : plan.copies)
    std::printf("  %-40s %s -> %s  %s bytes\n", c.value.c_str(), c.from.c_str(), c.to.c_str(), c.bytes.c_str());
  std::printf("\n%s\n", Verdict(plan).c_str());
}

void PrintJson(const Plan& plan, const std::string& model, const std::vector<std::string>& providers) {
  std::printf("{\n  \"schema\": \"tessera.partition/1\",\n  \"model\": \"%s\",\n  \"providers\": [", JsonEscape(model).c_str());
  for (size_t i = 0; i < providers.size(); ++i) std::printf("%s\"%s\"", i ? ", " : "", JsonEscape(providers[i]).c_str());
  std::printf("],\n  \"nodes\": [\n");
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const auto& n = plan.nodes[i];
    std::printf("    {\"name\": \"%s\", \"op_type\": \"%s\", \"domain\": \"%s\", \"provider\": \"%s\", \"partition\": %zu, "
                "\"flops\": %lld, \"declined\": [",
                JsonEscape(n.node).c_str(), JsonEscape(n.op_type).c_str(), JsonEscape(n.domain).c_str(),
                JsonEscape(n.provider).c_str(), static_cast<size_t>(n.partition), static_cast<long long>(n.flops));
    for (size_t d = 0; d < n.declined.size(); ++d) std::printf("%s\"%s\"", d ? ", " : "", JsonEscape(n.declined[d]).c_str());
    std::printf("]}%s\n", i + 1 < plan.nodes.size() ? "," : "");
  }
  std::printf("  ],\n  \"partitions\": [\n");
  for (size_t p = 0; p < plan.partitions.size(); ++p)
    std::printf("    {\"id\": %zu, \"provider\": \"%s\", \"nodes\": %zu}%s\n", p,
                JsonEscape(plan.nodes[plan.partitions[p].front()].provider).c_str(), plan.partitions[p].size(),
                p + 1 < plan.partitions.size() ? "," : "");
  std::printf("  ],\n  \"copies\": [\n");
  for (size_t i = 0; i < plan.copies.size(); ++i) {
    const auto& c = plan.copies[i];
    std::printf("    {\"value\": \"%s\", \"from\": \"%s\", \"to\": \"%s\", \"bytes\": \"%s\"}%s\n", JsonEscape(c.value).c_str(),
                JsonEscape(c.from).c_str(), JsonEscape(c.to).c_str(), JsonEscape(c.bytes).c_str(),
                i + 1 < plan.copies.size() ? "," : "");
  }
  std::printf("  ],\n  \"verdict\": \"%s\"\n}\n", JsonEscape(Verdict(plan)).c_str());
}

}  // namespace

int PartitionCommand(int argc, char** argv) {
  Args args = ParseArgs(argc, argv, 2, {"json"});
  if (args.positional.empty())
    TS_THROW(kInvalidArgument, "usage: tessera partition MODEL [--providers LIST] [--json] "
             "[--html OUT.html [--profile TRACE.json]] [--annotate OUT.onnx]");
  const std::string& model = args.positional[0];
  if (args.has("compare")) {
    // --compare A B: two provider lists, e.g. --compare opencl,cpu cpu
    if (args.positional.size() != 2) TS_THROW(kInvalidArgument, "usage: tessera partition MODEL --compare LIST_A LIST_B");
    std::vector<std::string> a = SplitList(args.get("compare")), b = SplitList(args.positional[1]);
    Plan pa = MakePlan(model, a, args), pb = MakePlan(model, b, args);
    std::printf("A (%s): %s\nB (%s): %s\n", args.get("compare").c_str(), Verdict(pa).c_str(), args.positional[1].c_str(),
                Verdict(pb).c_str());
    int differ = 0;
    for (size_t i = 0; i < pa.nodes.size() && i < pb.nodes.size(); ++i)
      if (pa.nodes[i].provider != pb.nodes[i].provider) {
        std::printf("  node %-40s A: %-8s B: %s\n", pa.nodes[i].node.c_str(), pa.nodes[i].provider.c_str(),
                    pb.nodes[i].provider.c_str());
        ++differ;
      }
    std::printf("%d node(s) placed differently\n", differ);
    return 0;
  }
  std::vector<std::string> providers = SplitList(args.get("providers", DefaultProviderList()));
  if (args.has("profile") && !args.has("html"))
    TS_THROW(kInvalidArgument, "--profile TRACE.json shades the placement map: give it with --html OUT.html");
  Plan plan = MakePlan(model, providers, args);
  if (args.has("html") || args.has("annotate")) {
    if (args.has("html")) {
      std::string path = args.get("html");
      std::string page = PlacementMapHtml(plan, {model, providers, args.get("profile")});
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(page.data(), static_cast<std::streamsize>(page.size()));
      if (!out) TS_THROW(kInvalidArgument, "--html: cannot write '", path, "'");
      std::printf("placement map: %s (%zu nodes)\n", path.c_str(), plan.nodes.size());
    }
    if (args.has("annotate")) {
      size_t n = WriteAnnotatedModel(plan, model, args.get("annotate"));
      std::printf("annotated model: %s (%zu nodes with tessera.provider in metadata_props)\n",
                  args.get("annotate").c_str(), n);
    }
    std::printf("%s\n", Verdict(plan).c_str());
    return 0;
  }
  if (args.has("json")) PrintJson(plan, model, providers);
  else PrintText(plan);
  return 0;
}

}  // namespace tessera::cli
