// Beam search's side of lexical constraints (search/constraints.h): the candidates of a sentence with
// constraints (dynamic beam allocation, Post and Vilar 2018: banks by constraint tokens met) and which
// hypotheses of such a sentence may finish. beam.cc calls these; a sentence without constraints never does.
#pragma once

#include <cstddef>

#include "search/search.h"
#include "search/track.h"

namespace tern {

/// transformers' initial score of beams that do not exist yet (beam.cc's placeholders).
constexpr float kAbsentBeamScore = -1e9f;

/// Dynamic beam allocation for sentence b (its `live` rows from i0, candidates cand_*[0..nc) at `pos`): the
/// top candidates, plus each live beam's next constraint token, then the beam filled bank by bank. Returns the
/// new candidate count.
size_t ConstrainedCandidates(SearchContext& c, size_t b, size_t i0, size_t live, size_t nc, size_t pos);

/// Whether the hypothesis in row `row` of `planes` (its last token at `pos`, its score `score`) may enter
/// sentence b's finished set: with constraints, only when every one is met and it does not descend from an
/// absent beam; without, always.
bool Finishable(const SearchContext& c, size_t b, const TrackPlanes& planes, size_t row, size_t pos, float score);

}  // namespace tern
