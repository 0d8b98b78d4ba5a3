// Decoding rules from a checkpoint: generation_config.json, or the generation keys of config.json when a
// checkpoint has none. What tern implements follows Hugging Face transformers (conformance notes in
// docs/conformance.md); a key that asks for behaviour tern does not implement is
// refused with kUnsupported naming the file and key, never silently ignored.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tern/model.h"
#include "tern/status.h"
#include "json_message.h"

namespace tern::convert {

/// Where the generation keys come from; the defaults of absent keys differ.
enum class GenerationSource {
  /// generation_config.json: transformers' GenerationConfig defaults (num_beams 1, max_length 20,
  /// length_penalty 1, no forced EOS, no bad words).
  kGenerationConfig,
  /// config.json of a checkpoint without generation_config.json: what transformers 4.x's
  /// GenerationConfig.from_model_config takes from the model config, with PretrainedConfig's defaults
  /// (num_beams 1, max_length 20) and MarianConfig's forced_eos_token_id = 0. (transformers 5.x ignores
  /// config.json here and uses GenerationConfig's defaults, without forced EOS; tern follows 4.x.)
  kModelConfig,
};

/// Reads the generation keys of `g` into `gen` (whose fields are all set: absent keys take the defaults
/// of `source`). Rules, each as transformers applies it:
///  - max_length counts the decoder start token, so tern's max_length = max_length - 1 generated
///    tokens; max_new_tokens, when set, replaces it (tern's max_length = max_new_tokens).
///  - forced_eos_token_id (an id or a list of ids) must be eos_id: </s> at the last step.
///  - bad_words_ids: single-token entries only, each < target_vocab_size.
///  - min_length counts the start token (tern: min_length - 1 generated tokens); min_new_tokens replaces it.
///  - renormalize_logits, repetition_penalty (> 0), no_repeat_ngram_size, early_stopping (true, false
///    or "never"; format 4 unless false): kept.
///  - refused (kUnsupported): do_sample true, num_beam_groups > 1, diversity_penalty,
///    forced_bos_token_id, suppress_tokens, begin_suppress_tokens, sequence_bias,
///    encoder_repetition_penalty != 1, encoder_no_repeat_ngram_size > 0, exponential_decay_length_penalty,
///    forced_decoder_ids, num_beams > kMaxBeam (tern/model.h).
/// Every number is range-checked before use. Errors: kInvalidModel (a value of the wrong type or out of
/// range), kUnsupported; messages name `where` and the key.
Status ReadGenerationKeys(const nlohmann::json& g, GenerationSource source, const std::string& where, uint32_t eos_id,
                          uint32_t target_vocab_size, GenerationDefaults* gen);

/// The token ids generation_config.json may carry besides the rules, as transformers 5.x's generate() uses
/// them: decoder_start_token_id, when present, is the decoder's first token (it wins over config.json's);
/// eos_token_id (an id or a list) must be config.json's eos (tern stops on one eos), else kUnsupported.
/// Errors: kInvalidModel (a value that is not a token id of the target vocabulary), kUnsupported.
Status ReadGenerationIds(const nlohmann::json& g, const std::string& where, Hyperparameters* hp);

/// ReadGenerationKeys on the text of generation_config.json (kGenerationConfig). Error: kInvalidModel
/// when the text is not a JSON object.
Status ParseGenerationConfig(const std::string& text, const std::string& where, uint32_t eos_id,
                             uint32_t target_vocab_size, GenerationDefaults* gen);

}  // namespace tern::convert
