// Opening a file that comes from outside without letting it block or mislead us. open(2) on a FIFO
// without a writer waits for good (so does a device that waits for its hardware); stat-then-open can be
// raced into opening something else. Every path tern reads as a file (a model, a packed-weights cache entry,
// a glossary, a checkpoint's files, the CLI's inputs and outputs) goes through here: opened with O_NONBLOCK,
// then fstat on the opened descriptor decides, and what is not a regular file is refused at once, named.
#pragma once

#include <sys/stat.h>

#include <string>

#include "tern/status.h"

// Every file that shares a `struct stat` with another must agree on its layout: the build defines
// _FILE_OFFSET_BITS=64 everywhere (CMakeLists.txt), so 32-bit targets see 64-bit sizes too.
static_assert(sizeof(off_t) == 8, "build with -D_FILE_OFFSET_BITS=64 (a 32-bit off_t changes struct stat)");

namespace tern::format {

/// What `mode` is, for messages: "a regular file", "a directory", "a FIFO", "a socket", "a character
/// device", "a block device", "a symbolic link", or "an unknown kind of file".
const char* FileKindName(mode_t mode);

/// Opens `path` read-only (O_CLOEXEC | O_NOCTTY | O_NONBLOCK) and fstats it: a regular file, or also a FIFO
/// when `allow_fifo` (a stream input: O_NONBLOCK is cleared, so its reads then wait as a pipe's do). Returns
/// the descriptor (the caller closes it) and fills *st. Errors: kNotFound ("PATH: cannot open: No such file
/// or directory"), kIoError ("PATH: cannot open: ...", "PATH: not a regular file (a FIFO)").
Result<int> OpenForReading(const std::string& path, struct stat* st, bool allow_fifo = false);

/// Opens `path` for writing in place (truncated) without blocking: an existing FIFO with no reader is
/// refused at once instead of waiting ("PATH: a FIFO with no reader"), and so is a socket or a block device;
/// a FIFO with a reader and a character device (/dev/null, a terminal) are returned blocking (writes then
/// wait as a pipe's do). `create`: a path that does not exist is created (0644). Errors: kIoError.
Result<int> OpenForWriting(const std::string& path, bool create);

}  // namespace tern::format
