// The packed-weights cache directory as a whole (nn/packed_cache.h is one entry's file): the temporary
// files of writers that are gone, and the bound on the entries' bytes (least recently used first out). A writer creates "ENTRY.tmp-PID-N" and holds an exclusive flock(2) on it
// until it has renamed it over ENTRY; a writer killed on the way (the OOM killer, an app swiped away) leaves
// the temporary behind, its lock released by the kernel. The next writer removes every temporary nobody
// holds a lock on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tern {

/// Removes the temporaries in `dir` ("*.ternpack.tmp-*": regular files, not symbolic links) that no process
/// holds a lock on and that are older than `min_age_s` seconds (a writer that has just created its file may
/// not hold its lock yet). `keep` (a path) is never removed. Returns how many were removed; errors are
/// ignored (the cache never fails a load).
size_t RemoveAbandonedTemporaries(const std::string& dir, const std::string& keep, double min_age_s = 2.0);

/// Removes the entries of `dir` ("*.ternpack": regular files, not symbolic links), least recently used first
/// (the oldest modification time: MarkUsed renews it), until those left take at most `max_bytes` (their
/// allocated bytes); `keep` (a path) is never removed. A process that has an entry mapped keeps its pages (an
/// unlinked file lives until its last mapping goes). Returns how many were removed; errors are ignored.
size_t EvictLeastRecentlyUsed(const std::string& dir, const std::string& keep, uint64_t max_bytes);

/// Sets the entry's modification time to now (its use, for EvictLeastRecentlyUsed). Errors are ignored.
void MarkUsed(const std::string& path);

}  // namespace tern
