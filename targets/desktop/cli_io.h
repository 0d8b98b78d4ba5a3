// The command line's files: inputs that must be readable files (a directory is refused, not read as
// empty), and an output that never loses data: written to a temporary file next to it and renamed over
// it only when everything was written (every write and the close checked), removed on failure or on
// SIGINT, SIGTERM and SIGHUP; refused when it is the input (same device and inode, also through "./f" or
// a symlink). Outputs that are not regular files (/dev/stdout, /dev/full, a FIFO) are written in place,
// with the same checks; every path is opened without blocking (a FIFO with no reader is refused at once,
// as is a device or a socket given as input).
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tern/model.h"
#include "tern/status.h"

namespace tern::cli {

/// The tools' LoadOptions: the packed-weights cache in `packed_cache`, else the per-user one
/// (DefaultPackedCacheDir(), bounded to kDefaultPackedCacheMaxBytes with least recently used entries removed
/// first); none with `no_packed_cache`. The model is read into memory (LoadOptions' default), or mapped with
/// `map_file` (--mmap).
LoadOptions ToolLoadOptions(const std::string& packed_cache, bool no_packed_cache, bool map_file = false);

/// The longest input line the tools read, bytes: a longer line (say, a file with no line breaks) is an
/// error for that line alone and is skipped, so no input makes a tool hold more than this per line.
constexpr size_t kMaxLineBytes = size_t{1} << 20;

/// The error for a line LineInput found too long.
std::string LineTooLong(size_t max_bytes = kMaxLineBytes);

/// The tools' text input, read line by line from a file descriptor with bounded memory. Only a regular
/// file or a pipe (FIFO) is opened by name (a directory or a device such as /dev/zero is refused); standard
/// input is read as it is. While it waits for input that has not arrived (a pipe, a terminal), it checks
/// `stop` every 100 ms, so a flag a signal handler sets ends the wait whichever thread the signal reached.
class LineInput {
 public:
  LineInput() = default;
  ~LineInput();
  LineInput(const LineInput&) = delete;
  LineInput& operator=(const LineInput&) = delete;

  /// `path` ("" = standard input). Errors: kNotFound, kIoError (a directory, a device, cannot open).
  Status Open(const std::string& path);
  /// The next line into *line (without '\n'); false at the end of the input, on a read error (error())
  /// or when *stop became nonzero while waiting. A line longer than max_bytes is read to its end without
  /// being kept: *line is empty and *too_long true.
  bool Next(std::string* line, bool* too_long, const volatile std::sig_atomic_t* stop = nullptr,
            size_t max_bytes = kMaxLineBytes);
  bool error() const { return error_; }
  /// The read error's errno (EIO when the system gave none).
  int errno_value() const { return errno_ ? errno_ : EIO; }

 private:
  int fd_ = 0, errno_ = 0;
  bool own_ = false, eof_ = false, error_ = false;
  char buf_[65536];
  size_t pos_ = 0, end_ = 0;
};

/// Refuses an output path that is one of the command's inputs (same device and inode: the model, the input
/// text), naming both. Error: kInvalidArgument.
Status CheckNotAnInput(const std::string& output, const std::string& input, const char* what);

/// A std::streambuf writing to a file descriptor (an output opened in place: a FIFO, a device), buffered;
/// every write is checked (error()).
class FdStreamBuf : public std::streambuf {
 public:
  FdStreamBuf() { setp(buf_, buf_ + sizeof buf_); }
  void set_fd(int fd) { fd_ = fd; }
  int fd() const { return fd_; }
  bool error() const { return error_; }
  int errno_value() const { return errno_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool Drain();
  int fd_ = -1;
  bool error_ = false;
  int errno_ = 0;
  char buf_[65536];
};

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Removes the temporary file unless Commit succeeded.
  ~OutputFile();

  /// Opens `path` (stdout when empty); `input` is the input path ("" for stdin), which the output must
  /// not be. Errors: kInvalidArgument (output is the input), kIoError (cannot create).
  Status Open(const std::string& path, const std::string& input);
  std::ostream& stream() { return *out_; }
  /// Flushes and checks every byte was written, then (regular files) fsync, close and rename into place.
  /// Errors: kIoError naming the path and the system error (e.g. "No space left on device").
  Status Commit();

 private:
  std::string path_, temp_;
  std::ofstream file_;
  FdStreamBuf in_place_;                   // an output that is not a regular file, opened without blocking
  std::ostream in_place_stream_{&in_place_};
  std::ostream* out_ = &std::cout;
  bool committed_ = false;
};

/// Space-separated token ids (decimal, each < 2^32) into *ids; false with *error naming the bad token.
bool ParseIds(const std::string& s, std::vector<uint32_t>* ids, std::string* error);

}  // namespace tern::cli
