// Writes a .tern file (schema/tern.fbs) from a Checkpoint.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "marian_checkpoint.h"
#include "tern/model.h"
#include "tern/status.h"

namespace tern::convert {

struct WriteOptions {
  DType weights = DType::kInt8;  // dtype of the 2-D matrices (linear layers, embeddings); vectors stay f32
  ArenaLimits limits;            // stored as the file's default Translator limits
  std::string source_checkpoint; // recorded in provenance
};

/// Per-tensor conversion report (for the converter's summary).
struct TensorReport {
  std::string name;
  DType dtype;
  size_t bytes;
  float max_abs_error;  // vs the f32 checkpoint (int8 or f16), 0 for f32
};

/// Serializes `ck` into `image` (the bytes of a .tern file): tensors in ExpectedTensors order, each at a
/// 64-byte aligned offset of the weight segment. Errors: kInvalidArgument (limits beyond max_positions).
Status BuildTernImage(const Checkpoint& ck, const WriteOptions& opts, std::vector<uint8_t>* image,
                      std::vector<TensorReport>* report);

/// Writes `image` to `path` atomically: a temporary file in the same directory, fsync, then `verify(temp
/// path)` on the file as written (when given), then rename. On any failure, or SIGINT/SIGTERM while the
/// temporary exists, no partial file is left and an existing `path` is untouched.
Status WriteFileAtomically(const std::string& path, const std::vector<uint8_t>& image,
                           const std::function<Status(const std::string& written)>& verify = nullptr);

}  // namespace tern::convert
