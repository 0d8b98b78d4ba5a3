#include "nn/packed_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nn/packed_cache_io.h"

namespace tern {

using namespace packed_cache_format;

namespace {

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

}  // namespace

const Digest128& ModelContent::digest() const {
  if (!digested_) digest_ = Digest(data_.bytes(), data_.size()), digested_ = true;
  return digest_;
}

uint64_t PackedBytesLowerBound(DType dtype, uint64_t out, uint64_t in) { return out * in * PackedBits(dtype) / 8; }

uint64_t PackedBytesUpperBound(DType dtype, uint64_t out, uint64_t in) {
  const uint64_t k = RoundUp(in, 128);
  return RoundUp(out, 64) * (k * PackedBits(dtype) / 8 + 64 + 4 * (k / 32)) + 4096;
}

bool PackedCacheSeals(const std::vector<uint8_t>& b, uint64_t* checksum, Digest128* blocks) {
  if (b.size() < kHeaderBytes) return false;
  const uint64_t n = GetU32(b.data() + 12), key_bytes = GetU64(b.data() + 16), index_at = GetU64(b.data() + 24),
                 file_bytes = GetU64(b.data() + 32);
  if (key_bytes > b.size() - kHeaderBytes || index_at > b.size() || n * kEntryBytes > b.size() - index_at) return false;
  const uint64_t blocks_at = RoundUp(index_at + n * kEntryBytes, kAlign);
  *checksum = HeaderChecksum(b.data(), b.data() + kHeaderBytes, key_bytes, b.data() + index_at, n * kEntryBytes);
  *blocks = blocks_at <= file_bytes && file_bytes <= b.size() ? Digest(b.data() + blocks_at, file_bytes - blocks_at) : Digest128{};
  return true;
}

PackedCacheFile::~PackedCacheFile() {
  if (mapping_) munmap(mapping_, mapping_bytes_);
}

Result<std::unique_ptr<PackedCacheFile>> PackedCacheFile::Open(const CacheDirectory& dir, const std::string& name,
                                                               const std::string& key, const ModelContent& model) {
  const std::string path = dir.PathOf(name);
  struct stat st;
  TERN_ASSIGN_OR_RETURN(const int fd, dir.OpenEntry(name, &st));  // ours, a regular file: never a FIFO's wait
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
  if (std::memcmp(header, "TERNPACK", 8) != 0) return fail("no TERNPACK identifier at byte 0");
  if (GetU32(header + 8) != kVersion)
    return fail("version " + std::to_string(GetU32(header + 8)) + " at byte 8 (this build reads " + std::to_string(kVersion) + ")");
  const uint64_t n = GetU32(header + 12), key_bytes = GetU64(header + 16), index_at = GetU64(header + 24);
  if (n > kMaxBlocks) return fail("n_blocks " + std::to_string(n) + " at byte 12 over " + std::to_string(kMaxBlocks));
  if (key_bytes > kMaxKeyBytes) return fail("key_bytes " + std::to_string(key_bytes) + " at byte 16 over " + std::to_string(kMaxKeyBytes));
  if (GetU64(header + 32) != size) return fail("file_bytes " + std::to_string(GetU64(header + 32)) + " at byte 32, the file has " + std::to_string(size));
  // The index follows the key at the next multiple of 64: what the table read below allocates is bounded
  // (at most 128 + 4,096 + 64 + 65,536 x 48 bytes), whatever the file's size.
  if (index_at != RoundUp(kHeaderBytes + key_bytes, kAlign) || index_at > size || n * kEntryBytes > size - index_at)
    return fail("index at byte " + std::to_string(index_at) + " with " + std::to_string(n) +
                " entries is not right after the key or is outside the file");
  const uint64_t blocks_at = RoundUp(index_at + n * kEntryBytes, kAlign);
  if (blocks_at > size) return fail("the blocks start at byte " + std::to_string(blocks_at) + ", past the file's end");
  std::vector<uint8_t> table(static_cast<size_t>(index_at + n * kEntryBytes));
  if (pread(fd, table.data(), table.size(), 0) != static_cast<ssize_t>(table.size())) {
    close(fd);
    return Status(StatusCode::kIoError, path + ": cannot read the index");
  }
  const uint8_t* index = table.data() + index_at;
  if (HeaderChecksum(header, table.data() + kHeaderBytes, key_bytes, index, n * kEntryBytes) != GetU64(header + kChecksumAt))
    return fail("checksum at byte 40 does not match the header, key and index");
  if (std::string_view(reinterpret_cast<const char*>(table.data() + kHeaderBytes), key_bytes) != key) {
    close(fd);
    return Status(StatusCode::kUnsupported, path + ": packed-weights cache written for another CPU, XNNPACK, tern or model path");
  }
  // The model: the same file untouched since a trusted stamp was recorded, or else the same bytes.
  internal::FileStamp recorded;
  const uint8_t* s = header + kStampAt;
  recorded.dev = GetU64(s), recorded.ino = GetU64(s + 8), recorded.size = GetU64(s + 16);
  recorded.mtime_ns = static_cast<int64_t>(GetU64(s + 24)), recorded.ctime_ns = static_cast<int64_t>(GetU64(s + 32));
  const bool by_stamp = (GetU32(header + kFlagsAt) & kStampTrusted) && model.stamp().SameFile(recorded);
  if (!by_stamp && model.digest() != GetDigest(header + kModelDigestAt)) {
    close(fd);
    return Status(StatusCode::kUnsupported, path + ": packed-weights cache written for other contents of the model file (it changed since)");
  }
  std::unique_ptr<PackedCacheFile> f(new PackedCacheFile());
  f->by_content_ = !by_stamp;
  uint64_t end = size;
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* e = index + i * kEntryBytes;
    const std::string at = "index entry " + std::to_string(i) + " (byte " + std::to_string(index_at + i * kEntryBytes) + ")";
    PackedBlockId id;
    id.ordinal = GetU32(e + 44);
    const uint32_t dtype = GetU32(e + 20);
    if (dtype > static_cast<uint32_t>(DType::kQb4w)) return fail(at + ": dtype " + std::to_string(dtype));
    id.dtype = static_cast<DType>(dtype);
    id.out = GetU64(e + 24), id.in = GetU64(e + 32), id.block_size = GetU32(e + 40);
    const uint64_t off = GetU64(e), bytes = GetU64(e + 8);
    if (id.out == 0 || id.in == 0 || id.out > (uint64_t{1} << 24) || id.in > (uint64_t{1} << 24))
      return fail(at + ": shape [" + std::to_string(id.out) + ", " + std::to_string(id.in) + "]");
    if (off % kAlign || off < blocks_at || off > size || bytes > size - off)
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
    f->blocks_.push_back({id, CachedBlock{reinterpret_cast<const void*>(off), static_cast<size_t>(bytes), GetU32(e + 16)}});
  }
  // Map with room behind the file: zero pages as long as the largest packing a block's shape allows.
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
  // Every block's bytes as they were written (this reads the pages the first translation would read).
  const uint8_t* mapped = static_cast<const uint8_t*>(region);
  if (Digest(mapped + blocks_at, size - blocks_at) != GetDigest(header + kBlocksDigestAt))
    return Bad(path, "the blocks digest at byte 48 does not match the blocks (their bytes changed since they were written)");
  for (auto& b : f->blocks_) b.second.data = mapped + reinterpret_cast<uintptr_t>(b.second.data);
  return f;
}

const CachedBlock* PackedCacheFile::Find(const PackedBlockId& id) const {
  auto it = std::lower_bound(blocks_.begin(), blocks_.end(), id.ordinal,
                             [](const auto& b, uint32_t o) { return b.first.ordinal < o; });
  return it != blocks_.end() && it->first == id ? &it->second : nullptr;
}

}  // namespace tern
