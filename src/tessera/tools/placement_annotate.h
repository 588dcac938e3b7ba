// `tessera partition MODEL --annotate OUT.onnx`: the model as it was, with
// each node's placement in its metadata_props, for Netron.
#pragma once

#include <string>

#include "tessera/tools/placement_plan.h"

namespace tessera::cli {

// Writes out_path; external data files the model refers to are copied next
// to it when it goes to another folder. Returns how many nodes it annotated.
size_t WriteAnnotatedModel(const Plan& plan, const std::string& model_path, const std::string& out_path);

}  // namespace tessera::cli
