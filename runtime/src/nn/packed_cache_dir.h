// The packed-weights cache directory as a whole (nn/packed_cache.h is one entry's file): who may write it,
// the temporary files of writers that are gone, and the bound on the entries' bytes (least recently used
// first out). Every operation goes through one open descriptor of the directory, checked once, so a path
// swapped underneath (a parent another user can write, a symbolic link planted after the check) cannot
// redirect a read or a write.
//
// Trust (docs/cold-start.md "Trust"): the cache is used only in a directory owned by this process's
// effective user that nobody else can write (no group or other write bit, as pip and ccache require), and
// an entry only when it is a regular file of that user that nobody else can write. Anything else is not
// read and not written: the load packs, and its note says why.
//
// A writer creates "ENTRY.tmp-PID-N" and holds an exclusive flock(2) on it until it has renamed it over
// ENTRY; a writer killed on the way (the OOM killer, an app swiped away) leaves the temporary behind, its
// lock released by the kernel. The next writer removes every temporary nobody holds a lock on.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "tern/status.h"

namespace tern {

/// An open, trusted cache directory. Movable, not copyable; closes its descriptor.
class CacheDirectory {
 public:
  /// Opens `dir` (making it and its missing parents, mode 0700, when `create`) and checks through the
  /// descriptor that it is a directory owned by the effective user with no group or other write bit.
  /// Errors: kNotFound (it does not exist and !create), kIoError (cannot make or open it; not a
  /// directory), kUnsupported (not trusted: "DIR: owned by uid N, not this user (uid M)", "DIR: writable by
  /// other users (mode 1777)", "... by its group (mode 0775)").
  static Result<CacheDirectory> Open(const std::string& dir, bool create);

  CacheDirectory(CacheDirectory&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  CacheDirectory& operator=(CacheDirectory&& o) noexcept;
  CacheDirectory(const CacheDirectory&) = delete;
  CacheDirectory& operator=(const CacheDirectory&) = delete;
  ~CacheDirectory();

  int fd() const { return fd_; }
  /// The directory's path as given, for messages.
  const std::string& path() const { return path_; }
  /// path()/name, for messages.
  std::string PathOf(const std::string& name) const;

  /// Opens entry `name` read-only (never following a symbolic link, never blocking on a FIFO) and checks it
  /// is a regular file owned by the effective user with no group or other write bit; fills *st. Returns the
  /// descriptor (the caller closes it). Errors: kNotFound, kIoError ("DIR/NAME: not a regular file (a
  /// FIFO)"), kUnsupported ("DIR/NAME: owned by uid N, not this user", "... writable by other users").
  Result<int> OpenEntry(const std::string& name, struct stat* st) const;

  /// Removes the temporaries ("*.ternpack.tmp-*": regular files, not symbolic links) that no process holds
  /// a lock on and that are older than `min_age_s` seconds (a writer that has just created its file may not
  /// hold its lock yet); `keep` (a name) is never removed. Returns how many were removed; errors are
  /// ignored (the cache never fails a load).
  size_t RemoveAbandonedTemporaries(const std::string& keep, double min_age_s = 2.0) const;

  /// Removes the entries ("*.ternpack": regular files, not symbolic links), least recently used first (the
  /// oldest modification time: MarkUsed renews it), until those left take at most `max_bytes` (their
  /// allocated bytes); `keep` (a name) is never removed. A process that has an entry mapped keeps its pages
  /// (an unlinked file lives until its last mapping goes). Returns how many were removed; errors are ignored.
  size_t EvictLeastRecentlyUsed(const std::string& keep, uint64_t max_bytes) const;

  /// Sets entry `name`'s modification time to now (its use, for EvictLeastRecentlyUsed). Errors are ignored.
  void MarkUsed(const std::string& name) const;

 private:
  CacheDirectory(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

/// Whether `st` (a file or directory) is trusted as the cache's: owned by the effective user, no group or
/// other write bit. Otherwise fills *why ("owned by uid 1001, not this user (uid 1000)", "writable by other
/// users (mode 1777)", "writable by its group (mode 0775)").
bool TrustedByOwner(const struct stat& st, std::string* why);

}  // namespace tern
