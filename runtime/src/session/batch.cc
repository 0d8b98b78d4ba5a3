#include "session/batch.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace tern {
namespace {

// A float option's value in a message ("1e-38", "nan", "inf").
std::string FieldValue(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
  return buf;
}

}  // namespace

#include "session/option_checks.inc"
#include "session/resolved_fields.inc"

Result<ResolvedOptions> ResolveOptions(const GenerationDefaults& g, const Dims& dims, size_t n, const TranslateOptions& o,
                                       int default_layer) {
  TERN_RETURN_IF_ERROR(CheckOptionRanges(o));  // one rule per field, the field table's, for every binding
  ResolvedOptions r;
  ResolveFromTable(g, o, &r);  // the table's RESOLVED rows: the call's values and the file's defaults
  if (n > dims.batch)
    return Status(StatusCode::kInvalidArgument, std::to_string(n) + " sentences exceed max_batch " + std::to_string(dims.batch));
  // Sampling runs one row per sentence: without a beam_size of its own the call is greedy, not the file's beam.
  r.beam = o.beam_size.value_or(o.sampling.enabled ? 1u : std::min<uint32_t>(g.beam_size, static_cast<uint32_t>(dims.beam)));
  if (r.beam == 0) return Status(StatusCode::kInvalidArgument, "beam_size 0 (1 = greedy search)");
  if (r.beam > dims.beam)
    return Status(StatusCode::kInvalidArgument,
                  "beam_size " + std::to_string(r.beam) + " exceeds the Translator's max_beam " + std::to_string(dims.beam));
  if (o.n_best < 1 || o.n_best > r.beam || o.n_best > dims.n_best)
    return Status(StatusCode::kInvalidArgument, "n_best " + std::to_string(o.n_best) + " must be in 1..min(beam_size " +
                                                    std::to_string(r.beam) + ", max_n_best " + std::to_string(dims.n_best) + ")");
  r.n_best = o.n_best;
  r.max_length = std::min<uint32_t>(o.max_length.value_or(g.max_length), static_cast<uint32_t>(dims.tgt));
  if (r.max_length == 0) return Status(StatusCode::kInvalidArgument, "max_length 0 (at least 1 generated token)");
  if (!(std::isfinite(r.max_length_ratio) && r.max_length_ratio >= 0.f))
    return Status(StatusCode::kInvalidArgument, "max_length_ratio must be finite and >= 0 (0: off)");
  r.want_alignment = o.return_alignment || o.replace_unknowns;  // replace_unknowns reads the alignment
  r.coverage_penalty = r.beam > 1 ? o.coverage_penalty : 0.f;  // greedy: one hypothesis, nothing to rank
  if (r.coverage_penalty != 0.f && !dims.attention)
    return Status(StatusCode::kInvalidArgument, "coverage_penalty: the Translator was created without TranslatorConfig::attention "
                                                "(which plans the cross-attention it sums)");
  if (o.return_attention && !dims.attention)
    return Status(StatusCode::kInvalidArgument, "return_attention: the Translator was created without TranslatorConfig::attention");
  r.alignment_layer = default_layer;
  if (o.alignment_layer) {
    if (*o.alignment_layer >= dims.dec_layers)
      return Status(StatusCode::kInvalidArgument, "alignment_layer " + std::to_string(*o.alignment_layer) + ": the decoder has " +
                                                      std::to_string(dims.dec_layers) + " layers (0 to " +
                                                      std::to_string(dims.dec_layers - 1) + ")");
    r.alignment_layer = static_cast<int>(*o.alignment_layer);
  }
  r.call_processors = o.logits_processors;
  for (LogitsProcessor* p : o.logits_processors)
    if (p == nullptr) return Status(StatusCode::kInvalidArgument, "logits_processors holds a null pointer");
  if (!(std::isfinite(r.rules.repetition_penalty) && r.rules.repetition_penalty > 0.f))
    return Status(StatusCode::kInvalidArgument, "repetition_penalty must be finite and > 0 (1: off)");
  for (size_t j = 0; j < o.suppress_sequences.size(); ++j) {
    const Span<const uint32_t>& seq = o.suppress_sequences[j];
    if (seq.empty()) return Status(StatusCode::kInvalidArgument, "suppress_sequences: sequence " + std::to_string(j) + " is empty");
    if (seq.size() > dims.tgt)
      return Status(StatusCode::kInvalidArgument, "suppress_sequences: sequence " + std::to_string(j) + " has " +
                                                      std::to_string(seq.size()) + " tokens, more than max_target_tokens");
    for (size_t k = 0; k < seq.size(); ++k)
      if (seq[k] >= dims.vocab)
        return Status(StatusCode::kInvalidArgument, "suppress_sequences: id " + std::to_string(seq[k]) + " at position " +
                                                        std::to_string(k) + " of sequence " + std::to_string(j) +
                                                        " is outside the target vocabulary (" + std::to_string(dims.vocab) + ")");
  }
  r.rules.suppress_sequences = o.suppress_sequences;
  if (o.end_tokens.size() > 8)
    return Status(StatusCode::kInvalidArgument, "end_tokens: " + std::to_string(o.end_tokens.size()) + " tokens (at most 8)");
  for (size_t k = 0; k < o.end_tokens.size(); ++k)
    if (o.end_tokens[k] >= dims.vocab)
      return Status(StatusCode::kInvalidArgument, "end_tokens: id " + std::to_string(o.end_tokens[k]) + " at position " +
                                                      std::to_string(k) + " is outside the target vocabulary (" +
                                                      std::to_string(dims.vocab) + ")");
  r.rules.end_tokens = o.end_tokens;
  r.sampling = o.sampling;
  if (o.sampling.enabled) {
    if (r.beam != 1)
      return Status(StatusCode::kInvalidArgument, "sampling is for greedy search (beam_size 1): beam sampling is not supported");
    if (!(std::isfinite(o.sampling.temperature) && o.sampling.temperature >= SamplingOptions::kMinTemperature))
      return Status(StatusCode::kInvalidArgument, "sampling temperature must be finite and >= 1e-06 (a smaller one overflows "
                                                  "the scores; greedy search is its limit)");
    if (!(o.sampling.top_p > 0.f && o.sampling.top_p <= 1.f))
      return Status(StatusCode::kInvalidArgument, "sampling top_p must be in (0, 1]");
    if (o.sampling.min_tokens_to_keep == 0)
      return Status(StatusCode::kInvalidArgument, "sampling min_tokens_to_keep must be at least 1");
  }
  // Per-input fields fit the call's inputs (CallChunks::CheckInputCounts, which every entry point runs first).
  r.sampling_keys = o.sampling_keys;
  if (!o.target_prefix.empty() && !o.target_prefix_ids.empty())
    return Status(StatusCode::kInvalidArgument, "target_prefix and target_prefix_ids: give one of them");
  r.forced = !o.target_prefix.empty() || !o.target_prefix_ids.empty();
  // The coverage penalty is CTranslate2's, with its beam search's end: a sentence closes once beam_size
  // hypotheses have finished (decoding.cc: no early exit with a penalty; transformers' early_stopping=True).
  r.early_stopping = o.early_stopping.value_or(o.coverage_penalty != 0.f ? EarlyStopping::kTrue : g.early_stopping);
  if (static_cast<uint8_t>(r.early_stopping) > static_cast<uint8_t>(EarlyStopping::kNever))
    return Status(StatusCode::kInvalidArgument, "early_stopping " + std::to_string(static_cast<int>(r.early_stopping)) +
                                                    " (false 0, true 1, never 2)");
  return r;
}

