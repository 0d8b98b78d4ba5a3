// Finished hypotheses of each sentence: transformers' BeamHypotheses (generation/beam_search.py), in
// arena memory. Holds at most `beam` per sentence; a new one enters while there is room, or replaces the
// worst when it scores higher (the worst: the lowest score, the first of equals).
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffers.h"

namespace tern {

class HypothesisStore {
 public:
  /// Over `s`'s hyp_* buffers: `beam` hypotheses of up to `max_tokens` tokens per sentence.
  HypothesisStore(const SearchBuffers& s, size_t beam, size_t max_tokens) : s_(s), beam_(beam), max_tokens_(max_tokens) {}

  /// Empties sentences 0..n-1.
  void Reset(size_t n);
  /// Offers hypothesis tokens[0..len) with `score` to sentence b.
  void Add(size_t b, const uint32_t* tokens, uint32_t len, float score);
  uint32_t count(size_t b) const { return s_.hyp_count[b]; }
  /// The lowest finished score of sentence b (1e9 when there is none, as transformers starts it).
  float worst(size_t b) const;
  /// Indices of sentence b's hypotheses, best first (equal scores: the later one first, as transformers
  /// pops from a stably sorted list). idx must hold count(b) entries.
  void Ranked(size_t b, uint32_t* idx) const;
  float score(size_t b, uint32_t i) const { return s_.hyp_score[b * beam_ + i]; }
  uint32_t length(size_t b, uint32_t i) const { return s_.hyp_len[b * beam_ + i]; }
  const uint32_t* tokens(size_t b, uint32_t i) const { return s_.hyp_tokens + (b * beam_ + i) * max_tokens_; }

 private:
  const SearchBuffers& s_;
  size_t beam_, max_tokens_;
};

}  // namespace tern
