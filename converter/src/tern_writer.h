// Builds a .tern image (schema/tern.fbs) from a Checkpoint: the weight plan, the encoded tensors and the
// FlatBuffer (output_file.h writes it to disk).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "marian_checkpoint.h"
#include "shortlist.h"
#include "tern/model.h"
#include "tern/status.h"
#include "output_file.h"

namespace tern::convert {

/// Which weight format each kind of matrix gets.
struct WeightPlan {
  std::string name = "int8";               // what --weights said; recorded as provenance.weights
  DType attention = DType::kInt8;          // q/k/v/out projections (self- and cross-attention)
  DType feed_forward = DType::kInt8;       // fc1, fc2
  DType embeddings = DType::kInt8;         // token embeddings, and the output projection they are tied to (or lm_head)
  uint32_t block_size = 64;                // qb4w: columns per scale

  /// f32, f16, int8: every matrix in that format. qc4w, qb4w: every linear layer in 4 bits, the embeddings
  /// (read at every step by the lookup, and the output projection when tied) in int8. int4: the layout
  /// chosen on the bundled model's BLEU (docs/evaluation.md, "Weight formats"): qb4w with 32-column blocks for every
  /// linear layer, int8 embeddings. mixed: qb4w feed-forward layers, int8 attention and embeddings.
  /// Error: kInvalidArgument for another name or a bad block size.
  static Result<WeightPlan> Named(const std::string& name, uint32_t block_size);
  /// The format of ExpectedTensors' matrix `name`.
  DType For(const std::string& name) const;
  /// provenance.quantization: how each kind of matrix is stored.
  std::string Description() const;
};

struct WriteOptions {
  WeightPlan weights;            // format of the 2-D matrices; vectors stay f32
  ArenaLimits limits;            // stored as the file's default Translator limits
  std::string source_checkpoint; // recorded in provenance (the directory's name)
  const ShortlistTables* shortlist = nullptr;  // stored as the model's shortlist when given
  /// Put the weights in a segment after the FlatBuffer (format 5, schema DataSegment) even when they would
  /// fit inside it; a file whose weights would not fit the FlatBuffer's 2 GiB always gets one.
  bool weights_segment = false;
};

/// Per-tensor conversion report (for the converter's summary).
struct TensorReport {
  std::string name;
  DType dtype;
  size_t bytes;
  float max_abs_error;  // vs the f32 checkpoint (int8 or f16), 0 for f32
};

/// The weight segment of a .tern: every tensor of `ck` encoded in its format (opts.weights) at a 64-byte
/// aligned offset, in ExpectedTensors order. Made once; serialized by SerializeTernImage (again after a
/// shortlist is built from the first image's tokenizers, without quantizing twice).
struct EncodedTensors {
  struct Placement {
    std::string name;
    std::vector<uint32_t> shape;
    DType dtype;
    uint64_t offset, length, scales_offset = 0, scales_length = 0;
    float err = 0.f;
    uint32_t block = 0;
  };
  std::vector<uint8_t> segment;
  std::vector<Placement> placed;
  std::vector<TensorReport> report;
  float worst = 0.f;
  bool uses_int4 = false;
  std::string date;  // provenance's conversion time (ISO 8601 UTC), taken once
};

/// Encodes the tensors. Errors: kInvalidArgument (limits beyond max_positions; a block size that does not
/// divide a matrix's columns).
Status EncodeTensors(const Checkpoint& ck, const WriteOptions& opts, EncodedTensors* out);

/// The bytes of a .tern file from `ck`'s header data, `enc` and opts (limits, provenance, shortlist).
Status SerializeTernImage(const Checkpoint& ck, const WriteOptions& opts, const EncodedTensors& enc,
                          std::vector<uint8_t>* image);

/// EncodeTensors then SerializeTernImage; `report` (optional) gets the per-tensor report.
Status BuildTernImage(const Checkpoint& ck, const WriteOptions& opts, std::vector<uint8_t>* image,
                      std::vector<TensorReport>* report);


}  // namespace tern::convert
