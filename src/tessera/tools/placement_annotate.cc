#include "tessera/tools/placement_annotate.h"

#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_map>

#include "tessera/base/mapped_file.h"
#include "tessera/format/model_loader.h"
#include "tessera/format/node_annotations.h"

namespace tessera::cli {

namespace {

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

size_t WriteAnnotatedModel(const Plan& plan, const std::string& model_path, const std::string& out_path) {
  namespace fs = std::filesystem;
  // The nodes as the file has them; the session placed its optimized graph,
  // where fusions renamed or absorbed some and folding removed others.
  Model original = LoadModelFromFile(model_path);
  std::unordered_map<std::string, size_t> placed_by_name, placed_by_output;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    placed_by_name[plan.nodes[i].node] = i;
    if (plan.graph_nodes[i])
      for (const auto& o : plan.graph_nodes[i]->outputs)
        if (!o.empty()) placed_by_output[o] = i;
  }
  std::unordered_map<std::string, std::vector<const Node*>> consumers;
  for (const Node& n : original.graph->nodes)
    for (const auto& v : n.inputs)
      if (!v.empty()) consumers[v].push_back(&n);
  // A node that is not in the placed graph ran as part of the first placed
  // node its outputs lead to (a fusion keeps the last output's name).
  auto placed_as = [&](const Node& start) -> int {
    std::deque<const Node*> todo{&start};
    std::set<const Node*> seen{&start};
    while (!todo.empty()) {
      const Node* n = todo.front();
      todo.pop_front();
      for (const auto& o : n->outputs) {
        if (o.empty()) continue;
        auto it = placed_by_output.find(o);
        if (it != placed_by_output.end()) return static_cast<int>(it->second);
        for (const Node* c : consumers[o])
          if (seen.insert(c).second) todo.push_back(c);
      }
    }
    return -1;
  };
  NodeAnnotations annotations;
  for (const Node& n : original.graph->nodes) {
    auto& props = annotations[n.name];
    auto it = placed_by_name.find(n.name);
    int index = it != placed_by_name.end() && plan.nodes[it->second].op_type == n.op_type ? static_cast<int>(it->second)
                                                                                           : placed_as(n);
    if (index < 0) {
      // Nothing downstream survived: constant folded or dead.
      props.emplace_back("tessera.provider", "none");
      props.emplace_back("tessera.placement", "removed by the graph optimizer (folded into a constant or unused)");
      continue;
    }
    const NodePlacement& p = plan.nodes[static_cast<size_t>(index)];
    props.emplace_back("tessera.provider", p.provider);
    props.emplace_back("tessera.partition", std::to_string(p.partition));
    if (p.node != n.name) props.emplace_back("tessera.placement", "fused into " + p.node + " (" + p.op_type + ")");
    else if (p.op_type != n.op_type) props.emplace_back("tessera.placement", "runs as " + p.op_type);
    if (!p.declined.empty()) props.emplace_back("tessera.declined", Join(p.declined, "; "));
  }
  std::vector<std::string> locations;
  std::string bytes = AnnotateNodes(ReadFileToString(model_path), annotations, &locations);
  {
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    if (!out) TS_THROW(kInvalidArgument, "--annotate: cannot write '", out_path, "'");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) TS_THROW(kInvalidArgument, "--annotate: writing '", out_path, "' failed");
  }
  // External data is referred to relative to the model's folder.
  fs::path from_dir = fs::absolute(model_path).parent_path(), to_dir = fs::absolute(out_path).parent_path();
  if (!locations.empty() && fs::weakly_canonical(from_dir) != fs::weakly_canonical(to_dir))
    for (const auto& loc : locations) {
      fs::path src = from_dir / loc, dst = to_dir / loc;
      std::error_code ec;
      fs::create_directories(dst.parent_path(), ec);
      fs::copy_file(src, dst, fs::copy_options::overwrite_existing, ec);
      if (ec) TS_THROW(kInvalidArgument, "--annotate: cannot copy external data '", src.string(), "' to '", dst.string(), "': ", ec.message());
    }
  return annotations.size();
}

}  // namespace tessera::cli
