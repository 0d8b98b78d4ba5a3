// Reading a checkpoint's files: only regular files, at most a stated size, every failure a Status that
// names the path (a directory, a FIFO or a device where a file should be is refused before it is read).
#pragma once

#include <cstdint>
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

}  // namespace tern::convert
