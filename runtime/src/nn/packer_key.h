// The key of a packed-weights cache file (nn/packed_cache.h): everything the packed bytes depend on
// besides the model's weights themselves. A file whose key differs is not used.
#pragma once

#include <cstdint>
#include <string>

#include "tern/model.h"

namespace tern {

/// A bit per weight format (1 << DType value) for PackerIdentity's `formats`.
uint32_t FormatBit(DType dtype);

/// The packer's identity on this CPU for the weight formats in `formats` (FormatBit each; thread-safe, each
/// format's part computed once per process): tern's version, the CPU's and the active instruction-set levels,
/// which layers tern's own GEMMs run (they change what XNNPACK packs), what tern hands XNNPACK
/// (kPackingScheme, nn/linear.h), and per format its kernel entry, for 4-bit formats whether XNNPACK's
/// operator is right here (nn/int4_probe.h), and a fingerprint of XNNPACK's packing: a 37 x 64 probe layer
/// packed by the format's operator, its packed bytes and size hashed. Another XNNPACK version, another
/// kernel choice (nr, kr, sr, a packing routine) or another CPU family changes the fingerprint. Formats
/// the model does not have are left out: they pack nothing of it (and their probes cost a load ~0.7 ms).
std::string PackerIdentity(uint32_t formats);

/// The cache key for a model file: "tern-packed-cache 2", PackerIdentity(formats) for the formats of the
/// model's 2-D tensors, and the file's real path. The file's contents are checked apart from the key (its
/// stamp or its digest: nn/packed_cache.h). Empty when the model has no file (FromBytes): such a model is
/// never cached.
std::string PackedCacheKey(const std::string& real_path, uint32_t formats);

/// The longest part of a model file's name an entry's name keeps, bytes: with "-", 16 hex digits,
/// ".ternpack" and a writer's ".tmp-PID-N" the name stays under NAME_MAX (255) for any legal file name.
inline constexpr size_t kMaxNameStemBytes = 160;

/// The cache entry's name for a model file at `real_path`: <file name, its first kMaxNameStemBytes bytes
/// cut at a character's start>-<16 hex digits of the path's XXH3-64>.ternpack (one entry per model path; a
/// stale one is replaced).
std::string PackedCacheName(const std::string& real_path);

}  // namespace tern
