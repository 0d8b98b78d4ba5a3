// Reading a checkpoint's files: only regular files, at most a stated size, every failure a Status that
// names the path (a directory, a FIFO or a device where a file should be is refused before it is read).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tern/status.h"

namespace tern::convert {

/// Reads `path` whole into `out`. Errors: kNotFound (missing), kIoError (not a regular file, larger than
/// max_bytes, a read error).
Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::string* out);
Status ReadWholeFile(const std::string& path, uint64_t max_bytes, std::vector<uint8_t>* out);

/// Whether `path` exists (as anything: a directory where a file belongs is then refused by the reader).
bool PathExists(const std::string& path);

/// Size bounds: JSON and tokenizer files, and a checkpoint's weights.
constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;     // 256 MiB
constexpr uint64_t kMaxWeightsFileBytes = uint64_t{64} << 30;   // 64 GiB
/// Line-oriented inputs (shortlist corpora, lexical tables): at most this size and this line length.
constexpr uint64_t kMaxCorpusFileBytes = uint64_t{8} << 30;     // 8 GiB
constexpr size_t kMaxLineBytes = size_t{1} << 20;               // 1 MiB

/// A text file read line by line with bounded memory: only a regular file of at most max_bytes is opened
/// (a device such as /dev/zero, a FIFO or a directory is refused before anything is read), and a line
/// longer than kMaxLineBytes is an error naming the file and line.
class LineReader {
 public:
  LineReader() = default;
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// Errors: kNotFound, kIoError (not a regular file, too large, cannot open), naming `path`.
  Status Open(const std::string& path, uint64_t max_bytes = kMaxCorpusFileBytes);
  /// The next line into *line (without "\n" or "\r\n"); *got false at the end. Errors: kInvalidArgument
  /// ("path:N: line longer than ..."), kIoError (a read error).
  Status Next(std::string* line, bool* got);
  /// Lines returned so far (the number of the last one).
  uint64_t line_number() const { return line_; }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  uint64_t line_ = 0;
  char buf_[65536];
  size_t pos_ = 0, end_ = 0;
};

}  // namespace tern::convert
