// Tokens a sentence's hypotheses are forced through: a target prefix, or a whole target being scored.
//
//  - A target prefix (TranslateOptions::target_prefix) is what transformers' generate() does with
//    decoder_input_ids = [decoder_start] + prefix: the prefix is input, not generated, so its tokens add
//    nothing to a hypothesis' score, and beam search's length penalty counts only the tokens after it
//    (GenerationMixin._beam_search divides by cur_len + 1 - decoder_prompt_len; 4.x's BeamSearchScorer by
//    generated_len = cur_len - decoder_prompt_len, and early_stopping "never" by max_length -
//    decoder_prompt_len). The logits rules still see the prefix as history (repetition penalty, n-grams),
//    and max_length counts it, as in transformers. Hypotheses hold the prefix as their first tokens, each
//    with its log-probability under the rules (what compute_transition_scores would give had it been
//    generated), which the score leaves out.
//  - Scoring (Translator::Score): the target and then </s> are forced, and every one of their
//    log-probabilities counts: the score is their sum, what greedy search would give the same tokens.
// Beam search runs one row per sentence through the forced tokens (the other beams do not exist yet, as
// transformers' -1e9 beam scores make them) and opens its beams at the first free step.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tern {

/// Per input index: the forced tokens (no </s>) and their count (0: none). Arena memory (BatchBuffers).
struct ForcedTokens {
  const uint32_t* tokens = nullptr;  // [inputs, stride]
  const uint32_t* len = nullptr;     // [inputs]
  size_t stride = 0;                 // tokens per input at most (the target capacity)
  bool scored = false;               // scoring: </s> is forced after the tokens, and all of them count

  uint32_t Length(size_t input) const { return len ? len[input] : 0; }
  /// The token forced at `pos` for `input` (the prefix's, then </s> when scoring): true and *token, or false.
  bool At(size_t input, size_t pos, uint32_t eos, uint32_t* token) const {
    const uint32_t n = Length(input);
    if (pos < n) return *token = tokens[input * stride + pos], true;
    if (scored && pos == n) return *token = eos, true;
    return false;
  }
};

}  // namespace tern
