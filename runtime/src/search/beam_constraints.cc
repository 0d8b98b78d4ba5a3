#include "search/beam_constraints.h"

#include <cmath>

#include "kernels/kernels.h"

namespace tern {

// Dynamic beam allocation for a sentence with constraints (search/constraints.h): the top candidates, plus
// each live beam's next constraint token (a started constraint's, or the first of each unmet one), then
// the beam filled bank by bank. Returns the new candidate count.
size_t ConstrainedCandidates(SearchContext& c, size_t b, size_t i0, size_t live, size_t nc, size_t pos) {
  SearchBuffers& S = c.s;
  const SentenceConstraints sc = c.Constraints(b);
  const size_t V = c.vocab.size, cap = CandidateCapacity(c.opt.beam);
  // A constrained row is -inf but for its forced token, so the top 2 x beam can hold -inf candidates (a
  // banned </s> among them); the banks would take them in (a bank is filled whatever its best score): they
  // are dropped here, and what runs on or finishes is always a finite, allowed continuation.
  size_t kept = 0;
  for (size_t r = 0; r < nc; ++r) {
    if (!std::isfinite(S.cand_score[r])) continue;
    S.cand_score[kept] = S.cand_score[r], S.cand_logprob[kept] = S.cand_logprob[r];
    S.cand_token[kept] = S.cand_token[r], S.cand_beam[kept] = S.cand_beam[r];
    ++kept;
  }
  nc = kept;
  auto add = [&](size_t j, uint32_t token) {
    const int64_t col = c.vocab.Index(token);
    if (col < 0 || nc >= cap) return;
    const float lp = c.logits[(i0 + j) * V + static_cast<size_t>(col)];
    if (!std::isfinite(lp)) return;
    for (size_t r = 0; r < nc; ++r)
      if (S.cand_token[r] == token && S.cand_beam[r] == j) return;
    S.cand_score[nc] = lp + S.beam_scores[S.active[i0 + j]], S.cand_logprob[nc] = lp;
    S.cand_token[nc] = token, S.cand_beam[nc] = static_cast<uint32_t>(j);
    ++nc;
  };
  for (size_t j = 0; j < live; ++j) {
    const float* row = c.logits + (i0 + j) * V;
    add(j, c.vocab.Token(ArgMax(row, V, 0)));  // each hypothesis' own best next token
    const uint32_t state = c.ConstraintState(S.active[i0 + j], pos);
    const uint32_t started = constraint_state::Started(state);
    if (started) {
      add(j, sc.Token(started - 1, constraint_state::Progress(state)));
      continue;
    }
    uint32_t need = 0;
    for (uint32_t k = 0; k < sc.n; ++k)
      if (!((constraint_state::Met(state) >> k) & 1u)) need += sc.len[k];
    const bool must = need + pos + 1 >= c.in.max_len[b];
    for (uint32_t k = 0; k < sc.n; ++k)
      if (!((constraint_state::Met(state) >> k) & 1u) && (must || AlignedAt(sc, k, S.row_source[i0 + j])))
        add(j, sc.Token(k, 0));
  }
  for (size_t r = 0; r < nc; ++r) {
    const uint32_t parent = S.active[i0 + S.cand_beam[r]];
    S.cand_met[r] = ConstraintTokensMet(sc, AdvanceConstraint(sc, c.ConstraintState(parent, pos), S.cand_token[r]));
  }
  const Candidates cand{S.cand_score.data(), S.cand_logprob.data(), S.cand_token.data(), S.cand_beam.data(), S.cand_met.data()};
  return AllocateBanks(cand, nc, c.opt.beam);
}

// Whether the hypothesis in row `row` of `planes` (its last token at `pos`) may enter sentence b's finished
// set: in a sentence with constraints, only when every constraint is met and it does not descend from an
// absent beam (transformers' -1e9 placeholders: without constraints they are kept, as transformers keeps
// them). Scores that are not finite never enter (FinishedSet::Add).
bool Finishable(const SearchContext& c, size_t b, const TrackPlanes& planes, size_t row, size_t pos, float score) {
  const SentenceConstraints sc = c.Constraints(b);
  if (sc.n == 0) return true;
  const uint32_t state = planes.constraint[row * c.dims.tgt + pos];
  const uint32_t all = sc.n >= 32 ? 0xffffffffu : (1u << sc.n) - 1u;
  return constraint_state::Met(state) == all && constraint_state::Started(state) == 0 && score > kAbsentBeamScore / 2;
}

}  // namespace tern
