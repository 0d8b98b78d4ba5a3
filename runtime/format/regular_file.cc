#include "regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tern::format {
namespace {

Status CannotOpen(const std::string& path, int e) {
  return Status(e == ENOENT ? StatusCode::kNotFound : StatusCode::kIoError, path + ": cannot open: " + std::strerror(e));
}

// Clears O_NONBLOCK on fd; false (errno set) when fcntl fails.
bool Blocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0;
}

}  // namespace

const char* FileKindName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "an unknown kind of file";
}

Result<int> OpenForReading(const std::string& path, struct stat* st, bool allow_fifo) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return CannotOpen(path, errno);
  if (fstat(fd, st) != 0) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st->st_mode) && !(allow_fifo && S_ISFIFO(st->st_mode))) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": not a regular file (" + FileKindName(st->st_mode) + ")");
  }
  if (!Blocking(fd)) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": fcntl: " + std::strerror(e));
  }
  return fd;
}

Result<int> OpenForWriting(const std::string& path, bool create) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0 && errno == ENXIO) return Status(StatusCode::kIoError, path + ": a FIFO with no reader");
  if (fd < 0 && errno == ENOENT && create) fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return Status(StatusCode::kIoError, path + ": cannot open for writing: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": not a file, a FIFO or a character device (" + FileKindName(st.st_mode) + ")");
  }
  if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) || !Blocking(fd)) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": " + std::strerror(e));
  }
  return fd;
}

}  // namespace tern::format
