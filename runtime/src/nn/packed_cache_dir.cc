#include "nn/packed_cache_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <tuple>
#include <string_view>
#include <vector>

namespace tern {

size_t RemoveAbandonedTemporaries(const std::string& dir, const std::string& keep, double min_age_s) {
  DIR* d = opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return 0;
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  const time_t now = std::time(nullptr);
  size_t removed = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.find(".ternpack.tmp-") == std::string::npos) continue;
    const std::string path = prefix + name;
    if (path == keep) continue;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) continue;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && std::difftime(now, st.st_mtime) >= min_age_s &&
        flock(fd, LOCK_EX | LOCK_NB) == 0) {  // nobody writes it: its writer is gone
      if (unlink(path.c_str()) == 0) ++removed;
    }
    close(fd);  // releases the lock
  }
  closedir(d);
  return removed;
}

size_t EvictLeastRecentlyUsed(const std::string& dir, const std::string& keep, uint64_t max_bytes) {
  DIR* d = opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return 0;
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  static constexpr std::string_view kSuffix = ".ternpack";
  std::vector<std::tuple<struct timespec, uint64_t, std::string>> entries;  // mtime, bytes, path
  uint64_t total = 0;
  while (const dirent* e = readdir(d)) {
    const std::string_view name = e->d_name;
    if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) continue;
    const std::string path = prefix + std::string(name);
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const uint64_t bytes = static_cast<uint64_t>(st.st_blocks) * 512;
    total += bytes;
    if (path != keep) entries.emplace_back(st.st_mtim, bytes, path);
  }
  closedir(d);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const struct timespec &x = std::get<0>(a), &y = std::get<0>(b);
    return x.tv_sec != y.tv_sec ? x.tv_sec < y.tv_sec : x.tv_nsec < y.tv_nsec;
  });
  size_t removed = 0;
  for (const auto& [mtime, bytes, path] : entries) {
    if (total <= max_bytes) break;
    if (unlink(path.c_str()) == 0) total -= bytes, ++removed;
  }
  return removed;
}

void MarkUsed(const std::string& path) {
  const struct timespec times[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
  (void)utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
}

}  // namespace tern
