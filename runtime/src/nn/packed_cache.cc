#include "nn/packed_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "nn/packed_cache_dir.h"
#include "regular_file.h"

namespace tern {
namespace {

constexpr char kMagic[8] = {'T', 'E', 'R', 'N', 'P', 'A', 'C', 'K'};
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderBytes = 64, kEntryBytes = 48, kAlign = 64;
constexpr uint64_t kMaxKeyBytes = 4096, kMaxBlocks = 65536;
constexpr size_t kChecksumAt = 40;

uint64_t RoundUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

void Put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void Put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t Get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
uint64_t Get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

// Packed bits per element as XNNPACK stores them: f16 is packed widened to f32.
uint64_t PackedBits(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kF16: return 32;
    case DType::kInt8: return 8;
    case DType::kQc4w:
    case DType::kQb4w: return 4;
  }
  return 32;
}

Status Bad(const std::string& path, const std::string& what) {
  return Status(StatusCode::kInvalidModel, path + ": packed-weights cache: " + what);
}

// Header + key + index: what the checksum covers, from a buffer holding them.
uint64_t Checksum(const uint8_t* header, const uint8_t* key, size_t key_bytes, const uint8_t* index, size_t index_bytes) {
  uint8_t h[kHeaderBytes];
  std::memcpy(h, header, sizeof h);
  std::memset(h + kChecksumAt, 0, 8);
  return PackedCacheHash(index, index_bytes, PackedCacheHash(key, key_bytes, PackedCacheHash(h, sizeof h)));
}

}  // namespace

uint64_t PackedCacheHash(const void* data, size_t n, uint64_t h) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

uint64_t PackedBytesLowerBound(DType dtype, uint64_t out, uint64_t in) { return out * in * PackedBits(dtype) / 8; }

uint64_t PackedBytesUpperBound(DType dtype, uint64_t out, uint64_t in) {
  const uint64_t k = RoundUp(in, 128);
  return RoundUp(out, 64) * (k * PackedBits(dtype) / 8 + 64 + 4 * (k / 32)) + 4096;
}

PackedCacheFile::~PackedCacheFile() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

