// Beam search step (transformers' _beam_search + BeamSearchScorer.process).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels.h"
#include "search/search.h"

namespace tern {
namespace {

constexpr float kAbsentBeamScore = -1e9f;  // transformers' score of beams that do not exist yet

// Top k = 2 x beam scores over a sentence's `live` consecutive rows into cand_* (descending; equal scores
// keep the lower flat index first, as torch.topk over the flattened rows does here).
size_t TopCandidates(SearchContext& c, const float* rows, size_t live, size_t k) {
  const size_t V = c.vocab.size;
  SearchBuffers& S = c.s;
  size_t nc = 0;
  for (size_t j = 0; j < live; ++j) {
    const float* row = rows + j * V;
    constexpr size_t kBlock = 32;
    for (size_t v0 = 0; v0 < V; v0 += kBlock) {
      const size_t end = std::min(v0 + kBlock, V);
      // Once the list is full, a block whose max cannot enter it is skipped (one vectorized max).
      if (nc == k && !(MaxOf(row + v0, end - v0) > S.cand_score[k - 1])) continue;
      for (size_t v = v0; v < end; ++v) {
        const float s = row[v];
        if (nc == k && !(s > S.cand_score[k - 1])) continue;
        size_t at = nc < k ? nc++ : k - 1;
        while (at > 0 && S.cand_score[at - 1] < s) {
          S.cand_score[at] = S.cand_score[at - 1], S.cand_token[at] = S.cand_token[at - 1], S.cand_beam[at] = S.cand_beam[at - 1];
          --at;
        }
        S.cand_score[at] = s, S.cand_token[at] = c.vocab.Token(v), S.cand_beam[at] = static_cast<uint32_t>(j);
      }
    }
  }
  return nc;
}

// The next beams of sentence b from candidates cand_*[0..nc): the first `beam` candidates (in rank order)
// that do not end in </s> fill the beam slots of tokens_next / anc_next / step_scores. Fewer than `beam`
// (a vocabulary of little more than </s>): transformers' topk then takes candidates of the beams that do
// not exist yet, which carry its initial score -1e9; the empty slots become copies of the best beam with
// that score, so every decoded row holds real tokens and no finite score is ever beaten by one of them.
// Returns how many real beams there are. 4.x also finishes </s> candidates ranked within the first `beam`
// here (`finish4`, BeamSearchScorer.process's order of work); 5.x does that in its merge.
size_t FillBeams(SearchContext& c, size_t b, size_t nc, size_t pos, bool finish4, float gen_len_pow) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  size_t filled = 0;
  for (size_t r = 0; r < nc && filled < B; ++r) {
    const size_t parent = b * B + S.cand_beam[r];
    if (S.cand_token[r] == c.eos) {
      if (finish4 && r < B) c.hyps.Add(b, S.tokens + parent * T, static_cast<uint32_t>(pos), S.cand_score[r] / gen_len_pow);
      continue;
    }
    const size_t slot = b * B + filled;
    std::memcpy(S.tokens_next + slot * T, S.tokens + parent * T, pos * sizeof(uint32_t));
    std::memcpy(S.anc_next + slot * T, S.anc + parent * T, pos * sizeof(uint32_t));
    S.tokens_next[slot * T + pos] = S.cand_token[r];
    S.anc_next[slot * T + pos] = static_cast<uint32_t>(parent);
    S.step_scores[slot] = S.cand_score[r];
    ++filled;
  }
  if (filled == 0) return 0;
  for (size_t j = filled; j < B; ++j) {
    const size_t from = b * B, slot = b * B + j;
    std::memcpy(S.tokens_next + slot * T, S.tokens_next + from * T, (pos + 1) * sizeof(uint32_t));
    std::memcpy(S.anc_next + slot * T, S.anc_next + from * T, (pos + 1) * sizeof(uint32_t));
    S.step_scores[slot] = kAbsentBeamScore;
  }
  for (size_t j = 0; j < B; ++j) S.beam_scores[b * B + j] = S.step_scores[b * B + j];
  return filled;
}

// transformers 4.x, BeamSearchScorer.process for sentence b (candidates in rank order; </s> within the
// first `beam` ranks finishes a hypothesis, the others fill the beam slots), then BeamHypotheses.is_done on
// the best candidate; at the cap the running beams finish as they are (BeamSearchScorer.finalize).
void ProcessCandidates4(SearchContext& c, size_t b, size_t nc, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  const float lp = c.opt.length_penalty;
  const float gen_len_pow = std::pow(static_cast<float>(pos + 1), lp);
  if (FillBeams(c, b, nc, pos, true, gen_len_pow) == 0) {  // every candidate was </s>: nothing runs on
    S.done[b] = 1;
    return;
  }
  if (c.hyps.full(b)) {
    switch (c.opt.early_stopping) {
      case EarlyStopping::kTrue: S.done[b] = 1; break;
      case EarlyStopping::kFalse: S.done[b] = c.hyps.worst(b) >= S.cand_score[0] / gen_len_pow; break;
      case EarlyStopping::kNever: {
        const float len = lp > 0.f ? static_cast<float>(c.in.max_len[b]) : static_cast<float>(pos + 1);
        S.done[b] = c.hyps.worst(b) >= S.cand_score[0] / std::pow(len, lp);
        break;
      }
    }
  }
  if (!S.done[b] && pos + 1 >= c.in.max_len[b]) {
    for (size_t j = 0; j < B; ++j) {
      const size_t slot = b * B + j;
      c.hyps.Add(b, S.tokens_next + slot * T, static_cast<uint32_t>(pos + 1), S.beam_scores[slot] / gen_len_pow);
    }
    S.done[b] = 1;
  }
}

// transformers 5.x, GenerationMixin._beam_search for sentence b, step by step as its helpers order them:
// the running beams for the next step (the best `beam` candidates not ending in </s>:
// _get_running_beams_for_next_iteration); then the finished set (_update_finished_beams: candidates ranked
// within the first `beam` that hit a stopping criterion, </s> or the length cap, merged into it while the
// sentence is open); then the early-stop heuristic (_check_early_stop_heuristic: once the set is full, the
// best running beam over L ^ length_penalty must beat its worst, else the sentence is closed for good).
void ProcessCandidates5(SearchContext& c, size_t b, size_t nc, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  const float lp = c.opt.length_penalty;
  const bool at_cap = pos + 1 >= c.in.max_len[b];  // MaxLengthCriteria: every candidate finishes
  const float gen_len_pow = std::pow(static_cast<float>(pos + 1), lp);
  const size_t running = FillBeams(c, b, nc, pos, false, gen_len_pow);
  // The merge. This step's candidates are offered only if the sentence was still open before it (the
  // heuristic of the previous step) and, with early_stopping true, its set was not yet full.
  if (!(c.opt.early_stopping == EarlyStopping::kTrue && c.hyps.full(b))) {
    for (size_t r = 0; r < nc && r < B; ++r) {
      const bool eos = S.cand_token[r] == c.eos;
      if (!eos && !at_cap) continue;
      const size_t parent = b * B + S.cand_beam[r];
      // A hypothesis ending in </s> holds the tokens before it; one cut by the cap holds its last token too.
      uint32_t* seq = S.cand_seq;
      std::memcpy(seq, S.tokens + parent * T, pos * sizeof(uint32_t));
      seq[pos] = S.cand_token[r];
      c.hyps.Add(b, seq, static_cast<uint32_t>(eos ? pos : pos + 1), S.cand_score[r] / gen_len_pow);
    }
  }
  if (at_cap || running == 0) {
    S.done[b] = 1;
    return;
  }
  if (c.opt.early_stopping == EarlyStopping::kTrue && c.hyps.full(b)) {
    S.done[b] = 1;
    return;
  }
  if (c.hyps.full(b)) {
    const float len = c.opt.early_stopping == EarlyStopping::kNever && lp > 0.f ? static_cast<float>(c.in.max_len[b])
                                                                                  : static_cast<float>(pos + 1);
    const float best_possible = S.beam_scores[b * B] / std::pow(len, lp);
    if (!(best_possible > c.hyps.worst(b))) S.done[b] = 1;
  }
}

// A finished sentence's best hypothesis to the token stream (beam search streams whole hypotheses).
void StreamBest(SearchContext& c, size_t b) {
  const uint32_t count = c.hyps.count(b);
  if (count == 0) return;
  uint32_t idx[64];  // count <= beam <= 64
  c.hyps.Ranked(b, idx);
  const uint32_t len = c.hyps.length(b, idx[0]);
  const uint32_t* ids = c.hyps.tokens(b, idx[0]);
  // Shorter than the cap: it ended with </s>.
  c.stream->Hypothesis(b, ids, len, len < c.in.max_len[b] ? c.eos : (len ? ids[len - 1] : c.eos));
}

}  // namespace

