// The coverage penalty of Wu et al. 2016 (Google's neural machine translation system, section 7), as
// CTranslate2's decoding.cc applies it (compute_coverage_penalty, finalize_hypothesis_score): a finished
// hypothesis' score, after the length penalty, gains
//
//   beta x sum over source tokens j of log(min(c_j, 1)),   c_j = sum over its tokens t of a_tj (c_j > 0 only)
//
// with a_t the cross-attention the decoder gave token t when it chose it: the last decoder layer's first head,
// as CTranslate2 takes it for converted Marian models (its spec's alignment_layer -1, alignment_heads 1),
// `</s>` included, target-prefix tokens left out (they are input, as CTranslate2 leaves them out of a
// hypothesis' attention). The sentence then finishes as CTranslate2's does with a penalty: once beam_size
// hypotheses have finished (ResolveOptions makes early_stopping true unless the call sets it).
// Each beam slot keeps its c (SearchBuffers::coverage), moved with its hypothesis as beams reorder. Beam
// search only; planned with TranslatorConfig::attention. Every function here does nothing (0) when the
// call's coverage_penalty is 0.
#pragma once

#include <cstddef>

#include "search/search.h"

namespace tern {

/// ExtendCoverage's row for a forced token (a target prefix), which adds no attention.
constexpr size_t kForcedRow = ~size_t{0};

/// Zeroes beam slot `slot`'s coverage (a hypothesis that begins).
void ClearCoverage(SearchContext& c, size_t slot);

/// The penalty of sentence b's candidate r (beam.cc's cand_*): its parent slot's coverage plus the attention
/// of the active row it comes from.
float CandidatePenalty(const SearchContext& c, size_t b, size_t i0, size_t r);

/// The penalty of the hypothesis in beam slot `slot` of the next step (coverage_next: this step included).
float SlotPenalty(const SearchContext& c, size_t b, size_t slot);

/// coverage_next[slot] = coverage[parent] + this step's attention of active row `row` of sentence b
/// (kForcedRow: none), over the sentence's source tokens.
void ExtendCoverage(SearchContext& c, size_t b, size_t slot, size_t parent, size_t row);

/// coverage_next[slot] = coverage_next[from] (an empty beam slot takes the best beam's).
void CopyCoverage(SearchContext& c, size_t slot, size_t from);

/// coverage <-> coverage_next, after a step (as the track's planes swap).
void SwapCoverage(SearchContext& c);

}  // namespace tern
