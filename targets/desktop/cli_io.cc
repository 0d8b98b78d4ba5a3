#include "cli_io.h"

#include "regular_file.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace tern::cli {

LoadOptions ToolLoadOptions(const std::string& packed_cache, bool no_packed_cache, bool map_file) {
  LoadOptions load;
  load.map_file = map_file;
#ifdef __EMSCRIPTEN__
  load.packed_cache = !no_packed_cache && !packed_cache.empty();  // no per-user cache directory under Node: only one named
#else
  load.packed_cache = !no_packed_cache;
#endif
  load.packed_cache_dir = packed_cache.empty() ? DefaultPackedCacheDir() : packed_cache;
  if (packed_cache.empty()) load.packed_cache_max_bytes = kDefaultPackedCacheMaxBytes;
  return load;
}
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

LineInput::~LineInput() {
  if (own_) ::close(fd_);
}

Status LineInput::Open(const std::string& path) {
  if (path.empty()) return Status::Ok();  // standard input
  struct stat st;
  Result<int> fd = format::OpenForReading(path, &st, /*allow_fifo=*/true);  // never blocks in open(2)
  if (!fd.ok()) {
    if (fd.status().code() == StatusCode::kNotFound) return Status(StatusCode::kNotFound, path + ": cannot open");
    return Status(StatusCode::kIoError, fd.status().message() + " (a regular file or a pipe is read as input)");
  }
  fd_ = fd.value();
  own_ = true;
  return Status::Ok();
}

bool LineInput::Next(std::string* line, bool* too_long, const volatile std::sig_atomic_t* stop, size_t max_bytes) {
  line->clear();
  *too_long = false;
  bool got = false;
  for (;;) {
    if (pos_ == end_) {
      if (eof_ || error_) return got;
#ifndef __EMSCRIPTEN__  // (under Node there are no signals to wait for, and no poll(2) of a file descriptor)
      // Wait for input in steps, so a stop request is seen even if no read is interrupted by the signal.
      struct pollfd p = {fd_, POLLIN, 0};
      int ready = 0;
      while ((ready = ::poll(&p, 1, 100)) == 0 || (ready < 0 && errno == EINTR)) {
        if (stop && *stop) return false;
      }
      if (stop && *stop) return false;
#endif
      const ssize_t n = ::read(fd_, buf_, sizeof buf_);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error_ = true, errno_ = errno;
        return false;
      }
      if (n == 0) {
        eof_ = true;
        return got;  // a last line without '\n'
      }
      pos_ = 0, end_ = static_cast<size_t>(n);
    }
    got = true;
    const char* nl = static_cast<const char*>(std::memchr(buf_ + pos_, '\n', end_ - pos_));
    const size_t n = (nl ? static_cast<size_t>(nl - buf_) : end_) - pos_;
    if (!*too_long) {
      if (line->size() + n > max_bytes) *too_long = true, line->clear();
      else line->append(buf_ + pos_, n);
    }
    pos_ += n;
    if (nl) {
      ++pos_;
      return true;
    }
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

bool FdStreamBuf::Drain() {
  const char* p = pbase();
  while (p < pptr() && !error_) {
    const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) error_ = true, errno_ = n < 0 ? errno : EIO;
    else p += n;
  }
  setp(buf_, buf_ + sizeof buf_);
  return !error_;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (fd_ < 0 || !Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdStreamBuf::sync() { return fd_ >= 0 && Drain() ? 0 : -1; }

OutputFile::~OutputFile() {
  if (in_place_.fd() >= 0) ::close(in_place_.fd());
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
  if (exists && !S_ISREG(out_st.st_mode)) {  // a device, a FIFO: written in place, opened without blocking
    TERN_ASSIGN_OR_RETURN(const int fd, format::OpenForWriting(path, /*create=*/false));
    in_place_.set_fd(fd);
    out_ = &in_place_stream_;
    return Status::Ok();
  }
  temp_ = path + ".tmp." + std::to_string(getpid());
  if (temp_.size() >= sizeof g_temp) return Status(StatusCode::kInvalidArgument, path + ": path too long");
  std::memcpy(g_temp, temp_.c_str(), temp_.size() + 1);
  g_temp_active = 1;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, RemoveTempAndRaise);
  // The temporary is created as a regular file without blocking: something planted at its name (a FIFO
  // would hold the open for good, a symbolic link would redirect it) is refused.
  const int tfd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
  struct stat tst;
  const bool regular = tfd >= 0 && ::fstat(tfd, &tst) == 0 && S_ISREG(tst.st_mode);
  if (tfd >= 0) ::close(tfd);
  if (regular) file_.open(temp_, std::ios::binary | std::ios::trunc);
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
  if (out_ == &in_place_stream_) {
    const int fd = in_place_.fd();
    in_place_.set_fd(-1);
    if (in_place_.error() || !in_place_stream_)
      return ::close(fd), Status(StatusCode::kIoError, name + ": write failed: " + std::strerror(in_place_.errno_value() ? in_place_.errno_value() : EIO));
    if (::close(fd) != 0) return Status(StatusCode::kIoError, Errno(name, "close failed"));
    return committed_ = true, Status::Ok();
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

bool ParseIds(const std::string& s, std::vector<uint32_t>* ids, std::string* error) {
  std::istringstream in(s);
  std::string tok;
  ids->clear();
  while (in >> tok) {
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(tok.c_str(), &end, 10);
    if (*end || errno || tok[0] == '-' || v > 0xffffffffUL) {
      *error = "'" + tok + "' is not a token id";
      return false;
    }
    ids->push_back(static_cast<uint32_t>(v));
  }
  return true;
}

}  // namespace tern::cli
