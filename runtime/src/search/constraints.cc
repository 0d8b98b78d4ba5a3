#include "search/constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tern {

using namespace constraint_state;

bool SentenceConstraints::Same(uint32_t a, uint32_t b) const {
  if (len[a] != len[b]) return false;
  for (uint32_t p = 0; p < len[a]; ++p)
    if (Token(a, p) != Token(b, p)) return false;
  return true;
}

SentenceConstraints ConstraintsOf(const ConstraintBuffers& buf, size_t i) {
  SentenceConstraints sc;
  if (buf.count.data() == nullptr) return sc;
  sc.n = buf.count[i];
  sc.tokens = buf.tokens + i * kMaxConstraintTokens;
  sc.off = buf.off + i * kMaxConstraints;
  sc.len = buf.len + i * kMaxConstraints;
  sc.src_begin = buf.src_begin + i * kMaxConstraints;
  sc.src_end = buf.src_end + i * kMaxConstraints;
  sc.word_inside = buf.word_inside;
  return sc;
}

uint32_t AdvanceConstraint(const SentenceConstraints& sc, uint32_t s, uint32_t token) {
  if (sc.n == 0) return 0;
  const uint32_t met = Met(s), started = Started(s), progress = Progress(s);
  if (started) {
    const uint32_t c = started - 1;
    if (token == sc.Token(c, progress)) {
      if (progress + 1 == sc.len[c]) return Make(met | (1u << c), 0, 0, true);
      return Make(met, started, progress + 1);
    }
    // Abandoned (only when the search could not force it); the token may start another one.
  }
  for (uint32_t c = 0; c < sc.n; ++c) {
    if ((met >> c) & 1u || sc.Token(c, 0) != token) continue;
    return sc.len[c] == 1 ? Make(met | (1u << c), 0, 0, true) : Make(met, c + 1, 1);
  }
  return Make(met, 0, 0);
}

bool AlignedAt(const SentenceConstraints& sc, uint32_t c, int32_t aligned) {
  return aligned >= 0 && static_cast<uint32_t>(aligned) >= sc.src_begin[c];
}

uint32_t ConstraintTokensMet(const SentenceConstraints& sc, uint32_t s) {
  uint32_t n = 0;
  for (uint32_t c = 0; c < sc.n; ++c)
    if ((Met(s) >> c) & 1u) n += sc.len[c];
  return n + (Started(s) ? Progress(s) : 0);
}

void ConstrainRow(const SentenceConstraints& sc, uint32_t s, size_t pos, uint32_t max_len, uint32_t eos,
                  const VocabMap& vocab, int32_t aligned, bool start_by_alignment, float* row) {
  if (sc.n == 0 || pos + 1 >= max_len) return;  // the last step belongs to </s> (ForcedEOS)
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const size_t V = vocab.size;
  auto force = [&](uint32_t token) {
    const int64_t col = vocab.Index(token);
    if (col < 0) return false;  // not among the columns: left to the model
    float v = row[col];
    if (!std::isfinite(v)) v = -1e4f;
    for (size_t k = 0; k < V; ++k) row[k] = kNegInf;
    row[col] = v;
    return true;
  };
  const uint32_t met = Met(s), started = Started(s);
  if (started && force(sc.Token(started - 1, Progress(s)))) return;
  if (JustMet(s) && sc.word_inside) {
    for (size_t k = 0; k < V; ++k)
      if (sc.word_inside[vocab.Token(k)]) row[k] = kNegInf;
  }
  // A met term's first token is not generated again unless an unmet constraint also starts with it.
  uint32_t need = 0;
  for (uint32_t c = 0; c < sc.n; ++c) {
    if (!((met >> c) & 1u)) {
      need += sc.len[c];
      continue;
    }
    bool wanted = false;
    for (uint32_t u = 0; u < sc.n && !wanted; ++u) wanted = !((met >> u) & 1u) && sc.Token(u, 0) == sc.Token(c, 0);
    const int64_t col = vocab.Index(sc.Token(c, 0));
    if (!wanted && col >= 0) row[col] = kNegInf;
  }
  if (need == 0) return;
  const int64_t eos_col = vocab.Index(eos);
  bool eos_best = false;  // the model would end here
  if (eos_col >= 0) {
    const float e = row[eos_col];
    eos_best = std::isfinite(e);
    for (size_t k = 0; k < V && eos_best; ++k) eos_best = !(row[k] > e);
    row[eos_col] = kNegInf;
  }
  // Must start now: to fit before the cap (one position is left for </s>), or the model would end.
  const bool must = need + pos + 1 >= max_len || (start_by_alignment && eos_best);
  for (uint32_t c = 0; c < sc.n; ++c) {
    if ((met >> c) & 1u) continue;
    if ((must || (start_by_alignment && AlignedAt(sc, c, aligned))) && force(sc.Token(c, 0))) return;
  }
}

size_t AllocateBanks(const Candidates& cand, size_t n, size_t beam) {
  n = std::min(n, kMaxCandidates);
  uint16_t order[kMaxCandidates];  // candidates by score, descending (equal: the earlier first)
  uint8_t keep[kMaxCandidates] = {};
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint16_t>(i);
  // std::sort with the index as the tie-break (std::stable_sort may allocate a buffer).
  std::sort(order, order + n, [&](uint16_t a, uint16_t b) {
    return cand.score[a] != cand.score[b] ? cand.score[a] > cand.score[b] : a < b;
  });
  uint32_t top_bank = 0;
  for (size_t i = 0; i < n; ++i) top_bank = std::max(top_bank, cand.met[i]);
  size_t chosen = 0;
  for (bool any = true; any && chosen < beam;) {
    any = false;
    for (int64_t bank = top_bank; bank >= 0 && chosen < beam; --bank) {
      for (size_t k = 0; k < n; ++k) {
        const uint16_t i = order[k];
        if (keep[i] || cand.met[i] != static_cast<uint32_t>(bank)) continue;
        keep[i] = 1, ++chosen, any = true;
        break;
      }
    }
  }
  // Write the kept ones back in score order (a stack copy first: the writes overlap the reads).
  float score[kMaxCandidates], logprob[kMaxCandidates];
  uint32_t token[kMaxCandidates], beam_of[kMaxCandidates], met[kMaxCandidates];
  size_t m = 0;
  for (size_t k = 0; k < n; ++k) {
    const uint16_t i = order[k];
    if (!keep[i]) continue;
    score[m] = cand.score[i], logprob[m] = cand.logprob[i], token[m] = cand.token[i];
    beam_of[m] = cand.beam[i], met[m] = cand.met[i];
    ++m;
  }
  std::copy(score, score + m, cand.score);
  std::copy(logprob, logprob + m, cand.logprob);
  std::copy(token, token + m, cand.token);
  std::copy(beam_of, beam_of + m, cand.beam);
  std::copy(met, met + m, cand.met);
  return m;
}

}  // namespace tern
