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
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    return Status(StatusCode::kIoError, path + ": not a regular file or a pipe (a device is not read as input)");
  file->open(path, std::ios::binary);
  if (!*file) return Status(StatusCode::kIoError, Errno(path, "cannot open"));
  *in = file;
  return Status::Ok();
}

bool ReadLine(std::istream& in, std::string* line, bool* too_long, size_t max_bytes) {
  line->clear();
  *too_long = false;
  char buf[4096];
  bool got = false;
  for (;;) {
    in.getline(buf, sizeof buf);
    if (in.bad()) return false;
    const size_t n = static_cast<size_t>(in.gcount());
    const bool full = in.fail() && !in.eof();   // the buffer filled before the line ended
    const bool ended = !in.fail() && !in.eof();  // the '\n' was read (and counted in n)
    const size_t chars = ended ? n - 1 : n;
    got = got || n > 0;
    if (!*too_long) {
      if (line->size() + chars > max_bytes) *too_long = true, line->clear();
      else line->append(buf, chars);
    }
    if (full) {
      in.clear();
      continue;
    }
    return got;  // the line ended, or the input did (a last line without '\n')
  }
}

std::string LineTooLong(size_t max_bytes) { return "line longer than " + std::to_string(max_bytes) + " bytes (skipped)"; }

Status CheckNotAnInput(const std::string& output, const std::string& input, const char* what) {
  if (output.empty() || input.empty()) return Status::Ok();
  struct stat out_st, in_st;
  if (::stat(output.c_str(), &out_st) != 0 || ::stat(input.c_str(), &in_st) != 0) return Status::Ok();
  if (in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
    return Status(StatusCode::kInvalidArgument, output + ": is the " + what + " (" + input + "); write the output elsewhere");
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
  TERN_RETURN_IF_ERROR(CheckNotAnInput(path, input, "input file"));
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
