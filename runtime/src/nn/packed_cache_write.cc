// The packed-weights cache file's writer (nn/packed_cache.h has the layout).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>

#include "nn/packed_cache.h"
#include "nn/packed_cache_io.h"
#include "regular_file.h"

namespace tern {

using namespace packed_cache_format;

Status WritePackedCache(const CacheDirectory& dir, const std::string& name, const std::string& key,
                        const ModelContent& model, const std::vector<PackedBlockOut>& blocks) {
  const std::string path = dir.PathOf(name);
  if (key.size() > kMaxKeyBytes || blocks.size() > kMaxBlocks)
    return Status(StatusCode::kInvalidArgument, path + ": packed-weights cache: key or block count over the format's limits");
  const uint64_t index_at = RoundUp(kHeaderBytes + key.size(), kAlign);
  std::vector<uint8_t> table;
  try {
    table.assign(static_cast<size_t>(index_at + blocks.size() * kEntryBytes), 0);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, path + ": no memory for the packed-weights cache's index");
  }
  uint64_t at = RoundUp(table.size(), kAlign);
  const uint64_t blocks_at = at;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const PackedBlockOut& b = blocks[i];
    uint8_t* e = table.data() + index_at + i * kEntryBytes;
    PutU64(e, at), PutU64(e + 8, b.size), PutU32(e + 16, b.seed), PutU32(e + 20, static_cast<uint32_t>(b.id.dtype));
    PutU64(e + 24, b.id.out), PutU64(e + 32, b.id.in), PutU32(e + 40, b.id.block_size), PutU32(e + 44, b.id.ordinal);
    at = RoundUp(at + b.size, kAlign);
  }
  const uint64_t file_bytes = at;
  uint8_t* h = table.data();
  std::memcpy(h, "TERNPACK", 8);
  PutU32(h + 8, kVersion), PutU32(h + 12, static_cast<uint32_t>(blocks.size()));
  PutU64(h + 16, key.size()), PutU64(h + 24, index_at), PutU64(h + 32, file_bytes);
  PutDigest(h + kModelDigestAt, model.digest());
  const internal::FileStamp& stamp = model.stamp();
  uint8_t* s = h + kStampAt;
  PutU64(s, stamp.dev), PutU64(s + 8, stamp.ino), PutU64(s + 16, stamp.size);
  PutU64(s + 24, static_cast<uint64_t>(stamp.mtime_ns)), PutU64(s + 32, static_cast<uint64_t>(stamp.ctime_ns));
  PutU32(h + kFlagsAt, stamp.trusted ? kStampTrusted : 0);
  std::memcpy(h + kHeaderBytes, key.data(), key.size());

  struct stat there;
  if (fstatat(dir.fd(), name.c_str(), &there, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(there.st_mode))  // not ours to replace
    return Status(StatusCode::kIoError, path + ": " + format::FileKindName(there.st_mode) + " is there, not a cache entry");
  static std::atomic<unsigned> counter{0};
  const std::string tmp = name + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  const int fd = openat(dir.fd(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Status(StatusCode::kIoError, dir.PathOf(tmp) + ": cannot create: " + std::strerror(errno));
  flock(fd, LOCK_EX);  // held until it is renamed or removed: a temporary nobody locks is a dead writer's
  dir.RemoveAbandonedTemporaries(tmp);
  auto write_at = [&](const void* data, uint64_t n, uint64_t offset) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      const ssize_t w = pwrite(fd, p, static_cast<size_t>(std::min<uint64_t>(n, 1 << 30)), static_cast<off_t>(offset));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w, n -= static_cast<uint64_t>(w), offset += static_cast<uint64_t>(w);
    }
    return true;
  };
  // The blocks first (digested as written, zero bytes between them), then the header that seals them.
  static const uint8_t kZeros[kAlign] = {};
  bool ok = true;
  try {
    DigestStream digest;
    uint64_t written = blocks_at;
    for (size_t i = 0; ok && i < blocks.size(); ++i) {
      const uint64_t pad = RoundUp(written, kAlign) - written;
      ok = write_at(kZeros, pad, written) && write_at(blocks[i].data, blocks[i].size, written + pad);
      digest.Add(kZeros, pad), digest.Add(blocks[i].data, blocks[i].size);
      written += pad + blocks[i].size;
    }
    const uint64_t tail = file_bytes - written;
    ok = ok && write_at(kZeros, tail, written);
    digest.Add(kZeros, tail);
    PutDigest(h + kBlocksDigestAt, digest.Finish());
  } catch (const std::bad_alloc&) {
    ok = false;
    errno = ENOMEM;
  }
  PutU64(h + kChecksumAt, HeaderChecksum(h, h + kHeaderBytes, key.size(), h + index_at, blocks.size() * kEntryBytes));
  const uint64_t pad = blocks_at - table.size();
  ok = ok && write_at(table.data(), table.size(), 0) && write_at(kZeros, pad, table.size()) && fsync(fd) == 0;
  const int e = errno;
  close(fd);
  if (!ok || renameat(dir.fd(), tmp.c_str(), dir.fd(), name.c_str()) != 0) {
    const int e2 = ok ? errno : e;
    unlinkat(dir.fd(), tmp.c_str(), 0);
    return Status(StatusCode::kIoError, path + ": cannot write the packed-weights cache: " + std::strerror(e2));
  }
  return Status::Ok();
}

}  // namespace tern
