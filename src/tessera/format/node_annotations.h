// Node metadata_props on serialized models (`tessera partition --annotate`):
// what Netron shows per node. Nothing from protobuf escapes this header.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// Key/value pairs per main-graph node, by the node's name as the loader
// gives it (unnamed nodes: "<op_type>_<index>").
using NodeAnnotations = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

// A serialized model with the pairs set in its nodes' metadata_props (a key
// already there is overwritten); everything else is left as it was, external
// data references included. external_locations (optional) gets the external
// data files the model refers to, relative to its folder.
std::string AnnotateNodes(const std::string& model_bytes, const NodeAnnotations& annotations,
                          std::vector<std::string>* external_locations = nullptr);
// The metadata_props of a serialized model's main-graph nodes (nodes with
// none are left out).
NodeAnnotations ReadNodeAnnotations(const std::string& model_bytes);

}  // namespace tessera
