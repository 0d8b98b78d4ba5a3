#include "nn/packed_cache_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string_view>
#include <tuple>
#include <vector>

#include "regular_file.h"

namespace tern {

namespace {

std::string Octal(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Calls f(name) for each directory entry of `dir_fd` (a duplicate is read, so the caller's descriptor keeps
// its position and stays open).
template <typename F>
void ForEachName(int dir_fd, F f) {
  const int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  rewinddir(d);
  while (const dirent* e = readdir(d)) f(std::string(e->d_name));
  closedir(d);  // closes fd
}

}  // namespace

bool TrustedByOwner(const struct stat& st, std::string* why) {
  const uid_t me = geteuid();
  if (st.st_uid != me) {
    *why = "owned by uid " + std::to_string(st.st_uid) + ", not this user (uid " + std::to_string(me) + ")";
    return false;
  }
  if (st.st_mode & S_IWOTH) {
    *why = "writable by other users (mode " + Octal(st.st_mode) + ")";
    return false;
  }
  if (st.st_mode & S_IWGRP) {
    *why = "writable by its group (mode " + Octal(st.st_mode) + ")";
    return false;
  }
  return true;
}

Result<CacheDirectory> CacheDirectory::Open(const std::string& dir, bool create) {
  if (dir.empty()) return Status(StatusCode::kNotFound, "no packed-weights cache directory");
  if (create) {
    // Missing parents first (the per-user default ~/.cache/tern/packed may be the first of them), each 0700;
    // EEXIST is fine, and any other failure shows as the open below.
    for (size_t at = dir.find('/', 1); at != std::string::npos; at = dir.find('/', at + 1))
      mkdir(dir.substr(0, at).c_str(), 0700);
    mkdir(dir.c_str(), 0700);
  }
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return Status(e == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError, dir + ": cannot open: " + std::strerror(e));
  }
  struct stat st;
  std::string why;
  if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    close(fd);
    return Status(StatusCode::kIoError, dir + ": not a directory");
  }
  if (!TrustedByOwner(st, &why)) {
    close(fd);
    return Status(StatusCode::kUnsupported, dir + ": " + why);
  }
  return CacheDirectory(fd, dir);
}

CacheDirectory& CacheDirectory::operator=(CacheDirectory&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_, path_ = std::move(o.path_);
    o.fd_ = -1;
  }
  return *this;
}

CacheDirectory::~CacheDirectory() {
  if (fd_ >= 0) close(fd_);
}

std::string CacheDirectory::PathOf(const std::string& name) const {
  return path_ + (path_.empty() || path_.back() == '/' ? "" : "/") + name;
}

Result<int> CacheDirectory::OpenEntry(const std::string& name, struct stat* st) const {
  const int fd = openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) return Status(StatusCode::kIoError, PathOf(name) + ": not a regular file (a symbolic link)");
    return Status(e == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError, PathOf(name) + ": cannot open: " + std::strerror(e));
  }
  std::string why;
  if (fstat(fd, st) != 0) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, PathOf(name) + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st->st_mode)) {
    close(fd);
    return Status(StatusCode::kIoError, PathOf(name) + ": not a regular file (" + format::FileKindName(st->st_mode) + ")");
  }
  if (!TrustedByOwner(*st, &why)) {
    close(fd);
    return Status(StatusCode::kUnsupported, PathOf(name) + ": " + why);
  }
  return fd;
}

size_t CacheDirectory::RemoveAbandonedTemporaries(const std::string& keep, double min_age_s) const {
  const time_t now = std::time(nullptr);
  size_t removed = 0;
  ForEachName(fd_, [&](const std::string& name) {
    if (name.find(".ternpack.tmp-") == std::string::npos || name == keep) return;
    const int fd = openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && std::difftime(now, st.st_mtime) >= min_age_s &&
        flock(fd, LOCK_EX | LOCK_NB) == 0) {  // nobody writes it: its writer is gone
      if (unlinkat(fd_, name.c_str(), 0) == 0) ++removed;
    }
    close(fd);  // releases the lock
  });
  return removed;
}

size_t CacheDirectory::EvictLeastRecentlyUsed(const std::string& keep, uint64_t max_bytes) const {
  static constexpr std::string_view kSuffix = ".ternpack";
  std::vector<std::tuple<struct timespec, uint64_t, std::string>> entries;  // mtime, bytes, name
  uint64_t total = 0;
  ForEachName(fd_, [&](const std::string& name) {
    if (name.size() <= kSuffix.size() || std::string_view(name).substr(name.size() - kSuffix.size()) != kSuffix) return;
    struct stat st;
    if (fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return;
    const uint64_t bytes = static_cast<uint64_t>(st.st_blocks) * 512;
    total += bytes;
    if (name != keep) entries.emplace_back(st.st_mtim, bytes, name);
  });
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const struct timespec &x = std::get<0>(a), &y = std::get<0>(b);
    return x.tv_sec != y.tv_sec ? x.tv_sec < y.tv_sec : x.tv_nsec < y.tv_nsec;
  });
  size_t removed = 0;
  for (const auto& [mtime, bytes, name] : entries) {
    if (total <= max_bytes) break;
    if (unlinkat(fd_, name.c_str(), 0) == 0) total -= bytes, ++removed;
  }
  return removed;
}

void CacheDirectory::MarkUsed(const std::string& name) const {
  const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
  (void)utimensat(fd_, name.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

}  // namespace tern
