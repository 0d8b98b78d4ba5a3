// Every arena buffer of a Translator, grouped by the component that owns it (the batch here, the
// network's in nn/activations.h, the search's and the results' in search/search.h), with its shape. One
// planning path (PlanArena) serves Translator::Create, RequiredArenaBytes, DescribeArena and the memory
// budget. Sizes come from Dims, the resolved limits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "memory/dims.h"
#include "nn/activations.h"
#include "search/search.h"
#include "session/alternatives_call.h"
#include "session/attention_pass.h"
#include "session/continuous_call.h"
#include "search/vocab_map.h"
#include "tern/translator.h"

namespace tern {

/// Resolves `config` against `model` (0 = the file's default) into Dims, checking every limit in 64-bit
/// arithmetic. Errors: kInvalidArgument (naming the limit).
Result<Dims> ResolveDims(const Model& model, const TranslatorConfig& config);

/// Sources of one call (batch staging, batch.cc).
struct BatchBuffers {
  ArenaArray<uint32_t> staged_ids;   // [batch, src] source ids by input index (results show them)
  ArenaArray<TextSpan> src_spans;    // [batch, src] Translate: each source token's bytes in its text
  ArenaArray<uint32_t> in_len;       // [batch] source tokens by input index (results show them)
  ArenaArray<uint32_t> src_ids;      // [src_rows] packed in length order: sentence b at src_off[b] .. + src_len[b]
  ArenaArray<uint32_t> src_off;      // [batch] (length order)
  ArenaArray<uint32_t> src_len;      // [batch] (length order)
  ArenaArray<uint32_t> order;        // [batch] input index of the b-th sentence in length order
  ArenaArray<uint32_t> max_len;      // [batch] generated-token cap of each sentence (length order)
  ArenaArray<uint8_t> sentence_ok;   // [batch] per input index
  ConstraintBuffers constraints;     // per input index: glossary constraints (search/constraints.h)
  ArenaArray<char> ids_text;         // [src_text_bytes] TranslateIds with a glossary: the text a source's pieces spell
  ArenaArray<uint32_t> forced_ids;   // [batch, tgt] per input index: target prefix / scored target (search/forced_tokens.h)
  ArenaArray<uint32_t> forced_len;   // [batch] its tokens (0: none)
};

struct SessionBuffers {
  BatchBuffers batch;
  EncoderBuffers enc;
  DecoderBuffers dec;
  SearchBuffers search;
  VocabBuffers vocab;
  ResultBuffers results;
  AlternativeBuffers alternatives;
  AttentionBuffers attention;  // planned only with TranslatorConfig::attention
  ContinuousCallBuffers continuous;  // planned only with TranslatorConfig::continuous_batching
};

/// Declares every buffer of `b` for `dims` and places them (counts in 64 bits).
void DeclareBuffers(const Dims& dims, SessionBuffers* b, ArenaPlan* plan);

/// The one planning path (Translator::Create, RequiredArenaBytes, DescribeArena): DeclareBuffers, then the
/// memory rule on the planned total (tern/model.h, LoadOptions): it plus what the model holds within the
/// model's budget, and addressable on this machine. Error: kResourceExhausted naming the sizes.
Status PlanArena(const Model& model, const Dims& dims, SessionBuffers* b, ArenaPlan* plan);

}  // namespace tern