void SetSentenceError(const ResultBuffers& out, const BatchBuffers& in, size_t i, StatusCode code, const char* fmt, ...) {
  char* buf = out.out_errors + i * kErrorBytes;
  va_list args;
  va_start(args, fmt);
  const int w = std::vsnprintf(buf, kErrorBytes, fmt, args);
  va_end(args);
  const size_t len = w < 0 ? 0 : std::min<size_t>(static_cast<size_t>(w), kErrorBytes - 1);
  buf[len] = 0;
  TranslationResult& r = out.results[i];
  r.error = code;
  r.error_message = std::string_view(buf, len);
  r.hypotheses = {};
  in.sentence_ok[i] = 0;
}

size_t PackBatch(const Dims& dims, const BatchBuffers& in, size_t n, const ResolvedOptions& o) {
  size_t valid = 0;
  for (size_t i = 0; i < n; ++i)
    if (in.sentence_ok[i]) in.order[valid++] = static_cast<uint32_t>(i);
  // Stable insertion sort by length (no allocation); a batch is small.
  for (size_t i = 1; i < valid; ++i) {
    const uint32_t x = in.order[i];
    size_t j = i;
    while (j > 0 && in.in_len[in.order[j - 1]] > in.in_len[x]) in.order[j] = in.order[j - 1], --j;
    in.order[j] = x;
  }
  // Sources were staged at staged_ids[input index * src]; pack them in length order.
  uint32_t off = 0;
  for (size_t b = 0; b < valid; ++b) {
    const uint32_t i = in.order[b];
    const uint32_t len = in.in_len[i];
    std::memcpy(in.src_ids + off, in.staged_ids + size_t{i} * dims.src, len * sizeof(uint32_t));
    in.src_off[b] = off;
    in.src_len[b] = len;
    off += len;
    in.max_len[b] = SentenceCap(o, len);
  }
  return valid;
}

uint32_t SentenceCap(const ResolvedOptions& o, uint32_t src_len) {
  uint32_t cap = o.max_length;
  if (o.max_length_ratio > 0.f) {  // in double, compared before the cast: a huge ratio cannot overflow it
    const double by_ratio = std::ceil(static_cast<double>(o.max_length_ratio) * src_len) + 10.0;
    if (by_ratio < cap) cap = static_cast<uint32_t>(by_ratio);
  }
  return std::max<uint32_t>(cap, 1);
}

}  // namespace tern
