// An inference session: a model loaded and prepared once, then run many
// times. Run is const and may be called from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/export.h"
#include "tessera/options.h"
#include "tessera/tensor.h"

namespace tessera::v1 {

// A graph input or output as the model declares it.
struct TensorInfo {
  std::string name;
  // False for sequences, maps and optionals, which this API does not feed
  // or return; type and shape are then unset.
  bool is_tensor = true;
  ElementType type = ElementType::kUndefined;
  // -1 for a dimension not known before running; its name, if the model
  // gives one, is in symbolic_dims at the same index ("batch").
  std::vector<int64_t> shape;
  std::vector<std::string> symbolic_dims;
  bool rank_known = true;
};

// Input name and tensor pairs: session.Run({{"image", image}}).
using Feeds = std::vector<std::pair<std::string, Tensor>>;

class TESSERA_API Session {
 public:
  struct Impl;  // the runtime's session; defined inside the library

  // Loads and prepares an ONNX model (external data next to it is read too).
  static Session Load(const std::string& path, const SessionOptions& options = {});
  // The same from a serialized model in memory (copied; external data, if
  // any, is looked up relative to the working directory).
  static Session FromBytes(const void* data, size_t size, const SessionOptions& options = {});

  ~Session();
  // A moved-from session may only be assigned to or destroyed.
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Inputs to feed (those with an initializer may be left out and are not
  // listed) and outputs, in graph order.
  const std::vector<TensorInfo>& inputs() const noexcept;
  const std::vector<TensorInfo>& outputs() const noexcept;
  // The providers the session runs on, in priority order.
  std::vector<std::string> providers() const;

  // Runs the model and returns the named outputs in the order asked for
  // (empty = every output, in graph order). Throws Error naming the feed or
  // node at fault.
  std::vector<Tensor> Run(const Feeds& feeds, const std::vector<std::string>& output_names = {}) const;

  // Writes the profiling trace and returns its path; "" when profiling is off.
  std::string EndProfiling();

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::v1
