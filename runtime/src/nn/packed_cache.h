// The packed-weights cache file (LoadOptions::packed_cache_dir): the weights XNNPACK packed for this CPU,
// written once after the first packing and mapped as they are by every later load of the same model on the
// same CPU with the same XNNPACK, so a load does no packing and the packed weights are file-backed pages
// that processes share (TFLite's XNNPACK delegate keeps a weight cache file the same way). Format, all
// integers little-endian:
//
//   header  [0, 64):  "TERNPACK", u32 version (1), u32 n_blocks, u64 key_bytes, u64 index_offset,
//                     u64 file_bytes, u64 checksum, 16 zero bytes
//   key     [64, 64 + key_bytes): the PackerKey text (nn/packer_key.h)
//   index   [index_offset, + 48 x n_blocks), index_offset a multiple of 64: per block u64 offset, u64 size,
//           u32 seed (XNNPACK's cache seed), u32 dtype, u64 out, u64 in, u32 block_size, u32 ordinal
//   blocks  each at a multiple of 64, as XNNPACK packed them, or (block_size kRowSumsBlock) the int32 row
//           sums tern's own int8 GEMM needs for a layer XNNPACK does not pack
//
// checksum is FNV-1a 64 over the header (checksum field zero), the key and the index. The blocks' bytes are
// not hashed at load (that would read every page; the model's weights are not hashed either): a block is
// trusted for its bounds only, and a corrupt block gives wrong numbers, never a read outside the mapping.
// Every field is checked in 64-bit arithmetic before use: sizes against the file's size, each block's
// size against the least and the most that XNNPACK can pack for its shape, and the mapping is followed by
// zero pages as long as the largest packing a block's shape allows, so an entry that understates its size
// cannot make a kernel read past the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tern/model.h"
#include "tern/status.h"

namespace tern {

/// block_size of a block that holds tern's int32 row sums of an int8 layer (the zero-point correction its own
/// GEMM needs: 4 bytes per output row, kept so that a load need not read every weight to sum it) instead of
/// XNNPACK's packing: such a block is exactly out x 4 bytes.
inline constexpr uint32_t kRowSumsBlock = 0xFFFFFFFFu;

/// One packed block's identity in the cache: the ordinal of its linear layer in PreparedModel's packing
/// order and the layer's shape, which must equal the model's.
struct PackedBlockId {
  uint32_t ordinal = 0;
  DType dtype = DType::kF32;
  uint64_t out = 0, in = 0;
  uint32_t block_size = 0;
  bool operator==(const PackedBlockId& o) const {
    return ordinal == o.ordinal && dtype == o.dtype && out == o.out && in == o.in && block_size == o.block_size;
  }
};

/// A block found in the cache: bytes inside the mapping and XNNPACK's seed for them.
struct CachedBlock {
  const void* data = nullptr;
  size_t size = 0;
  uint32_t seed = 0;
};

/// A verified, mapped cache file. Immutable and thread-safe once opened.
class PackedCacheFile {
 public:
  /// Maps and verifies `path` for `key`. Errors: kNotFound (no such file), kIoError (open, stat, map),
  /// kInvalidModel (any check above; the message names the field and the byte offset), kUnsupported
  /// (the file is sound but its key differs: written for another CPU, XNNPACK, tern or model file).
  static Result<std::unique_ptr<PackedCacheFile>> Open(const std::string& path, const std::string& key);
  ~PackedCacheFile();
  PackedCacheFile(const PackedCacheFile&) = delete;
  PackedCacheFile& operator=(const PackedCacheFile&) = delete;

  /// The block for `id`, or nullptr when the file has none of that ordinal and shape.
  const CachedBlock* Find(const PackedBlockId& id) const;
  size_t file_bytes() const { return file_bytes_; }

 private:
  PackedCacheFile() = default;
  void* mapping_ = nullptr;  // file_bytes_ rounded to pages, then zero pages: mapping_bytes_ in all
  size_t mapping_bytes_ = 0, file_bytes_ = 0;
  std::vector<std::pair<PackedBlockId, CachedBlock>> blocks_;  // by ordinal
};

/// A block to write: its identity, XNNPACK's seed and its bytes.
struct PackedBlockOut {
  PackedBlockId id;
  uint32_t seed = 0;
  const void* data = nullptr;
  size_t size = 0;
};

/// Writes a cache file for `key` holding `blocks` to `path` through a temporary in the same directory
/// (created with its missing parents), fsync, then rename: a reader sees the old file or the whole new one.
/// Errors: kIoError (naming the path and the call), kInvalidArgument (a block's size or alignment).
Status WritePackedCache(const std::string& path, const std::string& key, const std::vector<PackedBlockOut>& blocks);

/// FNV-1a 64 of [data, data + n) continuing from `h` (the file's checksum; tests forge files with it).
uint64_t PackedCacheHash(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull);

/// The least and the most bytes XNNPACK can pack a [out, in] layer of `dtype` into, on any CPU: the
/// elements themselves, and the elements with out rounded up to 64 rows, in to 128 columns and 64 bytes
/// of bias and scales per row (plus 4 bytes per 32 columns for block scales).
uint64_t PackedBytesLowerBound(DType dtype, uint64_t out, uint64_t in);
uint64_t PackedBytesUpperBound(DType dtype, uint64_t out, uint64_t in);

}  // namespace tern
