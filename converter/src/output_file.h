// Writing the converter's output: refuse a path that must not be written over, then write a new file
// atomically (temporary, fsync, verify, rename) with Ctrl-C removing the temporary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tern/status.h"

namespace tern::convert {

/// Refuses an output path the converter must not write over: one of its `inputs` (same device and inode,
/// whatever the path's spelling or links), or anything but a regular file (a directory, a device such as
/// /dev/null, a FIFO: renaming a new file over it would replace the node itself). A path that does not
/// exist yet is fine. Error: kInvalidArgument naming both paths or the file type.
Status CheckOutputPath(const std::string& path, const std::vector<std::string>& inputs);

/// Writes `image` to `path` atomically: a temporary file in the same directory, fsync, then `verify(temp
/// path)` on the file as written (when given), then rename. On any failure, or SIGINT/SIGTERM/SIGHUP while the
/// temporary exists, no partial file is left and an existing `path` is untouched. An existing `path` that is
/// not a regular file is refused (CheckOutputPath) before anything is written. handle_signals = false (a
/// library call inside someone else's process, e.g. Python's tern.convert) leaves the process's signal
/// handlers alone; the temporary is still removed on every failure this function sees.
Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& image,
                           const std::function<Status(const std::string& written)>& verify = nullptr,
                           bool handle_signals = true);

}  // namespace tern::convert
