// One translate call's batch: options resolved against the file's defaults and the Translator's limits,
// per-sentence errors, and the sources sorted by length and packed for the encoder.
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/logits_processors.h"
#include "search/search.h"
#include "session/buffers.h"
#include "tern/translator.h"

namespace tern {

/// TranslateOptions with every "file default" filled in and checked: what the search reads (its SearchOptions:
/// beam, n_best, length penalty, scores, alignment and its layer, hf_rules, early_stopping, sampling, coverage
/// penalty; the search gets them as they are, no copy by hand) and what the session's stages read.
struct ResolvedOptions : SearchOptions {
#include "session/resolved_members.inc"  // the table's RESOLVED rows that SearchOptions lacks (runtime/fields/fields.py)
  uint32_t max_length = 1;        // generated tokens including </s>, <= dims.tgt
  Span<LogitsProcessor* const> call_processors;  // the call's own, after the file's rules
  LogitsRules rules;         // the file's, or the call's own (its RESOLVED members by the table)
  Span<const uint64_t> sampling_keys;  // [inputs] or empty (TranslateOptions::sampling_keys)
  bool forced = false;   // the call forces tokens: target prefixes, or Translator::Score's targets
  bool scored = false;   // Translator::Score: the forced targets and their </s> are the hypotheses
};

/// Resolves `o` for a call of n sentences (`default_layer`: the alignment layer when the call names none).
/// Errors: kInvalidArgument (n > max_batch, beam > max_beam, an alignment layer beyond the decoder's,
/// n_best outside 1..min(beam, max_n_best), non-finite length penalty or ratio, an hf_rules or
/// early_stopping value outside its enum, target_prefix / target_prefix_ids not one per sentence or both given).
Result<ResolvedOptions> ResolveOptions(const GenerationDefaults& g, const Dims& dims, size_t n, const TranslateOptions& o,
                                       int default_layer);

/// Marks input sentence i failed with `code` and a printf-style message written into its arena slot (cut
/// to kErrorBytes - 1 bytes; no heap allocation).
void SetSentenceError(const ResultBuffers& out, const BatchBuffers& in, size_t i, StatusCode code, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// The cap on generated tokens (</s> included) of a sentence of `src_len` source tokens: max_length, and
/// ceil(max_length_ratio * src_len) + 10 when the ratio is on; at least 1.
uint32_t SentenceCap(const ResolvedOptions& o, uint32_t src_len);

/// Orders the n staged sentences still ok by source length (stable), packs their ids into in.src_ids and
/// sets each one's generated-token cap. Returns how many were packed.
size_t PackBatch(const Dims& dims, const BatchBuffers& in, size_t n, const ResolvedOptions& o);

}  // namespace tern
