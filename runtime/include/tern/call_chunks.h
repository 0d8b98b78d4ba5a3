// tern::CallChunks: one chunker, and one loop over the chunks (Run), for every binding and the engine. A Translator takes at most max_batch inputs
// per call (its arena is planned for that many); a call of more runs as consecutive chunks, each with its part
// of the per-input options: target_prefix, target_prefix_ids and sampling_keys sliced, keep_spans renumbered
// (generated from the field table's per_input column, runtime/fields/fields.py). Each input's sampling key is
// its index in the whole call when the caller gave none, so a seeded call samples the same whatever the
// chunking (CTranslate2's max_batch_size splits a call the same way). Used by tern::Engine, the C API
// (tern_translate and tern_score take any number of inputs), JNI and Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tern/export.h"
#include "tern/status.h"
#include "tern/options.h"
#include "tern/translator.h"

namespace tern {

/// The chunks of one call of any number of inputs (see the top of this header).
class TERN_API CallChunks {
 public:
  /// The one check of a call's per-input fields against its `n` inputs (generated from the field table's
  /// per_input column: every entry point, binding and the engine use it): a "slice" field with entries must
  /// have one per input, a "by_text" entry must name an input. kInvalidArgument naming the field otherwise
  /// ("target_prefix: 2 entries for 3 inputs (one per input, or none)").
  static Status CheckInputCounts(const TranslateOptions& whole, size_t n);

  /// Inputs per chunk for a Translator of `max_batch`: max_batch / alternatives (return_alternatives decodes
  /// each input as that many sentences), at least 1.
  static size_t InputsPerChunk(uint32_t max_batch, uint32_t alternatives);

  /// Chunks of a call of `n` inputs whose options `whole` name all of them (per-input fields one entry per
  /// input, keep_spans by input index). `whole` and what it views must outlive this object. status() says
  /// whether its per-input fields fit n (kInvalidArgument naming the field otherwise: "target_prefix: 2 entries
  /// for 3 inputs (one per input, or none)").
  CallChunks(const TranslateOptions& whole, size_t n, uint32_t max_batch);
  /// Ok, or why the per-input fields do not fit the call's inputs (kInvalidArgument).
  const Status& status() const { return status_; }

  /// Inputs of the whole call.
  size_t inputs() const { return n_; }
  /// Inputs per chunk.
  size_t chunk_inputs() const { return per_chunk_; }
  /// Number of chunks (0 for n == 0).
  size_t count() const { return (n_ + per_chunk_ - 1) / per_chunk_; }
  /// Chunk k's first input (k < count()).
  size_t begin(size_t k) const { return k * per_chunk_; }
  /// One past chunk k's last input: chunk k is inputs [begin(k), end(k)) of the call.
  size_t end(size_t k) const { return k * per_chunk_ + per_chunk_ < n_ ? k * per_chunk_ + per_chunk_ : n_; }

  /// The options of inputs [b, e) (b < e <= n; any range, not only a chunk's): `whole` with its per-input fields
  /// cut to those inputs, sampling keys each input's index in the call when `whole` has none. Valid until the
  /// next call of Options or this object's end.
  const TranslateOptions& Options(size_t b, size_t e);

  /// Chunks of another Translator's max_batch (a binding that reads its options before it knows the Translator).
  void SetMaxBatch(uint32_t max_batch) { per_chunk_ = InputsPerChunk(max_batch, whole_.alternatives); }

  /// The one loop over a call's chunks (the C API, JNI through it, Python, the JavaScript API through the C ABI
  /// and the engine use it; nothing else loops over chunks). For each chunk in order, `run(b, e, options, &results)`
  /// runs inputs [b, e) on the Translator with Options(b, e), then `deliver(b, results)` copies the results out
  /// (they are the Translator's until its next call). The loop stops at the first chunk that does not succeed: an
  /// error ends the call, that chunk's results not delivered; kCancelled (the caller's stop) ends it after
  /// delivering what the chunk translated. Returns status() when the per-input fields do not fit, else that
  /// chunk's status (OK: every chunk ran), and sets *delivered to the inputs whose results were delivered, in
  /// order: the inputs after them were not run (the caller reports them cancelled, or drops all on an error).
  template <typename RunFn, typename DeliverFn>
  Status Run(RunFn&& run, DeliverFn&& deliver, size_t* delivered) {
    *delivered = 0;
    if (!status_.ok()) return status_;
    for (size_t k = 0; k < count(); ++k) {
      const size_t b = begin(k), e = end(k);
      Span<const TranslationResult> results;
      const Status s = run(b, e, Options(b, e), &results);
      if (!s.ok() && s.code() != StatusCode::kCancelled) return s;
      if (results.size() == e - b) {
        deliver(b, results);
        *delivered = e;
      }
      if (!s.ok()) return s;
    }
    return Status::Ok();
  }

 private:
  const TranslateOptions& whole_;
  size_t n_ = 0, per_chunk_ = 1;
  Status status_ = Status::Ok();
  TranslateOptions chunk_;
  std::vector<KeepSpan> spans_;  // the chunk's keep_spans, renumbered
  std::vector<uint64_t> keys_;   // each input's index, when whole has no sampling keys
};

}  // namespace tern
