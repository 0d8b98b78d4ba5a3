// TranslateOptions::return_attention (CTranslate2's return_attention): after the search, every returned
// hypothesis is decoded again through its own tokens (forced, one KV-cache slot each) and the cross-attention
// of the call's alignment layer, averaged over heads, is kept per token. A row's decoder computation does not
// depend on the rows beside it, so this is the attention the search saw when it chose each token. Only with
// TranslatorConfig::attention (the buffers are planned then); nothing is allocated.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "memory/dims.h"
#include "search/vocab_map.h"
#include "tern/translator.h"

namespace tern {

/// The pass's arena buffers.
struct AttentionBuffers {
  ArenaArray<float> out;             // [batch x n_best, tgt, src] results row r's token p at (r * tgt * src) + p * src_len
  ArenaArray<float> step;            // [rows, src] one step's rows
  ArenaArray<uint32_t> hyp_row;      // [rows] the results row of each hypothesis decoded
  ArenaArray<uint32_t> hyp_sentence; // [rows] its sentence (length order)
  ArenaArray<uint32_t> slots, sentences, tokens;  // [rows] one step's request
  ArenaArray<uint32_t> ancestry;     // [rows, tgt] each slot holds its own positions
};

/// Declares them (counts in 64 bits).
void DeclareAttentionBuffers(const Dims& d, AttentionBuffers* a, ArenaPlan* plan);

/// Fills Hypothesis::attention of every hypothesis of the n_valid sentences just searched (results written),
/// decoding with `alignment_layer` (the call's) over `columns`. Error: the decoder's (kInternal).
Status AttentionPass(Translator::Impl& t, size_t n_valid, const VocabMap& columns, int alignment_layer);

}  // namespace tern
