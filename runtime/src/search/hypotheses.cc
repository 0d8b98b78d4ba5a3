#include "search/hypotheses.h"

#include <algorithm>
#include <cstring>

namespace tern {

void HypothesisStore::Reset(size_t n) {
  for (size_t b = 0; b < n; ++b) s_.hyp_count[b] = 0;
}

float HypothesisStore::worst(size_t b) const {
  float w = 1e9f;
  for (uint32_t i = 0; i < s_.hyp_count[b]; ++i) w = std::min(w, s_.hyp_score[b * beam_ + i]);
  return w;
}

void HypothesisStore::Put(size_t b, uint32_t i, const uint32_t* toks, uint32_t len, float score) {
  s_.hyp_score[b * beam_ + i] = score;
  s_.hyp_len[b * beam_ + i] = len;
  std::memcpy(s_.hyp_tokens + (b * beam_ + i) * max_tokens_, toks, len * sizeof(uint32_t));
}

void HypothesisStore::Move(size_t b, uint32_t to, uint32_t from) {
  Put(b, to, tokens(b, from), length(b, from), score(b, from));
}

void HypothesisStore::Add(size_t b, const uint32_t* toks, uint32_t len, float score) {
  uint32_t& count = s_.hyp_count[b];
  const float* scores = s_.hyp_score + b * beam_;
  if (rules_ == HfRules::kTransformers5) {
    // Sorted: after every hypothesis scoring >= it; a full list drops its last.
    uint32_t at = count;
    while (at > 0 && scores[at - 1] < score) --at;
    if (at >= beam_) return;
    const uint32_t last = count < beam_ ? count : count - 1;
    for (uint32_t i = last; i > at; --i) Move(b, i, i - 1);
    Put(b, at, toks, len, score);
    if (count < beam_) ++count;
    return;
  }
  if (count < beam_) {
    Put(b, count++, toks, len, score);
    return;
  }
  if (!(score > worst(b))) return;
  // Remove the worst (lowest index among equals), keep the order, append the new one.
  uint32_t w = 0;
  for (uint32_t i = 1; i < count; ++i)
    if (scores[i] < scores[w]) w = i;
  for (uint32_t i = w; i + 1 < count; ++i) Move(b, i, i + 1);
  Put(b, count - 1, toks, len, score);
}

void HypothesisStore::Ranked(size_t b, uint32_t* idx) const {
  const uint32_t count = s_.hyp_count[b];
  for (uint32_t i = 0; i < count; ++i) idx[i] = i;
  if (rules_ == HfRules::kTransformers5) return;  // kept sorted
  // Stable ascending insertion sort by score (std::stable_sort may allocate), read from the end.
  for (uint32_t i = 1; i < count; ++i) {
    const uint32_t x = idx[i];
    uint32_t j = i;
    while (j > 0 && score(b, idx[j - 1]) > score(b, x)) idx[j] = idx[j - 1], --j;
    idx[j] = x;
  }
  std::reverse(idx, idx + count);
}

}  // namespace tern