void BeamStep(SearchContext& c, size_t n, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t V = c.vocab.size, B = c.opt.beam;
  auto t0 = c.prof.Tick();
  // Per row: log-probabilities with the token mask, the processors, log_softmax again when
  // renormalize_logits, then the beam's running score (transformers' _beam_search).
  for (size_t i = 0; i < n; ++i) {
    const size_t slot = S.active[i], b = S.active_sentence[i];
    float* row = c.logits + i * V;
    ScoreRow(row, c.vocab.mask, LogSumExp(row, V), 0.f, V);
    if (!c.processors.empty()) c.processors.Apply(c.Row(slot, b, pos), row);
    if (c.processors.renormalize()) {
      const float lse = LogSumExp(row, V);
      if (std::isfinite(lse)) AddScalar(row, -lse, V);
    }
    AddScalar(row, S.beam_scores[slot], V);
  }
  size_t i0 = 0;
  for (size_t b = 0; b < c.n_sentences; ++b) {
    if (S.done[b]) continue;
    const size_t live = pos == 0 ? 1 : B;
    const size_t nc = TopCandidates(c, c.logits + i0 * V, live, 2 * B);
    c.prof.Tock(t0, &c.prof.profile.softmax_topk_ms);
    t0 = c.prof.Tick();
    if (c.opt.hf_rules == HfRules::kTransformers4) ProcessCandidates4(c, b, nc, pos);
    else ProcessCandidates5(c, b, nc, pos);
    if (S.done[b] && c.stream) StreamBest(c, b);
    i0 += live;
    c.prof.Tock(t0, &c.prof.profile.beam_bookkeeping_ms);
    t0 = c.prof.Tick();
  }
  std::swap(S.tokens, S.tokens_next);
  std::swap(S.anc, S.anc_next);
}

}  // namespace tern
