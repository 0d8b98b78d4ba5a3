#include "nn/packed_cache_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

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

}  // namespace tern
