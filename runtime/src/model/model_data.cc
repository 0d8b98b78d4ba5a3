// 64-bit file offsets on 32-bit targets (armhf): a model file over 2 GiB (format 5) is opened and measured, then
// refused by its size (CheckAddressable) instead of failing to open with EOVERFLOW. Before any header.
#define _FILE_OFFSET_BITS 64
#include "model/model_data.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "format.h"
#include "model_reader.h"
#include "regular_file.h"

namespace tern::internal {

namespace {

// What names the file's contents for the packed-weights cache: its real path, device, inode, size and
// modification time (a file replaced by rename gets a new inode; one rewritten in place a new mtime).
std::string RealPath(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  std::string id = real ? real : path;
  std::free(real);
  return id;
}

std::string FileIdentity(const std::string& real_path, const struct stat& st) {
  return real_path + " dev " + std::to_string(st.st_dev) + " ino " + std::to_string(st.st_ino) + " size " +
         std::to_string(st.st_size) + " mtime " + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

// A file larger than half this process's address space cannot be mapped or read (a format-5 file over
// 2 GiB on a 32-bit target).
Status CheckAddressable(uint64_t size, const std::string& path) {
  if (size <= SIZE_MAX / 2) return Status::Ok();
  return Status(StatusCode::kResourceExhausted, path + ": " + std::to_string(size) + " bytes: larger than a " +
                                                    std::to_string(sizeof(void*) * 8) + "-bit process can map");
}

// format::OpenForReading, with every failure kIoError (Model::Load's contract; a missing file too).
Result<int> OpenModelFile(const std::string& path, struct stat* st) {
  Result<int> fd = format::OpenForReading(path, st);
  if (!fd.ok() && fd.status().code() == StatusCode::kNotFound) return Status(StatusCode::kIoError, fd.status().message());
  return fd;
}

}  // namespace

ModelData::~ModelData() {
  if (mapping_) munmap(mapping_, size_);
}

Result<std::unique_ptr<ModelData>> ModelData::MapFile(const std::string& path) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, OpenModelFile(path, &st));  // a FIFO is refused, never waited on
  Status size_ok = format::CheckImageSize(static_cast<uint64_t>(st.st_size), path);
  if (size_ok.ok()) size_ok = CheckAddressable(static_cast<uint64_t>(st.st_size), path);
  if (!size_ok.ok()) {
    close(fd);
    return size_ok;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED) return Status(StatusCode::kIoError, path + ": mmap failed: " + std::strerror(e));
  std::unique_ptr<ModelData> d(new ModelData());
  d->mapping_ = p;
  d->base_ = static_cast<const uint8_t*>(p);
  d->size_ = size;
  d->real_path_ = RealPath(path);
  d->identity_ = FileIdentity(d->real_path_, st);
  return d;
}

Result<std::unique_ptr<ModelData>> ModelData::ReadFile(const std::string& path) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, OpenModelFile(path, &st));
  Status size_ok = format::CheckImageSize(static_cast<uint64_t>(st.st_size), path);
  if (size_ok.ok()) size_ok = CheckAddressable(static_cast<uint64_t>(st.st_size), path);
  if (!size_ok.ok()) {
    close(fd);
    return size_ok;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  std::unique_ptr<ModelData> d(new ModelData());
  constexpr size_t kAlign = format::kTensorAlignment;
  d->owned_.reset(new (std::nothrow) uint8_t[size + kAlign]);
  if (!d->owned_) {
    close(fd);
    return Status(StatusCode::kResourceExhausted, path + ": cannot allocate " + std::to_string(size) + " bytes to read it");
  }
  uint8_t* aligned =
      reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(d->owned_.get()) + kAlign - 1) & ~uintptr_t{kAlign - 1});
  size_t got = 0;
  while (got < size) {
    const ssize_t r = read(fd, aligned + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const int e = errno;
      close(fd);
      return Status(StatusCode::kIoError, path + ": read " + std::to_string(got) + " of " + std::to_string(size) + " bytes" +
                                              (r < 0 ? std::string(": ") + std::strerror(e) : ": the file shrank while it was read"));
    }
    got += static_cast<size_t>(r);
  }
  close(fd);
  d->base_ = aligned;
  d->size_ = size;
  d->real_path_ = RealPath(path);
  d->identity_ = FileIdentity(d->real_path_, st);
  return d;
}

Result<std::unique_ptr<ModelData>> ModelData::CopyOf(const void* data, size_t size, const std::string& name) {
  TERN_RETURN_IF_ERROR(format::CheckImageSize(size, name));
  std::unique_ptr<ModelData> d(new ModelData());
  constexpr size_t kAlign = format::kTensorAlignment;
  d->owned_.reset(new (std::nothrow) uint8_t[size + kAlign]);
  if (!d->owned_) return Status(StatusCode::kResourceExhausted, name + ": cannot allocate a copy of " + std::to_string(size) + " bytes");
  uint8_t* aligned =
      reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(d->owned_.get()) + kAlign - 1) & ~uintptr_t{kAlign - 1});
  std::memcpy(aligned, data, size);
  d->base_ = aligned;
  d->size_ = size;
  return d;
}

void ModelData::ReleasePages(const void* data, size_t bytes) const {
#if defined(MADV_DONTNEED)
  if (!mapping_ || bytes == 0) return;
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  const auto map_begin = reinterpret_cast<uintptr_t>(mapping_), map_end = map_begin + size_;
  if (begin < map_begin || end > map_end) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = (begin + page - 1) & ~(page - 1), last = end & ~(page - 1);  // whole pages only
  if (first < last) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace tern::internal
