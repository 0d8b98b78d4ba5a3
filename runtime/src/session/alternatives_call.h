// CTranslate2's return_alternatives (decoding.cc, decode_alternatives) as two passes of the ordinary call:
//
//   1. each input through its target prefix, one greedy row, and at the first free position the k most
//      likely tokens t_0..t_k-1 after the logits rules (search/expand.h), `</s>` excluded;
//   2. one sentence per (input, t_j): the same source with the target prefix `prefix + t_j`, translated by the
//      call's own search (greedy, beam or sampling) with n_best 1.
//
// Input i's result holds its alternatives in the order of t_j's log-probability; each hypothesis' score is
// that log-probability plus the continuation's score (the prefix adds nothing), as CTranslate2 adds them.
// The second pass runs inputs x k sentences (each source encoded k times), so inputs x k <= max_batch.
// Nothing here allocates: the pass-2 inputs and saved errors live in the arena (AlternativeBuffers).
#pragma once

#include <cstdint>
#include <string_view>

#include "memory/arena.h"
#include "memory/dims.h"
#include "tern/translator.h"

namespace tern {

/// The arena buffers of a return_alternatives call (kept across its two passes).
struct AlternativeBuffers {
  ArenaArray<uint32_t> token;                // [batch, n_best] first tokens per input (search/expand.h)
  ArenaArray<float> logprob;                 // [batch, n_best] their log-probabilities
  ArenaArray<uint32_t> count;                // [batch] how many
  ArenaArray<uint32_t> prefix_ids;           // [batch, tgt] pass 2: row r = input r / k's prefix, then t_(r % k)
  ArenaArray<Span<const uint32_t>> prefixes; // [batch] pass 2's target_prefix_ids
  ArenaArray<std::string_view> texts;        // [batch] pass 2's sources (Translate)
  ArenaArray<Span<const uint32_t>> sources;  // [batch] pass 2's sources (TranslateIds)
  ArenaArray<uint8_t> state;                 // [batch] per input after pass 1 (kOk, kBlank, or a StatusCode + 1)
  ArenaArray<char> errors;                   // [batch, kErrorBytes] pass 1's error messages
};

/// Declares them (counts in 64 bits).
void DeclareAlternativeBuffers(const Dims& d, AlternativeBuffers* a, ArenaPlan* plan);

/// What a call with alternatives refuses as a whole (kInvalidArgument): n_best other than 1, more than
/// max_n_best alternatives, n inputs x alternatives over max_batch, markup, placeholders, keep_spans, a
/// glossary, on_token, a min_alternative_expansion_prob outside [0, 1].
Status CheckAlternatives(const Dims& d, size_t n, const TranslateOptions& o);

}  // namespace tern
