// Beam search step (transformers 5.x's _beam_search, or 4.x's BeamSearchScorer.process): search.h.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernels.h"
#include "search/beam_constraints.h"
#include "search/coverage.h"
#include "search/search.h"

namespace tern {
namespace {


// Top k = 2 x beam candidates over a sentence's `live` consecutive active rows (from row i0) into cand_*
// (descending; equal scores keep the lower flat index first, as torch.topk over the flattened rows does
// here). A candidate's score is its token's log-probability (the row) plus its beam's running score,
// added here as transformers adds them before its topk.
size_t TopCandidates(SearchContext& c, size_t i0, size_t live, size_t k) {
  const size_t V = c.vocab.size;
  SearchBuffers& S = c.s;
  size_t nc = 0;
  for (size_t j = 0; j < live; ++j) {
    const float* row = c.logits + (i0 + j) * V;
    const float base = S.beam_scores[S.active[i0 + j]];
    constexpr size_t kBlock = 32;
    for (size_t v0 = 0; v0 < V; v0 += kBlock) {
      const size_t end = std::min(v0 + kBlock, V);
      // Once the list is full, a block whose max cannot enter it is skipped (one vectorized max; adding
      // the base after the max gives the max of the sums, rounding being monotone).
      if (nc == k && !(MaxOf(row + v0, end - v0) + base > S.cand_score[k - 1])) continue;
      for (size_t v = v0; v < end; ++v) {
        const float s = row[v] + base;
        if (nc == k && !(s > S.cand_score[k - 1])) continue;
        size_t at = nc < k ? nc++ : k - 1;
        while (at > 0 && S.cand_score[at - 1] < s) {
          S.cand_score[at] = S.cand_score[at - 1], S.cand_logprob[at] = S.cand_logprob[at - 1];
          S.cand_token[at] = S.cand_token[at - 1], S.cand_beam[at] = S.cand_beam[at - 1];
          --at;
        }
        S.cand_score[at] = s, S.cand_logprob[at] = row[v];
        S.cand_token[at] = c.vocab.Token(v), S.cand_beam[at] = static_cast<uint32_t>(j);
      }
    }
  }
  return nc;
}

// Writes candidate r as entry `pos` of row `row` of `planes`, the entries before it copied from its beam.
void PlaceCandidate(SearchContext& c, TrackPlanes& planes, size_t row, size_t b, size_t i0, size_t r, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, parent = b * c.opt.beam + S.cand_beam[r];
  CopyTrackRow(planes, row, S.track, parent, pos, T);
  const size_t at = row * T + pos;
  planes.token[at] = S.cand_token[r];
  planes.kv_slot[at] = static_cast<uint32_t>(parent);  // this position's K/V is in the parent's slot
  planes.logprob[at] = S.cand_logprob[r];
  planes.source[at] = S.row_source[i0 + S.cand_beam[r]];
  const SentenceConstraints sc = c.Constraints(b);
  planes.constraint[at] = sc.n ? AdvanceConstraint(sc, c.ConstraintState(parent, pos), S.cand_token[r]) : 0;
}

// The next beams of sentence b from candidates cand_*[0..nc): the first `beam` candidates (in rank order)
// that do not end in </s> fill the beam slots of track_next / step_scores. Fewer than `beam` (a vocabulary
// of little more than </s>): transformers' topk then takes candidates of the beams that do not exist yet,
// which carry its initial score -1e9; the empty slots become copies of the best beam with that score, so
// every decoded row holds real tokens and no finite score is ever beaten by one of them. Returns how many
// real beams there are. 4.x also finishes </s> candidates ranked within the first `beam` here (`finish4`,
// BeamSearchScorer.process's order of work); 5.x does that in its merge.
size_t FillBeams(SearchContext& c, size_t b, size_t i0, size_t nc, size_t pos, bool finish4, float gen_len_pow) {
  SearchBuffers& S = c.s;
  const size_t T = c.dims.tgt, B = c.opt.beam;
  size_t filled = 0;
  for (size_t r = 0; r < nc && filled < B; ++r) {
    if (c.IsEnd(S.cand_token[r])) {
      if (finish4 && r < B) {
        PlaceCandidate(c, S.candidate, 0, b, i0, r, pos);
        if (Finishable(c, b, S.candidate, 0, pos, S.cand_score[r]))
          c.hyps.Add(b, S.candidate, 0, static_cast<uint32_t>(pos + 1), true,
                     S.cand_score[r] / gen_len_pow + CandidatePenalty(c, b, i0, r));
      }
      continue;
    }
    const size_t slot = b * B + filled;
    PlaceCandidate(c, S.track_next, slot, b, i0, r, pos);
    ExtendCoverage(c, b, slot, S.active[i0 + S.cand_beam[r]], i0 + S.cand_beam[r]);
    S.step_scores[slot] = S.cand_score[r];
    ++filled;
  }
  if (filled == 0) return 0;
  for (size_t j = filled; j < B; ++j) {
    const size_t slot = b * B + j;
    CopyTrackRow(S.track_next, slot, S.track_next, b * B, pos + 1, T);
    CopyCoverage(c, slot, b * B);
    S.step_scores[slot] = kAbsentBeamScore;
  }
  for (size_t j = 0; j < B; ++j) S.beam_scores[b * B + j] = S.step_scores[b * B + j];
  return filled;
}

// transformers 4.x, BeamSearchScorer.process for sentence b (candidates in rank order; </s> within the
// first `beam` ranks finishes a hypothesis, the others fill the beam slots), then BeamHypotheses.is_done on
// the best candidate; at the cap the running beams finish as they are (BeamSearchScorer.finalize).
void ProcessCandidates4(SearchContext& c, size_t b, size_t i0, size_t nc, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t B = c.opt.beam;
  const float lp = c.opt.length_penalty;
  const uint32_t prefix = c.PrefixLen(b);  // generated_len = cur_len - decoder_prompt_len: after the prefix
  const float gen_len_pow = std::pow(static_cast<float>(pos + 1 - prefix), lp);
  if (FillBeams(c, b, i0, nc, pos, true, gen_len_pow) == 0) {  // every candidate was </s>: nothing runs on
    S.done[b] = 1;
    return;
  }
  if (c.hyps.full(b)) {
    switch (c.opt.early_stopping) {
      case EarlyStopping::kTrue: S.done[b] = 1; break;
      case EarlyStopping::kFalse: S.done[b] = c.hyps.worst(b) >= S.cand_score[0] / gen_len_pow; break;
      case EarlyStopping::kNever: {
        const float len = lp > 0.f ? static_cast<float>(c.in.max_len[b] - prefix) : static_cast<float>(pos + 1 - prefix);
        S.done[b] = c.hyps.worst(b) >= S.cand_score[0] / std::pow(len, lp);
        break;
      }
    }
  }
  if (!S.done[b] && pos + 1 >= c.in.max_len[b]) {
    for (size_t j = 0; j < B; ++j) {
      const size_t slot = b * B + j;
      if (Finishable(c, b, S.track_next, slot, pos, S.beam_scores[slot]))
        c.hyps.Add(b, S.track_next, slot, static_cast<uint32_t>(pos + 1), false,
                   S.beam_scores[slot] / gen_len_pow + SlotPenalty(c, b, slot));
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
void ProcessCandidates5(SearchContext& c, size_t b, size_t i0, size_t nc, size_t pos) {
  SearchBuffers& S = c.s;
  const size_t B = c.opt.beam;
  const float lp = c.opt.length_penalty;
  const bool at_cap = pos + 1 >= c.in.max_len[b];  // MaxLengthCriteria: every candidate finishes
  const uint32_t prefix = c.PrefixLen(b);  // cur_len + 1 - decoder_prompt_len: the tokens after the prefix
  const float gen_len_pow = std::pow(static_cast<float>(pos + 1 - prefix), lp);
  const size_t running = FillBeams(c, b, i0, nc, pos, false, gen_len_pow);
  // The merge. This step's candidates are offered only if the sentence was still open before it (the
  // heuristic of the previous step) and, with early_stopping true, its set was not yet full.
  if (!(c.opt.early_stopping == EarlyStopping::kTrue && c.hyps.full(b))) {
    for (size_t r = 0; r < nc && r < B; ++r) {
      const bool eos = c.IsEnd(S.cand_token[r]);
      if (!eos && !at_cap) continue;
      PlaceCandidate(c, S.candidate, 0, b, i0, r, pos);
      if (Finishable(c, b, S.candidate, 0, pos, S.cand_score[r]))
        c.hyps.Add(b, S.candidate, 0, static_cast<uint32_t>(pos + 1), eos,
                   S.cand_score[r] / gen_len_pow + CandidatePenalty(c, b, i0, r));
    }
  }
  if (at_cap || running == 0 || (c.opt.early_stopping == EarlyStopping::kTrue && c.hyps.full(b))) {
    S.done[b] = 1;
    return;
  }
  if (c.hyps.full(b)) {
    const bool never = c.opt.early_stopping == EarlyStopping::kNever && lp > 0.f;
    const float len = static_cast<float>(never ? c.in.max_len[b] - prefix : pos + 1 - prefix);
    const float best_possible = S.beam_scores[b * B] / std::pow(len, lp);
    if (!(best_possible > c.hyps.worst(b))) S.done[b] = 1;
  }
}

// A step of sentence b through its target prefix (forced_tokens.h): its one row takes the token, score unchanged.
void ForcedStep(SearchContext& c, size_t b, size_t i0, size_t pos, uint32_t token) {
  SearchBuffers& S = c.s;
  const int64_t col = c.vocab.Index(token);
  S.cand_score[0] = S.beam_scores[S.active[i0]];
  S.cand_logprob[0] = col >= 0 ? c.logits[i0 * c.vocab.size + static_cast<size_t>(col)] : -INFINITY;
  S.cand_token[0] = token, S.cand_beam[0] = 0;
  PlaceCandidate(c, S.track_next, b * c.opt.beam, b, i0, 0, pos);
  ExtendCoverage(c, b, b * c.opt.beam, S.active[i0], kForcedRow);  // a prefix token adds no attention
}

// A finished sentence's best hypothesis to the token stream (beam search streams whole hypotheses).
void StreamBest(SearchContext& c, size_t b) {
  if (c.hyps.count(b) == 0) return;
  uint32_t idx[kMaxBeam];  // the best hypothesis: idx[0]
  c.hyps.Ranked(b, idx);
  const size_t at = c.hyps.row(b, idx[0]) * c.dims.tgt, len = c.hyps.length(b, idx[0]);
  const uint32_t* tokens = c.hyps.planes().token + at;
  const float* logprobs = c.hyps.planes().logprob + at;  // [len]
  if (c.hyps.ended_eos(b, idx[0])) c.stream->Hypothesis(b, tokens, logprobs, len - 1, tokens[len - 1]);
  else c.stream->Hypothesis(b, tokens, logprobs, len, len ? tokens[len - 1] : c.eos);
}

}  // namespace

void BeamSearch::Step(SearchContext& c, size_t n, size_t step) {
  SearchBuffers& S = c.s;
  const size_t B = c.opt.beam;
  auto t0 = c.prof.Tick();
  // The one pipeline (logits_pipeline.h): log-probabilities with the token mask, the file's rules, the call's,
  // log_softmax again when renormalize_logits, constraints; the running score is added in TopCandidates.
  ProcessRows(c, LogitsPipeline::For(c, RowPass::kBeam), n, step);
  size_t i0 = 0;
  for (size_t b = 0; b < c.n_sentences; ++b) {
    if (S.done[b]) continue;
    const size_t pos = c.Pos(b, step), live = LiveRows(c, b, pos);
    if (uint32_t forced = 0; c.Forced(b, pos, &forced)) {
      ForcedStep(c, b, i0, pos, forced);
      i0 += live;
      continue;
    }
    size_t nc = TopCandidates(c, i0, live, 2 * B);
    if (c.Constraints(b).n) nc = ConstrainedCandidates(c, b, i0, live, nc, pos);
    c.prof.Tock(t0, &c.prof.profile.softmax_topk_ms);
    t0 = c.prof.Tick();
    if (c.opt.hf_rules == HfRules::kTransformers4) ProcessCandidates4(c, b, i0, nc, pos);
    else ProcessCandidates5(c, b, i0, nc, pos);
    if (S.done[b] && c.stream) StreamBest(c, b);
    i0 += live;
    c.prof.Tock(t0, &c.prof.profile.beam_bookkeeping_ms);
    t0 = c.prof.Tick();
  }
  std::swap(S.track, S.track_next);
  SwapCoverage(c);
}

}  // namespace tern
