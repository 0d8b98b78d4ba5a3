#include "cli_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace tern::cli {
namespace {

// The temporary output file, for the signal handler (async-signal-safe: unlink, signal, raise).
char g_temp[4096];
volatile std::sig_atomic_t g_temp_active = 0;

extern "C" void RemoveTempAndRaise(int sig) {
  if (g_temp_active) unlink(g_temp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string Errno(const std::string& path, const char* what) { return path + ": " + what + ": " + std::strerror(errno); }

}  // namespace

Status OpenInput(const std::string& path, std::ifstream* file, std::istream** in) {
  *in = &std::cin;
  if (path.empty()) return Status::Ok();
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return Status(StatusCode::kNotFound, Errno(path, "cannot open"));
  if (S_ISDIR(st.st_mode)) return Status(StatusCode::kIoError, path + ": is a directory");
  file->open(path, std::ios::binary);
  if (!*file) return Status(StatusCode::kIoError, Errno(path, "cannot open"));
  *in = file;
  return Status::Ok();
}

OutputFile::~OutputFile() {
  if (!temp_.empty() && !committed_) {
    file_.close();
    unlink(temp_.c_str());
    g_temp_active = 0;
  }
}

Status OutputFile::Open(const std::string& path, const std::string& input) {
  path_ = path;
  if (path.empty()) return Status::Ok();  // stdout
  struct stat out_st;
  const bool exists = ::stat(path.c_str(), &out_st) == 0;
  if (exists && S_ISDIR(out_st.st_mode)) return Status(StatusCode::kIoError, path + ": is a directory");
  if (exists && !input.empty()) {
    struct stat in_st;
    if (::stat(input.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
      return Status(StatusCode::kInvalidArgument, path + ": is the input file (" + input + "); write the output elsewhere");
  }
  if (exists && !S_ISREG(out_st.st_mode)) {  // a device, a FIFO: written in place
    file_.open(path, std::ios::binary | std::ios::trunc);
    if (!file_) return Status(StatusCode::kIoError, Errno(path, "cannot open"));
    out_ = &file_;
    return Status::Ok();
  }
  temp_ = path + ".tmp." + std::to_string(getpid());
  if (temp_.size() >= sizeof g_temp) return Status(StatusCode::kInvalidArgument, path + ": path too long");
  std::memcpy(g_temp, temp_.c_str(), temp_.size() + 1);
  g_temp_active = 1;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, RemoveTempAndRaise);
  file_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!file_) {
    const Status s(StatusCode::kIoError, Errno(temp_, "cannot create"));
    g_temp_active = 0;
    temp_.clear();
    return s;
  }
  out_ = &file_;
  return Status::Ok();
}

Status OutputFile::Commit() {
  out_->flush();
  const std::string name = path_.empty() ? "standard output" : path_;
  if (out_ == &std::cout) {
    // stdout: a full disk or a closed pipe shows in the flush, or only in the close.
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout))
      return Status(StatusCode::kIoError, name + ": write failed: " + std::strerror(errno));
    return Status::Ok();
  }
  if (!file_) return Status(StatusCode::kIoError, name + ": write failed: " + std::strerror(errno ? errno : EIO));
  file_.close();
  if (file_.fail()) return Status(StatusCode::kIoError, name + ": close failed: " + std::strerror(errno ? errno : EIO));
  if (temp_.empty()) return committed_ = true, Status::Ok();
  // Durable before it replaces the old file.
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const Status s(StatusCode::kIoError, Errno(temp_, "fsync failed"));
    if (fd >= 0) ::close(fd);
    return s;
  }
  ::close(fd);
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) return Status(StatusCode::kIoError, Errno(path_, "rename failed"));
  committed_ = true;
  g_temp_active = 0;
  return Status::Ok();
}

}  // namespace tern::cli
