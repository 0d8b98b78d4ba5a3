// The packed-weights cache file (LoadOptions::packed_cache_dir): the weights XNNPACK packed for this CPU,
// written once after the first packing and mapped as they are by every later load of the same model on the
// same CPU with the same XNNPACK, so a load does no packing and the packed weights are file-backed pages
// that processes share (TFLite's XNNPACK delegate keeps a weight cache file the same way). Format 2, all
// integers little-endian:
//
//   header  [0, 128): "TERNPACK", u32 version (2), u32 n_blocks, u64 key_bytes, u64 index_offset,
//                     u64 file_bytes, u64 checksum, 16-byte blocks digest, 16-byte model digest, the model
//                     file's stamp (u64 dev, u64 ino, u64 size, i64 mtime ns, i64 ctime ns), u32 flags
//                     (bit 0: the stamp is trusted, internal::FileStamp), 4 zero bytes
//   key     [128, 128 + key_bytes): the PackerKey text (nn/packer_key.h)
//   index   [index_offset, + 48 x n_blocks), index_offset the next multiple of 64: per block u64 offset,
//           u64 size, u32 seed (XNNPACK's cache seed), u32 dtype, u64 out, u64 in, u32 block_size, u32 ordinal
//   blocks  from the next multiple of 64 to file_bytes, each at a multiple of 64, as XNNPACK packed them, or
//           (block_size kRowSumsBlock) the int32 row sums tern's own int8 GEMM needs for a layer XNNPACK does
//           not pack; zero bytes between them
//
// checksum is XXH3-64 over the header (checksum field zero), the key and the index; the blocks digest is
// XXH3-128 over every byte from the first block to file_bytes, checked at every open (about 4 ms for the
// 70 MiB of an OPUS-MT base model; the first translation would read those pages anyway), so a block whose
// bytes changed is never used. The model digest is XXH3-128 over the model file's bytes when the entry was
// written: an entry is used only for those bytes, known either by the file's stamp (equal to the one
// recorded, and trusted then) or, when the stamp differs, by hashing the model's image again (docs/
// cold-start.md "Trust"). Every field is checked in 64-bit arithmetic before use: sizes against the file's
// size, each block's size against the least and the most that XNNPACK can pack for its shape, and the
// mapping is followed by zero pages as long as the largest packing a block's shape allows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/digest.h"
#include "model/model_data.h"
#include "nn/packed_cache_dir.h"
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

/// The model an entry is for: its file's stamp and its image, whose digest is computed at most once, when
/// first asked for (before the image's pages are given back: ModelData::ReleasePages).
class ModelContent {
 public:
  explicit ModelContent(const internal::ModelData& data) : data_(data) {}
  const internal::FileStamp& stamp() const { return data_.stamp(); }
  /// XXH3-128 of the whole image (about 4 ms for 75 MiB).
  const Digest128& digest() const;
  bool digested() const { return digested_; }

 private:
  const internal::ModelData& data_;
  mutable Digest128 digest_;
  mutable bool digested_ = false;
};

/// A verified, mapped cache file. Immutable and thread-safe once opened.
class PackedCacheFile {
 public:
  /// Opens entry `name` of `dir` (CacheDirectory::OpenEntry: a regular file of this user that nobody else can
  /// write), maps it and verifies it for `key` and `model`. Errors: kNotFound (no such file), kIoError (open,
  /// stat, map; not a regular file), kInvalidModel (any check above, the blocks digest included; the message
  /// names the field and the byte offset), kUnsupported (sound, but written for another CPU, XNNPACK or tern,
  /// for other contents of the model file, or owned or writable by another user).
  static Result<std::unique_ptr<PackedCacheFile>> Open(const CacheDirectory& dir, const std::string& name,
                                                       const std::string& key, const ModelContent& model);
  ~PackedCacheFile();
  PackedCacheFile(const PackedCacheFile&) = delete;
  PackedCacheFile& operator=(const PackedCacheFile&) = delete;

  /// The block for `id`, or nullptr when the file has none of that ordinal and shape.
  const CachedBlock* Find(const PackedBlockId& id) const;
  size_t file_bytes() const { return file_bytes_; }
  /// Whether the model was known by hashing its image (its stamp differed from the recorded one).
  bool model_verified_by_content() const { return by_content_; }

 private:
  PackedCacheFile() = default;
  void* mapping_ = nullptr;  // file_bytes_ rounded to pages, then zero pages: mapping_bytes_ in all
  size_t mapping_bytes_ = 0, file_bytes_ = 0;
  bool by_content_ = false;
  std::vector<std::pair<PackedBlockId, CachedBlock>> blocks_;  // by ordinal
};

/// A block to write: its identity, XNNPACK's seed and its bytes.
struct PackedBlockOut {
  PackedBlockId id;
  uint32_t seed = 0;
  const void* data = nullptr;
  size_t size = 0;
};

/// Writes entry `name` of `dir` for `key` and `model` (its digest must be computed: ModelContent::digest())
/// holding `blocks`, through a temporary in the same directory, fsync, then rename: a reader sees the old
/// file or the whole new one. Errors: kIoError (naming the path and the call; something that is not a
/// regular file at `name` is never replaced), kInvalidArgument (the key or block count over the format's
/// limits), kResourceExhausted (no memory for the index).
Status WritePackedCache(const CacheDirectory& dir, const std::string& name, const std::string& key,
                        const ModelContent& model, const std::vector<PackedBlockOut>& blocks);

/// The checksum and the blocks digest a cache file image must hold, computed from its own header fields
/// (tests forge files with them); false when the header's sizes do not fit the image.
bool PackedCacheSeals(const std::vector<uint8_t>& file, uint64_t* checksum, Digest128* blocks);

/// The least and the most bytes XNNPACK can pack a [out, in] layer of `dtype` into, on any CPU: the
/// elements themselves, and the elements with out rounded up to 64 rows, in to 128 columns and 64 bytes
/// of bias and scales per row (plus 4 bytes per 32 columns for block scales).
uint64_t PackedBytesLowerBound(DType dtype, uint64_t out, uint64_t in);
uint64_t PackedBytesUpperBound(DType dtype, uint64_t out, uint64_t in);

namespace packed_cache_format {
inline constexpr uint32_t kVersion = 2;
inline constexpr uint64_t kHeaderBytes = 128, kEntryBytes = 48, kAlign = 64;
inline constexpr uint64_t kMaxKeyBytes = 4096, kMaxBlocks = 65536;
inline constexpr size_t kChecksumAt = 40, kBlocksDigestAt = 48, kModelDigestAt = 64, kStampAt = 80, kFlagsAt = 120;
inline constexpr uint32_t kStampTrusted = 1;
inline uint64_t RoundUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }
}  // namespace packed_cache_format

}  // namespace tern
