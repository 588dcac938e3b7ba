// Read-only memory-mapped file; used for models and external tensor data so
// large weights are paged in lazily instead of copied.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace tessera {

class MappedFile {
 public:
  // Throws Error(kIoError) naming the path when it cannot be opened.
  static std::shared_ptr<MappedFile> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

// Reads a whole file into a string (small files: test data, protos).
std::string ReadFileToString(const std::string& path);

}  // namespace tessera
