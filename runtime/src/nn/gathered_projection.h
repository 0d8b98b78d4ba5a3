// The output layer over a vocabulary map's columns (search/vocab_map.h): logits [rows, map.size] for the
// tokens of a shortlist instead of [rows, target vocab].
//
// Made once per Model (in the PreparedModel) for an int8 (qc8w) output projection: it reads the rows of
// the model's own matrix (the tied decoder embedding, whose pages stay mapped anyway, or lm_head) and
// keeps one int32 sum per row (the zero-point correction of qd8 activations): 4 bytes x target vocab.
// Other formats of the output projection (f32, f16, 4-bit lm_head) have no gathered kernel: the
// Network computes the full logits with XNNPACK and keeps the map's columns (same results, no saving).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <pthreadpool.h>

#include "kernels/gathered_kernels.h"
#include "tern/model.h"
#include "views.h"
#include "tern/status.h"
#include "nn/xnn_ops.h"

namespace tern {

class GatheredProjection {
 public:
  /// For weight [V, d] (int8 with f32 row scales) and bias f32 [V] or nullptr; an unavailable one for any
  /// other format. `cached_sums` ([V], from a packed-weights cache written by a load that computed them with
  /// no weight of -128): used as they are, no weight read. Error: kResourceExhausted (the row sums cannot be
  /// allocated).
  static Result<GatheredProjection> Prepare(const TensorView& weight, const TensorView* bias,
                                            const int32_t* cached_sums = nullptr);
  /// The row sums [V] when they were computed here and a cache may keep them (no weight of -128), else nullptr.
  const int32_t* computed_sums() const { return !cached_sums_ && in_127_ ? row_sums_.data() : nullptr; }
  /// Whether the row sums came from a packed-weights cache.
  bool cached() const { return cached_sums_ != nullptr; }

  bool available() const { return w_ != nullptr; }
  size_t vocab() const { return vocab_; }
  size_t d_model() const { return d_; }
  /// Bytes read per call of Run for K tokens: int8 rows, scales, sums and bias of those tokens.
  size_t BytesRead(size_t K) const { return K * (d_ + sizeof(float) + sizeof(int32_t) + (bias_ ? sizeof(float) : 0)); }

  /// out[r, k] = logit of token tokens[k] for input row r, from q (rows x d_model, quantized by
  /// RowQuantizer); tokens [K] < vocab(). `kernel` from GatheredInt8Active(); `pool` splits the tokens
  /// across threads (nullptr: the calling thread). Never fails; allocates nothing.
  void Run(const GatheredInt8Kernel& kernel, const QuantScratch& q, size_t rows, const uint32_t* tokens, size_t K,
           float* out, pthreadpool_t pool) const;

 private:
  const int8_t* w_ = nullptr;
  const float* scales_ = nullptr;
  const float* bias_ = nullptr;
  std::vector<int32_t> row_sums_;
  const int32_t* cached_sums_ = nullptr;
  const int32_t* sums() const { return cached_sums_ ? cached_sums_ : row_sums_.data(); }
  size_t vocab_ = 0, d_ = 0;
  bool in_127_ = false;  // no weight is -128: the kernel's fn_127 applies
};

/// Keeps the map's columns of full logits, in place: logits [rows, V] becomes [rows, K] with
/// column k = old column tokens[k] (tokens ascending, so every write lands at or before its read).
void CompactColumns(float* logits, size_t rows, size_t V, const uint32_t* tokens, size_t K);

}  // namespace tern
