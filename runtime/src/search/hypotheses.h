// Finished hypotheses of each sentence, at most `beam` per sentence, in arena memory (track planes: every
// channel of each hypothesis, search/track.h), kept by the rules of one transformers version:
//  - 5.x (GenerationMixin._update_finished_beams): the finished set is the top `beam` of the old set
//    followed by the new candidates (torch.topk, which keeps equal scores in index order), so it is a list
//    sorted by score, a new hypothesis going after every one that scores at least as high, and entering a
//    full list only above its last (which it pushes out).
//  - 4.x (BeamHypotheses): unsorted; a new hypothesis enters while there is room, or replaces the worst
//    (the lowest score, the first of equals) when it scores higher; ranked at the end by a stable sort on
//    the score read from the end (equal scores: the later one first, as 4.x pops from its sorted list).
// A hypothesis holds `length` entries: its tokens, and its final </s> when it ended with one (ended_eos).
// A template over the planes type, so a test runs it with a channel list of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "search/track.h"
#include "tern/translator.h"

namespace tern {

/// The arrays of a FinishedSet (arena buffers of SearchBuffers).
template <typename Planes>
struct FinishedStorage {
  Planes planes;                  // [batch x beam, max_tokens]
  ArenaArray<float> score;        // [batch x beam]
  ArenaArray<uint32_t> length;    // [batch x beam] entries (</s> included)
  ArenaArray<uint8_t> ended_eos;  // [batch x beam]
  ArenaArray<uint32_t> count;     // [batch]
};

template <typename Planes>
class FinishedSet {
 public:
  FinishedSet(const FinishedStorage<Planes>& s, size_t beam, size_t max_tokens, HfRules rules = HfRules::kTransformers5)
      : s_(s), beam_(beam), max_tokens_(max_tokens), rules_(rules) {}

  /// Empties sentences 0..n-1.
  void Reset(size_t n) {
    for (size_t b = 0; b < n; ++b) s_.count[b] = 0;
  }
  /// Empties sentence b alone (continuous batching: a new sentence in a freed slot).
  void ResetSentence(size_t b) { s_.count[b] = 0; }
  /// Offers the hypothesis in row `row` of `from` (entries [0, length), the last one its </s> when
  /// `ended_eos`) with `score` to sentence b. A score that is not finite (-inf: every continuation of it was
  /// banned; NaN) is never taken: no search returns such a hypothesis.
  void Add(size_t b, const Planes& from, size_t row, uint32_t length, bool ended_eos, float score) {
    if (!std::isfinite(score)) return;
    uint32_t& n = s_.count[b];
    const float* scores = s_.score + b * beam_;
    if (rules_ == HfRules::kTransformers5) {
      uint32_t at = n;
      while (at > 0 && scores[at - 1] < score) --at;
      if (at >= beam_) return;
      const uint32_t last = n < beam_ ? n : n - 1;
      for (uint32_t i = last; i > at; --i) Move(b, i, i - 1);
      Put(b, at, from, row, length, ended_eos, score);
      if (n < beam_) ++n;
      return;
    }
    if (n < beam_) {
      Put(b, n++, from, row, length, ended_eos, score);
      return;
    }
    if (!(score > worst(b))) return;
    uint32_t w = 0;  // the worst, the first of equals; the others keep their order
    for (uint32_t i = 1; i < n; ++i)
      if (scores[i] < scores[w]) w = i;
    for (uint32_t i = w; i + 1 < n; ++i) Move(b, i, i + 1);
    Put(b, n - 1, from, row, length, ended_eos, score);
  }
  uint32_t count(size_t b) const { return s_.count[b]; }
  bool full(size_t b) const { return count(b) >= beam_; }
  /// The lowest finished score of sentence b (1e9 when there is none, as transformers 4.x starts it).
  float worst(size_t b) const {
    float w = 1e9f;
    for (uint32_t i = 0; i < s_.count[b]; ++i) w = std::min(w, s_.score[b * beam_ + i]);
    return w;
  }
  /// Indices of sentence b's hypotheses, best first (ties as the rules say). idx must hold count(b) entries.
  void Ranked(size_t b, uint32_t* idx) const {
    const uint32_t n = s_.count[b];
    for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    if (rules_ == HfRules::kTransformers5) return;  // kept sorted
    // Stable ascending insertion sort by score (std::stable_sort may allocate), read from the end.
    for (uint32_t i = 1; i < n; ++i) {
      const uint32_t x = idx[i];
      uint32_t j = i;
      while (j > 0 && score(b, idx[j - 1]) > score(b, x)) idx[j] = idx[j - 1], --j;
      idx[j] = x;
    }
    std::reverse(idx, idx + n);
  }
  /// Row of hypothesis i of sentence b in planes().
  size_t row(size_t b, uint32_t i) const { return b * beam_ + i; }
  float score(size_t b, uint32_t i) const { return s_.score[row(b, i)]; }
  uint32_t length(size_t b, uint32_t i) const { return s_.length[row(b, i)]; }
  bool ended_eos(size_t b, uint32_t i) const { return s_.ended_eos[row(b, i)] != 0; }
  const Planes& planes() const { return s_.planes; }

 private:
  void Put(size_t b, uint32_t i, const Planes& from, size_t from_row, uint32_t length, bool eos, float score) {
    const size_t r = row(b, i);
    s_.score[r] = score, s_.length[r] = length, s_.ended_eos[r] = eos ? 1 : 0;
    CopyTrackRow(s_.planes, r, from, from_row, length, max_tokens_);
  }
  void Move(size_t b, uint32_t to, uint32_t from) {
    const size_t f = row(b, from);
    Put(b, to, s_.planes, f, s_.length[f], s_.ended_eos[f] != 0, s_.score[f]);
  }
  const FinishedStorage<Planes>& s_;
  size_t beam_, max_tokens_;
  HfRules rules_;
};

}  // namespace tern
