// The target tokens a call scores: every token (the identity map), or a per-batch shortlist — the union of
// the model's frequent tokens, the candidates of every source token of the batch's sentences, and </s>
// (Marian's and Bergamot's lexical shortlist; CTranslate2's vocabulary map). With a map, the decoder's
// output layer computes logits only for its tokens ([rows, size], in map order) and the search works on
// those columns; log_softmax normalizes over them (as Marian and CTranslate2 do), so the search is
// transformers' over the shortlisted vocabulary.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "tern/model.h"
#include "views.h"

namespace tern {

struct VocabMap {
  const uint32_t* tokens = nullptr;  // [size] ascending target ids; nullptr: the identity (every token)
  const int32_t* index = nullptr;    // [target vocab] column of each token, -1 where absent
  const uint8_t* mask = nullptr;     // [size] the token mask (pad, bad words) of each column
  size_t size = 0;                   // columns
  size_t vocab = 0;                  // the target vocabulary the tokens come from
  bool identity() const { return tokens == nullptr; }
  uint32_t Token(size_t k) const { return tokens ? tokens[k] : static_cast<uint32_t>(k); }
  /// Column of token t, or -1 when the map lacks it (or t is outside the vocabulary).
  int64_t Index(uint32_t t) const {
    if (t >= vocab) return -1;
    return tokens ? index[t] : static_cast<int64_t>(t);
  }
};

/// The shortlist of one call: sized [target vocab] when the model has a shortlist, empty otherwise.
struct VocabBuffers {
  ArenaArray<uint32_t> tokens;  // the map's tokens, ascending
  ArenaArray<int32_t> index;    // column of each token, -1 where absent
  ArenaArray<uint8_t> mask;     // the token mask per column
};

/// The identity map over `vocab` tokens with `mask`.
VocabMap IdentityMap(size_t vocab, const uint8_t* mask);

/// The source ids of a call's sentences, packed: sentence b is ids[off[b] .. off[b] + len[b]).
struct PackedSources {
  const uint32_t* ids = nullptr;
  const uint32_t* off = nullptr;
  const uint32_t* len = nullptr;
  size_t n = 0;
};

/// Builds the shortlist map of `sources` into `buf` (arena buffers sized [target vocab]), with `mask` (the
/// full-vocabulary token mask) and </s> always in. No allocation.
VocabMap BuildShortlistMap(const ShortlistView& shortlist, const PackedSources& sources, uint32_t eos, const uint8_t* mask,
                           size_t vocab, const VocabBuffers& buf);

}  // namespace tern
