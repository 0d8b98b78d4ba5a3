#include "read_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "regular_file.h"

namespace tern::convert {
namespace {

template <typename Buffer>
Status Read(const std::string& path, uint64_t max_bytes, Buffer* out) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, format::OpenForReading(path, &st));  // a FIFO or device: refused at once
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Status(StatusCode::kIoError, path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                                            std::to_string(max_bytes) + " this file may have");
  }
  out->resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out->size()) {
    const ssize_t n = ::read(fd, &(*out)[got], out->size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got != out->size())
    return Status(StatusCode::kIoError, path + ": read " + std::to_string(got) + " of " + std::to_string(out->size()) + " bytes");
  return Status::Ok();
}

}  // namespace

Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::string* out) { return Read(path, max_bytes, out); }
Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::vector<uint8_t>* out) {
  return Read(path, max_bytes, out);
}

LineReader::~LineReader() {
  if (f_) std::fclose(f_);
}

Status LineReader::Open(const std::string& path, uint64_t max_bytes) {
  path_ = path;
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, format::OpenForReading(path, &st));  // a FIFO or device: refused at once
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Status(StatusCode::kIoError, path + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                                            std::to_string(max_bytes) + " this file may have");
  }
  f_ = fdopen(fd, "rb");
  if (!f_) {
    ::close(fd);
    return Status(StatusCode::kIoError, "cannot read " + path + " (" + std::strerror(errno) + ")");
  }
  return Status::Ok();
}

Status LineReader::Next(std::string* line, bool* got) {
  line->clear();
  *got = false;
  if (!f_) return Status(StatusCode::kIoError, path_ + ": not open");
  for (;;) {
    if (pos_ == end_) {  // refill
      end_ = std::fread(buf_, 1, sizeof buf_, f_);
      pos_ = 0;
      if (end_ == 0) {
        if (std::ferror(f_)) return Status(StatusCode::kIoError, path_ + ": read error after line " + std::to_string(line_));
        break;  // the end of the file
      }
    }
    *got = true;
    const char* nl = static_cast<const char*>(std::memchr(buf_ + pos_, '\n', end_ - pos_));
    const size_t n = (nl ? static_cast<size_t>(nl - buf_) : end_) - pos_;
    if (line->size() + n > kMaxLineBytes)
      return Status(StatusCode::kInvalidArgument, path_ + ":" + std::to_string(line_ + 1) + ": line longer than " +
                                                      std::to_string(kMaxLineBytes) + " bytes");
    line->append(buf_ + pos_, n);
    pos_ += n;
    if (nl) {
      ++pos_;  // the '\n'
      break;
    }
  }
  if (!*got) return Status::Ok();
  ++line_;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  return Status::Ok();
}

bool PathExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace tern::convert
