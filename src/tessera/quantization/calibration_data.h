// Calibration inputs from a folder, laid out as ONNX test data is:
//
//   DIR/test_data_set_0/input_0.pb ...   one batch per subfolder (any name),
//                                        input_K.pb / input_K.npy by input
//                                        position, or NAME.pb / NAME.npy
//   DIR/NAME.npy, DIR/NAME_3.npy ...     files named after the inputs (a
//                                        suffix _K groups a batch); with a
//                                        single input, every file is a batch
//
// Batches are read one at a time, as the calibrator asks for them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tessera/ir/graph.h"
#include "tessera/runtime/session.h"

namespace tessera::quant {

class CalibrationFolder {
 public:
  // Throws kIoError for a missing folder and kInvalidArgument, naming the
  // file, for a file that names no input, or when no batch is found.
  CalibrationFolder(const std::string& dir, const std::vector<ValueInfo>& inputs);
  size_t size() const { return batches_.size(); }
  // Loads the next batch into feeds; false after the last one.
  bool Next(Feeds& feeds);

 private:
  std::vector<ValueInfo> inputs_;
  std::vector<std::vector<std::pair<std::string, std::string>>> batches_;  // (input, file)
  size_t next_ = 0;
};

}  // namespace tessera::quant