Result<std::unique_ptr<PackedCacheFile>> PackedCacheFile::Open(const std::string& path, const std::string& key) {
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, format::OpenForReading(path, &st));  // a FIFO there: refused, never waited on
  if (st.st_size < static_cast<off_t>(kHeaderBytes)) {
    close(fd);
    return Bad(path, "not a regular file of at least " + std::to_string(kHeaderBytes) + " bytes");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > SIZE_MAX / 2) {
    close(fd);
    return Bad(path, "file of " + std::to_string(size) + " bytes is larger than this address space maps");
  }
  uint8_t header[kHeaderBytes];
  if (pread(fd, header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot read the header");
  }
  auto fail = [&](const std::string& what) {
    close(fd);
    return Bad(path, what);
  };
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0) return fail("no TERNPACK identifier at byte 0");
  if (Get32(header + 8) != kVersion) return fail("version " + std::to_string(Get32(header + 8)) + " at byte 8 (this build reads 1)");
  const uint64_t n = Get32(header + 12), key_bytes = Get64(header + 16), index_at = Get64(header + 24);
  if (n > kMaxBlocks) return fail("n_blocks " + std::to_string(n) + " at byte 12 over " + std::to_string(kMaxBlocks));
  if (key_bytes > kMaxKeyBytes) return fail("key_bytes " + std::to_string(key_bytes) + " at byte 16 over " + std::to_string(kMaxKeyBytes));
  if (Get64(header + 32) != size) return fail("file_bytes " + std::to_string(Get64(header + 32)) + " at byte 32, the file has " + std::to_string(size));
  // The index follows the key at the next multiple of 64: what the table read below allocates is bounded
  // (at most 64 + 4,096 + 64 + 65,536 x 48 bytes), whatever the file's size.
  if (index_at != RoundUp(kHeaderBytes + key_bytes, kAlign) || index_at > size || n * kEntryBytes > size - index_at)
    return fail("index at byte " + std::to_string(index_at) + " with " + std::to_string(n) +
                " entries is not right after the key or is outside the file");
  // Map with room behind the file: zero pages as long as the largest packing a block's shape allows.
  std::vector<uint8_t> table(static_cast<size_t>(index_at + n * kEntryBytes));
  if (pread(fd, table.data(), table.size(), 0) != static_cast<ssize_t>(table.size())) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot read the index");
  }
  const uint8_t* index = table.data() + index_at;
  if (Checksum(header, table.data() + kHeaderBytes, key_bytes, index, n * kEntryBytes) != Get64(header + kChecksumAt))
    return fail("checksum at byte 40 does not match the header, key and index");
  if (std::string_view(reinterpret_cast<const char*>(table.data() + kHeaderBytes), key_bytes) != key) {
    close(fd);
    return Status(StatusCode::kUnsupported, path + ": packed-weights cache written for another CPU, XNNPACK, tern or model file");
  }
  std::unique_ptr<PackedCacheFile> f(new PackedCacheFile());
  uint64_t end = size;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* e = index + i * kEntryBytes;
    const std::string at = "index entry " + std::to_string(i) + " (byte " + std::to_string(index_at + i * kEntryBytes) + ")";
    PackedBlockId id;
    id.ordinal = Get32(e + 44);
    const uint32_t dtype = Get32(e + 20);
    if (dtype > static_cast<uint32_t>(DType::kQb4w)) return fail(at + ": dtype " + std::to_string(dtype));
    id.dtype = static_cast<DType>(dtype);
    id.out = Get64(e + 24), id.in = Get64(e + 32), id.block_size = Get32(e + 40);
    const uint64_t off = Get64(e), bytes = Get64(e + 8);
    if (id.out == 0 || id.in == 0 || id.out > (uint64_t{1} << 24) || id.in > (uint64_t{1} << 24))
      return fail(at + ": shape [" + std::to_string(id.out) + ", " + std::to_string(id.in) + "]");
    if (off % kAlign || off < index_at + n * kEntryBytes || off > size || bytes > size - off)
      return fail(at + ": block [" + std::to_string(off) + ", +" + std::to_string(bytes) + ") is outside the file or unaligned");
    const bool sums = id.block_size == kRowSumsBlock;
    if (sums && id.dtype != DType::kInt8) return fail(at + ": row sums of a " + std::string(DTypeName(id.dtype)) + " layer");
    const uint64_t lo = sums ? id.out * 4 : PackedBytesLowerBound(id.dtype, id.out, id.in),
                   hi = sums ? id.out * 4 : PackedBytesUpperBound(id.dtype, id.out, id.in);
    if (bytes < lo || bytes > hi)
      return fail(at + ": " + std::to_string(bytes) + " bytes for [" + std::to_string(id.out) + ", " + std::to_string(id.in) +
                  "] " + DTypeName(id.dtype) + " (XNNPACK packs " + std::to_string(lo) + " to " + std::to_string(hi) + ")");
    if (!f->blocks_.empty() && f->blocks_.back().first.ordinal >= id.ordinal) return fail(at + ": ordinals not increasing");
    end = std::max(end, off + hi);
    f->blocks_.push_back({id, CachedBlock{reinterpret_cast<const void*>(off), static_cast<size_t>(bytes), Get32(e + 16)}});
  }
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t total = RoundUp(end, page);
  if (total > SIZE_MAX / 2) return fail("blocks reach beyond this address space");
  void* region = mmap(nullptr, static_cast<size_t>(total), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    const int e = errno;
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot reserve " + std::to_string(total) + " bytes: " + std::strerror(e));
  }
  void* p = mmap(region, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  const int e = errno;
  close(fd);
  if (p == MAP_FAILED) {
    munmap(region, static_cast<size_t>(total));
    return Status(StatusCode::kIoError, path + ": mmap failed: " + std::strerror(e));
  }
  f->mapping_ = region;
  f->mapping_bytes_ = static_cast<size_t>(total);
  f->file_bytes_ = static_cast<size_t>(size);
  for (auto& b : f->blocks_) b.second.data = static_cast<const uint8_t*>(region) + reinterpret_cast<uintptr_t>(b.second.data);
  return f;
}

