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

void HypothesisStore::Add(size_t b, const uint32_t* toks, uint32_t len, float score) {
  uint32_t& count = s_.hyp_count[b];
  float* scores = s_.hyp_score + b * beam_;
  uint32_t* lens = s_.hyp_len + b * beam_;
  uint32_t* tok = s_.hyp_tokens + b * beam_ * max_tokens_;
  if (count < beam_) {
    scores[count] = score, lens[count] = len;
    std::memcpy(tok + count * max_tokens_, toks, len * sizeof(uint32_t));
    ++count;
    return;
  }
  if (!(score > worst(b))) return;
  // Remove the worst (lowest index among equals), keep the order, append the new one.
  uint32_t w = 0;
  for (uint32_t i = 1; i < count; ++i)
    if (scores[i] < scores[w]) w = i;
  for (uint32_t i = w; i + 1 < count; ++i) {
    scores[i] = scores[i + 1], lens[i] = lens[i + 1];
    std::memcpy(tok + i * max_tokens_, tok + (i + 1) * max_tokens_, lens[i] * sizeof(uint32_t));
  }
  scores[count - 1] = score, lens[count - 1] = len;
  std::memcpy(tok + (count - 1) * max_tokens_, toks, len * sizeof(uint32_t));
}

void HypothesisStore::Ranked(size_t b, uint32_t* idx) const {
  const uint32_t count = s_.hyp_count[b];
  // Stable ascending insertion sort by score (std::stable_sort may allocate), read from the end.
  uint32_t* asc = idx;
  for (uint32_t i = 0; i < count; ++i) asc[i] = i;
  for (uint32_t i = 1; i < count; ++i) {
    const uint32_t x = asc[i];
    uint32_t j = i;
    while (j > 0 && score(b, asc[j - 1]) > score(b, x)) asc[j] = asc[j - 1], --j;
    asc[j] = x;
  }
  std::reverse(asc, asc + count);
}

}  // namespace tern
