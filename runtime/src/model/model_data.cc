// 64-bit file offsets on 32-bit targets (armhf): a model file over 2 GiB (format 5) is opened and measured, then
// refused by its size (CheckAddressable) instead of failing to open with EOVERFLOW. Before any header.
#define _FILE_OFFSET_BITS 64
#include "model/model_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>

#include "format.h"
#include "model_reader.h"
#include "regular_file.h"

namespace tern::internal {

namespace {

// The file's real path: the packed-weights cache names its entry after it.
std::string RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  std::string id = real ? real : path;
  std::free(real);
  return id;
}

int64_t Nanoseconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// The stamp of an open file (st: its fstat), trusted when it had not changed for kStampQuietSeconds.
FileStamp StampOf(const struct stat& st) {
  FileStamp s;
  s.dev = static_cast<uint64_t>(st.st_dev), s.ino = static_cast<uint64_t>(st.st_ino), s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = Nanoseconds(st.st_mtim), s.ctime_ns = Nanoseconds(st.st_ctim);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const int64_t quiet = Nanoseconds(now) - std::max(s.ctime_ns, s.mtime_ns);
  s.trusted = quiet >= kStampQuietSeconds * 1000000000;
  return s;
}

// A file larger than half this process's address space cannot be mapped or read (a format-5 file over
// 2 GiB on a 32-bit target).
Status CheckAddressable(uint64_t size, const std::string& path) {
  if (size <= SIZE_MAX / 2) return Status::Ok();
  return Status(StatusCode::kResourceExhausted, path + ": " + std::to_string(size) + " bytes: larger than a " +
                                                    std::to_string(sizeof(void*) * 8) + "-bit process can map");
}

// format::OpenForReading, with every failure kIoError (Model::Load's contract; a missing file too), and the
// image size checks.
Result<int> OpenModelFile(const std::string& path, struct stat* st) {
  Result<int> fd = format::OpenForReading(path, st);
  if (!fd.ok() && fd.status().code() == StatusCode::kNotFound) return Status(StatusCode::kIoError, fd.status().message());
  if (!fd.ok()) return fd;
  Status size_ok = format::CheckImageSize(static_cast<uint64_t>(st->st_size), path);
  if (size_ok.ok()) size_ok = CheckAddressable(static_cast<uint64_t>(st->st_size), path);
  if (!size_ok.ok()) {
    close(fd.value());
    return size_ok;
  }
  return fd;
}

// A private image once filled: read-only from here, as a mapping's, and no longer a candidate for huge pages, so
// that the kernel's khugepaged never fills the ranges ReleasePages gives back (with zeros: resident again) by
// collapsing them into huge pages. The huge pages it has keep their speed.
void Seal(void* p, size_t size) {
  mprotect(p, size, PROT_READ);
#if defined(MADV_NOHUGEPAGE)
  madvise(p, size, MADV_NOHUGEPAGE);
#endif
}

}  // namespace

ModelData::~ModelData() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

Result<std::unique_ptr<ModelData>> ModelData::MapFile(const std::string& path) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, OpenModelFile(path, &st));  // a FIFO is refused, never waited on
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED) return Status(StatusCode::kIoError, path + ": mmap failed: " + std::strerror(e));
  std::unique_ptr<ModelData> d(new ModelData());
  d->mapping_ = p;
  d->mapping_bytes_ = size;
  d->base_ = static_cast<const uint8_t*>(p);
  d->size_ = size;
  d->real_path_ = RealPath(path);
  d->stamp_ = StampOf(st);
  return d;
}

// Private memory for an image of `size` bytes: an anonymous mapping (page-aligned, so 64-byte aligned),
// with transparent huge pages asked for (a 2 MiB page is one fault instead of 512: reading 75 MiB takes
// about 7 ms instead of 35 on a Zen 4).
Result<std::unique_ptr<ModelData>> ModelData::Private(size_t size, const std::string& name) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return Status(StatusCode::kResourceExhausted, name + ": cannot allocate " + std::to_string(size) + " bytes to hold it");
#if defined(MADV_HUGEPAGE)
  madvise(p, size, MADV_HUGEPAGE);
#endif
  std::unique_ptr<ModelData> d(new ModelData());
  d->mapping_ = p;
  d->mapping_bytes_ = size;
  d->owned_ = true;
  d->base_ = static_cast<const uint8_t*>(p);
  d->size_ = size;
  return d;
}

Result<std::unique_ptr<ModelData>> ModelData::ReadFile(const std::string& path) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, OpenModelFile(path, &st));
  const size_t size = static_cast<size_t>(st.st_size);
  auto d = Private(size, path);
  if (!d.ok()) {
    close(fd);
    return d;
  }
  uint8_t* out = static_cast<uint8_t*>(d.value()->mapping_);
  size_t got = 0;
  constexpr size_t kChunk = size_t{2} << 20;  // a huge page at a time
  while (got < size) {
    const ssize_t r = pread(fd, out + got, std::min(kChunk, size - got), static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int e = errno;
      close(fd);
      return Status(StatusCode::kIoError, path + ": read " + std::to_string(got) + " of " + std::to_string(size) + " bytes" +
                                              (r < 0 ? std::string(": ") + std::strerror(e) : ": the file shrank while it was read"));
    }
    got += static_cast<size_t>(r);
  }
  struct stat after;
  const bool unchanged = fstat(fd, &after) == 0 && StampOf(after).SameFile(StampOf(st));
  close(fd);
  Seal(out, size);
  d.value()->real_path_ = RealPath(path);
  d.value()->stamp_ = StampOf(st);
  d.value()->stamp_.trusted = d.value()->stamp_.trusted && unchanged;  // a write while it was read: bytes of both
  return d;
}

Result<std::unique_ptr<ModelData>> ModelData::CopyOf(const void* data, size_t size, const std::string& name) {
  TERN_RETURN_IF_ERROR(format::CheckImageSize(size, name));
  TERN_RETURN_IF_ERROR(CheckAddressable(size, name));
  TERN_ASSIGN_OR_RETURN(auto d, Private(size, name));
  std::memcpy(d->mapping_, data, size);
  Seal(d->mapping_, size);
  return d;
}

void ModelData::ReleasePages(const void* data, size_t bytes, bool never_read_again) const {
#if defined(MADV_DONTNEED)
  if (!mapping_ || bytes == 0 || (owned_ && !never_read_again)) return;
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  const auto map_begin = reinterpret_cast<uintptr_t>(mapping_), map_end = map_begin + size_;  // whole pages: the image's
  if (begin < map_begin || end > map_end) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (begin + page - 1) & ~(page - 1), last = end & ~(page - 1);  // whole pages only
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
  (void)never_read_again;
#endif
}

}  // namespace tern::internal
