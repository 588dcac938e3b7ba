// `tessera partition MODEL --providers LIST [--json] [--compare A B]`: where
// each node would run, the partitions, every copy between memory spaces and
// its bytes per run — without running the model.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "tessera/api/providers.h"
#include "tessera/tools/cli.h"

namespace tessera::cli {

namespace {

struct Plan {
  std::vector<NodePlacement> nodes;
  std::vector<std::vector<size_t>> partitions;  // node indices, runs of one provider
  struct CopyRow {
    std::string value, from, to, bytes;  // bytes: a number, or an expression of symbolic dims
  };
  std::vector<CopyRow> copies;
};

Plan MakePlan(const std::string& path, const std::vector<std::string>& providers, const Args& args) {
  SessionOptions options;
  options.intra_op_num_threads = 1;
  ApplyCompileArgs(args, options);
  auto session = Session::FromFile(path, options, MakeProviders(providers));
  Plan plan;
  plan.nodes = session->Placement();
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    size_t p = static_cast<size_t>(plan.nodes[i].partition);
    if (plan.partitions.size() <= p) plan.partitions.resize(p + 1);
    plan.partitions[p].push_back(i);
  }
  for (const auto& c : session->Copies()) plan.copies.push_back({c.value, c.from, c.to, c.bytes});
  return plan;
}

std::string Verdict(const Plan& plan) {
  std::map<std::string, int> per;
  for (const auto& n : plan.nodes) per[n.provider]++;
  int64_t bytes = 0;
  bool symbolic = false;
  for (const auto& c : plan.copies) {
    if (c.bytes.find_first_not_of("0123456789") == std::string::npos) bytes += std::stoll(c.bytes);
    else symbolic = true;
  }
  std::ostringstream os;
  bool first = true;
  for (const auto& [ep, n] : per) {
    os << (first ? "" : ", ") << ep << ": " << n << "/" << plan.nodes.size() << " nodes";
    first = false;
  }
  os << "; " << plan.partitions.size() << " partition(s), " << plan.copies.size() << " copies, ~"
     << static_cast<double>(bytes) / 1e6 << " MB per run" << (symbolic ? " plus symbolic sizes" : "");
  int64_t flops = 0, cpu_flops = 0;
  bool unknown = false;
  for (const auto& n : plan.nodes) {
    if (n.flops < 0) unknown = true;
    flops += std::max<int64_t>(0, n.flops);
    if (n.provider == "cpu") cpu_flops += std::max<int64_t>(0, n.flops);
  }
  if (per.size() > 1 && flops > 0)
    os << "; cpu runs " << static_cast<int>(100.0 * static_cast<double>(cpu_flops) / static_cast<double>(flops) + 0.5)
       << "% of ~" << static_cast<double>(flops) / 1e9 << " GFLOP" << (unknown ? " (some shapes dynamic)" : "");
  return os.str();
}

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
  if (args.positional.empty()) TS_THROW(kInvalidArgument, "usage: tessera partition MODEL [--providers LIST] [--json]");
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
  Plan plan = MakePlan(model, providers, args);
  if (args.has("json")) PrintJson(plan, model, providers);
  else PrintText(plan);
  return 0;
}

}  // namespace tessera::cli
