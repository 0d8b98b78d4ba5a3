// The key of a packed-weights cache file (nn/packed_cache.h): everything the packed bytes depend on
// besides the model's weights themselves. A file whose key differs is not used.
#pragma once

#include <string>

namespace tern {

/// The packer's identity on this CPU, computed once per process (thread-safe): tern's version, the CPU's
/// and the active instruction-set levels, which layers tern's own GEMMs run (they change what XNNPACK
/// packs), what tern hands XNNPACK (kPackingScheme, nn/linear.h, and each format's kernel entry), and a
/// fingerprint of XNNPACK's packing: a 37 x 64 probe layer packed by the operator of every
/// weight format, its packed bytes and size hashed. Another XNNPACK version, another kernel choice
/// (nr, kr, sr, a packing routine) or another CPU family changes the fingerprint.
const std::string& PackerIdentity();

/// The cache key for a model file: "tern-packed-cache 1", PackerIdentity() and the file's identity
/// (internal::ModelData::identity: real path, device, inode, size, mtime). Empty when the model has no
/// file (FromBytes): such a model is never cached.
std::string PackedCacheKey(const std::string& file_identity);

/// The cache file for a model file at `real_path` in `dir`: dir/<file name>-<16 hex digits of the path's
/// hash>.ternpack (one file per model path; a stale one is replaced).
std::string PackedCachePath(const std::string& dir, const std::string& real_path);

}  // namespace tern
