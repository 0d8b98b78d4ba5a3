#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace tern::convert {
namespace {

// SIGINT/SIGTERM/SIGHUP while the temporary file exists: remove it, then die with the usual status.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_active = 0;

extern "C" void RemoveTempAndExit(int sig) {
  if (g_temp_active) unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

Status CheckOutputPath(const std::string& path, const std::vector<std::string>& inputs) {
  struct stat out;
  if (::stat(path.c_str(), &out) != 0) return Status::Ok();  // a new file
  if (!S_ISREG(out.st_mode))
    return Status(StatusCode::kInvalidArgument,
                  path + ": not a regular file (" + (S_ISDIR(out.st_mode) ? "a directory" : S_ISFIFO(out.st_mode) ? "a FIFO" : "a device or socket") +
                      "); tern-convert writes a new file and never replaces anything else");
  for (const std::string& in : inputs) {
    struct stat st;
    if (::stat(in.c_str(), &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino)
      return Status(StatusCode::kInvalidArgument, path + ": is an input of this conversion (" + in + "); write the output elsewhere");
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& image,
                           const std::function<Status(const std::string& written)>& verify, bool handle_signals) {
  TERN_RETURN_IF_ERROR(CheckOutputPath(path, {}));
  // pid and a per-process count: two threads of one process writing next to each other never share a name.
  static std::atomic<uint64_t> serial{0};
  const std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(serial++);
  if (tmp.size() >= sizeof g_temp_path) return Status(StatusCode::kInvalidArgument, path + ": path too long");
  using Handler = void (*)(int);
  Handler old_int = SIG_DFL, old_term = SIG_DFL, old_hup = SIG_DFL;
  if (handle_signals) {
    std::memcpy(g_temp_path, tmp.c_str(), tmp.size() + 1);
    old_int = std::signal(SIGINT, RemoveTempAndExit);
    old_term = std::signal(SIGTERM, RemoveTempAndExit);
    old_hup = std::signal(SIGHUP, RemoveTempAndExit);  // a closed terminal
  }
  auto restore = [&] {
    if (!handle_signals) return;
    g_temp_active = 0;
    std::signal(SIGINT, old_int);
    std::signal(SIGTERM, old_term);
    std::signal(SIGHUP, old_hup);
  };
  // Never blocks in open(2) and writes only a regular file: something else planted at the temporary's
  // name (a FIFO, a symbolic link) is refused.
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
  struct stat tmp_st;
  if (fd >= 0 && (fstat(fd, &tmp_st) != 0 || !S_ISREG(tmp_st.st_mode) || fcntl(fd, F_SETFL, 0) != 0)) {
    close(fd);
    restore();
    return Status(StatusCode::kIoError, tmp + ": cannot create: something other than a regular file is there");
  }
  if (fd < 0) {
    restore();
    return Status(StatusCode::kIoError, tmp + ": cannot create: " + std::strerror(errno));
  }
  if (handle_signals) g_temp_active = 1;
  // Test hook: keep the temporary file open a while, so tests can interrupt the converter mid-write.
  if (const char* pause = std::getenv("TERN_CONVERT_TEST_PAUSE_MS")) usleep(static_cast<useconds_t>(std::atoi(pause)) * 1000);
  const uint8_t* p = image.data();
  size_t left = image.size();
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const int e = errno;
      close(fd);
      unlink(tmp.c_str());
      restore();
      return Status(StatusCode::kIoError, tmp + ": write failed: " + std::strerror(e));
    }
    p += w;
    left -= static_cast<size_t>(w);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    restore();
    return Status(StatusCode::kIoError, tmp + ": fsync/close failed: " + std::strerror(e));
  }
  if (verify) {
    Status v = verify(tmp);
    if (!v.ok()) {
      unlink(tmp.c_str());
      restore();
      return Status(StatusCode::kInternal, "the written file fails verification: " + v.message());
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    restore();
    return Status(StatusCode::kIoError, path + ": rename failed: " + std::strerror(e));
  }
  restore();
  return Status::Ok();
}

}  // namespace tern::convert
