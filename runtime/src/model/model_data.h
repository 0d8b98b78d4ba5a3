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

/// What the file system says of a model file's contents when it was opened: device, inode, size,
/// modification and status-change times (ns). `trusted` when they describe the bytes the Model holds and
/// any later change to the file must change them: the file had not changed for kStampQuietSeconds when it
/// was read (a write within one timestamp tick of the last would leave the times as they were, as git's
/// "racily clean" entries), and (read into memory) nothing changed while it was read. The status-change
/// time (ctime) is set by the kernel on every write, truncation, chmod and utimes, and no unprivileged
/// process can set it back: `cp B A; touch -r saved A` leaves the mtime but not the ctime.
struct FileStamp {
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool trusted = false;
  bool SameFile(const FileStamp& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
};

/// How long a file must have been left alone before its FileStamp is trusted, seconds (the coarsest
/// timestamps tern expects: FAT's 2 s).
inline constexpr int64_t kStampQuietSeconds = 2;

class ModelData {
 public:
  /// Maps `path` read-only. Errors: kIoError (open, stat, not a regular file, mmap), kInvalidModel (size).
  static Result<std::unique_ptr<ModelData>> MapFile(const std::string& path);
  /// Reads `path` into private memory of its own (an anonymous mapping, transparent huge pages asked for,
  /// read(2) 2 MiB at a time: about the speed of memory; no file mapping, so later changes to the file
  /// cannot reach the running model). Errors as MapFile, plus kIoError when the file changes size while it
  /// is read, kResourceExhausted (no memory).
  static Result<std::unique_ptr<ModelData>> ReadFile(const std::string& path);
  /// Copies [data, data + size) into private memory as ReadFile's. Errors: kInvalidModel (size),
  /// kResourceExhausted (no memory for the copy).
  static Result<std::unique_ptr<ModelData>> CopyOf(const void* data, size_t size, const std::string& name);

  ~ModelData();
  ModelData(const ModelData&) = delete;
  ModelData& operator=(const ModelData&) = delete;

  const uint8_t* bytes() const { return base_; }
  size_t size() const { return size_; }
  /// Whether the image came from a file (MapFile, ReadFile): only those have a stamp and a real path, and
  /// only those are cached.
  bool from_file() const { return !real_path_.empty(); }
  /// The file's stamp when it was opened (packed-weights cache entries are checked against it).
  const FileStamp& stamp() const { return stamp_; }
  /// The file's real path (realpath(3), or the path as given when that fails); empty for CopyOf.
  const std::string& real_path() const { return real_path_; }
  /// Whether the image is a file mapping (MapFile) rather than private memory.
  bool mapped() const { return mapping_ != nullptr && !owned_; }

  /// Gives back the whole pages inside [data, data + bytes) of the image (madvise(MADV_DONTNEED)). A file
  /// mapping's page read again comes back from the file. Private memory's would read as zeros, so it is
  /// given back only when the caller says nothing will read those bytes again (`never_read_again`: the
  /// weights a packed copy replaces); otherwise it stays. No effect outside the image. Never fails.
  void ReleasePages(const void* data, size_t bytes, bool never_read_again = false) const;

 private:
  ModelData() = default;
  static Result<std::unique_ptr<ModelData>> Private(size_t size, const std::string& name);
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction: the file's mapping, or the private memory (owned_)
  size_t mapping_bytes_ = 0;
  bool owned_ = false;
  FileStamp stamp_;
  std::string real_path_;
};

}  // namespace tern::internal
