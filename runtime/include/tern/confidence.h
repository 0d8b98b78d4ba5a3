// Confidence of a translation from its per-token log-probabilities (Hypothesis::token_logprobs: each
// generated token's log-probability after the logits processors, `</s>` included; transformers'
// compute_transition_scores(normalize_logits=True)). The sentence's confidence is the mean and the minimum
// of them; a token or a sentence below a threshold is flagged as low confidence. The default thresholds
// were chosen on Multi30k val for the bundled OPUS-MT en-de model (docs/translating.md "Confidence and alignment":
// scripts/confidence_eval.py chooses them for another model); on test_2016_flickr the sentence mean
// correlates with sentence chrF against the reference (Spearman, docs/evaluation.md).
#pragma once

#include <cstddef>

#include "tern/export.h"
#include "tern/translator.h"

namespace tern {

/// A hypothesis' confidence from its per-token log-probabilities (natural log).
struct Confidence {
  float mean_logprob = 0.f;  ///< mean of token_logprobs (0 for a hypothesis without tokens)
  float min_logprob = 0.f;   ///< their minimum (0 without tokens)
  size_t tokens = 0;         ///< how many (`</s>` included)
};

/// Thresholds on log-probabilities (natural log): below them is low confidence.
struct ConfidenceThresholds {
  float token = -0.33f;     ///< a token whose log-probability is below this (probability < 0.72)
  float sentence = -0.50f;  ///< a sentence whose mean token log-probability is below this
};

/// The confidence of `h` (its token_logprobs; all 0 when the call had return_scores off).
TERN_API Confidence ConfidenceOf(const Hypothesis& h);

/// A token below the token threshold.
inline bool LowConfidenceToken(float logprob, const ConfidenceThresholds& t = {}) { return logprob < t.token; }
/// A hypothesis whose mean token log-probability is below the sentence threshold.
inline bool LowConfidence(const Confidence& c, const ConfidenceThresholds& t = {}) {
  return c.tokens > 0 && c.mean_logprob < t.sentence;
}

}  // namespace tern
