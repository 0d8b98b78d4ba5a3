// Finished hypotheses of each sentence, at most `beam` per sentence, in arena memory, kept by the rules of
// one transformers version:
//  - 5.x (GenerationMixin._update_finished_beams): the finished set is the top `beam` of the old set
//    followed by the new candidates (torch.topk, which keeps equal scores in index order), so it is a list
//    sorted by score, a new hypothesis going after every one that scores at least as high, and entering a
//    full list only above its last (which it pushes out).
//  - 4.x (BeamHypotheses): unsorted; a new hypothesis enters while there is room, or replaces the worst
//    (the lowest score, the first of equals) when it scores higher; ranked at the end by a stable sort on
//    the score read from the end (equal scores: the later one first, as 4.x pops from its sorted list).
#pragma once

#include <cstddef>
#include <cstdint>

#include "buffers.h"
#include "tern/translator.h"

namespace tern {

class HypothesisStore {
 public:
  /// Over `s`'s hyp_* buffers: `beam` hypotheses of up to `max_tokens` tokens per sentence.
  HypothesisStore(const SearchBuffers& s, size_t beam, size_t max_tokens, HfRules rules = HfRules::kTransformers5)
      : s_(s), beam_(beam), max_tokens_(max_tokens), rules_(rules) {}

  /// Empties sentences 0..n-1.
  void Reset(size_t n);
  /// Offers hypothesis tokens[0..len) with `score` to sentence b.
  void Add(size_t b, const uint32_t* tokens, uint32_t len, float score);
  uint32_t count(size_t b) const { return s_.hyp_count[b]; }
  bool full(size_t b) const { return count(b) >= beam_; }
  /// The lowest finished score of sentence b (1e9 when there is none, as transformers 4.x starts it).
  float worst(size_t b) const;
  /// Indices of sentence b's hypotheses, best first (ties as the rules say). idx must hold count(b) entries.
  void Ranked(size_t b, uint32_t* idx) const;
  float score(size_t b, uint32_t i) const { return s_.hyp_score[b * beam_ + i]; }
  uint32_t length(size_t b, uint32_t i) const { return s_.hyp_len[b * beam_ + i]; }
  const uint32_t* tokens(size_t b, uint32_t i) const { return s_.hyp_tokens + (b * beam_ + i) * max_tokens_; }

 private:
  void Put(size_t b, uint32_t i, const uint32_t* tokens, uint32_t len, float score);
  void Move(size_t b, uint32_t to, uint32_t from);
  const SearchBuffers& s_;
  size_t beam_, max_tokens_;
  HfRules rules_;
};

}  // namespace tern
