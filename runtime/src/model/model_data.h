// The bytes of a .tern image, wherever they live: a read-only file mapping (Model::Load) or an aligned heap
// copy (Model::FromBytes). Both pass through the format library's one size check before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tern/model.h"
#include "tern/status.h"

namespace tern::internal {

class ModelData {
 public:
  /// Maps `path` read-only. Errors: kIoError (open, stat, not a regular file, mmap), kInvalidModel (size).
  static Result<std::unique_ptr<ModelData>> MapFile(const std::string& path);
  /// Reads `path` into a 64-byte aligned heap buffer (read(2), no mapping: later changes to the file
  /// cannot reach the running model). Errors as MapFile, plus kIoError when the file changes size while
  /// it is read, kResourceExhausted (no memory).
  static Result<std::unique_ptr<ModelData>> ReadFile(const std::string& path);
  /// Copies [data, data + size) into a 64-byte aligned buffer. Errors: kInvalidModel (size),
  /// kResourceExhausted (no memory for the copy).
  static Result<std::unique_ptr<ModelData>> CopyOf(const void* data, size_t size, const std::string& name);

  ~ModelData();
  ModelData(const ModelData&) = delete;
  ModelData& operator=(const ModelData&) = delete;

  const uint8_t* bytes() const { return base_; }
  size_t size() const { return size_; }
  /// The file's identity (real path, device, inode, size, mtime) for the packed-weights cache key; empty
  /// for CopyOf (no file).
  const std::string& identity() const { return identity_; }
  /// The file's real path (realpath(3), or the path as given when that fails); empty for CopyOf.
  const std::string& real_path() const { return real_path_; }

  /// madvise(MADV_DONTNEED) on the whole pages inside [data, data + bytes) of a file mapping; no effect on
  /// heap copies or outside the image. Never fails.
  void ReleasePages(const void* data, size_t bytes) const;

 private:
  ModelData() = default;
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;              // munmap on destruction (file)
  std::unique_ptr<uint8_t[]> owned_;     // heap copy (over-allocated for alignment)
  std::string identity_, real_path_;
};

}  // namespace tern::internal