const CachedBlock* PackedCacheFile::Find(const PackedBlockId& id) const {
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), id.ordinal,
                             [](const auto& b, uint32_t o) { return b.first.ordinal < o; });
  return it != blocks_.end() && it->first == id ? &it->second : nullptr;
}

Status WritePackedCache(const std::string& path, const std::string& key, const std::vector<PackedBlockOut>& blocks) {
  if (key.size() > kMaxKeyBytes || blocks.size() > kMaxBlocks)
    return Status(StatusCode::kInvalidArgument, path + ": packed-weights cache: key or block count over the format's limits");
  const uint64_t index_at = RoundUp(kHeaderBytes + key.size(), kAlign);
  std::vector<uint8_t> table(static_cast<size_t>(index_at + blocks.size() * kEntryBytes), 0);
  uint64_t at = RoundUp(table.size(), kAlign);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const PackedBlockOut& b = blocks[i];
    uint8_t* e = table.data() + index_at + i * kEntryBytes;
    Put64(e, at), Put64(e + 8, b.size), Put32(e + 16, b.seed), Put32(e + 20, static_cast<uint32_t>(b.id.dtype));
    Put64(e + 24, b.id.out), Put64(e + 32, b.id.in), Put32(e + 40, b.id.block_size), Put32(e + 44, b.id.ordinal);
    at = RoundUp(at + b.size, kAlign);
  }
  const uint64_t file_bytes = blocks.empty() ? table.size() : at;
  std::memcpy(table.data(), kMagic, sizeof kMagic);
  Put32(table.data() + 8, kVersion), Put32(table.data() + 12, static_cast<uint32_t>(blocks.size()));
  Put64(table.data() + 16, key.size()), Put64(table.data() + 24, index_at), Put64(table.data() + 32, file_bytes);
  std::memcpy(table.data() + kHeaderBytes, key.data(), key.size());
  Put64(table.data() + kChecksumAt, Checksum(table.data(), table.data() + kHeaderBytes, key.size(),
                                             table.data() + index_at, blocks.size() * kEntryBytes));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : path.substr(0, slash);
  // The directory and its missing parents (the per-user default ~/.cache/tern/packed may be the first of them);
  // EEXIST is fine, and any other failure shows as the temporary's create below.
  for (size_t at = dir.find('/', 1); !dir.empty(); at = dir.find('/', at + 1)) {
    mkdir(dir.substr(0, at).c_str(), 0755);
    if (at == std::string::npos) break;
  }
  struct stat there;
  if (lstat(path.c_str(), &there) == 0 && !S_ISREG(there.st_mode))  // not ours to replace (a FIFO, a link, ...)
    return Status(StatusCode::kIoError, path + ": " + format::FileKindName(there.st_mode) + " is there, not a cache entry");
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Status(StatusCode::kIoError, tmp + ": cannot create: " + std::strerror(errno));
  flock(fd, LOCK_EX);  // held until it is renamed or removed: a temporary nobody locks is a dead writer's
  RemoveAbandonedTemporaries(dir, tmp);
  uint64_t written = 0;
  auto write_all = [&](const void* data, uint64_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    while (n > 0) {
      const ssize_t w = pwrite(fd, p, static_cast<size_t>(std::min<uint64_t>(n, 1 << 30)), static_cast<off_t>(written));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w, n -= static_cast<uint64_t>(w), written += static_cast<uint64_t>(w);
    }
    return true;
  };
  static const uint8_t kZeros[kAlign] = {};
  bool ok = write_all(table.data(), table.size());
  for (size_t i = 0; ok && i < blocks.size(); ++i) {
    ok = write_all(kZeros, RoundUp(written, kAlign) - written) && write_all(blocks[i].data, blocks[i].size);
  }
  ok = ok && write_all(kZeros, file_bytes - written) && fsync(fd) == 0;
  const int e = errno;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    const int e2 = ok ? errno : e;
    unlink(tmp.c_str());
    return Status(StatusCode::kIoError, path + ": cannot write the packed-weights cache: " + std::strerror(e2));
  }
  return Status::Ok();
}

}  // namespace tern
