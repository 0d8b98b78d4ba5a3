#include "generation_config.h"

#include <cmath>

namespace tern::convert {

namespace {

using nlohmann::json;

Status Bad(const std::string& where, const char* key, const std::string& what) {
  return Status(StatusCode::kInvalidModel, where + ": \"" + key + "\" " + what);
}
Status Refused(const std::string& where, const char* key, const std::string& what) {
  return Status(StatusCode::kUnsupported, where + ": \"" + key + "\" " + what + " is not supported by tern");
}

bool Present(const json& g, const char* key) { return g.contains(key) && !g[key].is_null(); }

std::string Brief(const json& v) { return BriefJson(v); }

// A non-negative integer key, at most `max`.
Status Uint(const json& g, const char* key, const std::string& where, uint64_t max, uint64_t* out) {
  const json& v = g[key];
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
    return Bad(where, key, "must be a non-negative integer, is " + Brief(v));
  const uint64_t x = v.get<uint64_t>();
  if (x > max) return Bad(where, key, std::to_string(x) + " is out of range (at most " + std::to_string(max) + ")");
  *out = x;
  return Status::Ok();
}

Status Float(const json& g, const char* key, const std::string& where, float* out) {
  const json& v = g[key];
  if (!v.is_number()) return Bad(where, key, "must be a number, is " + Brief(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || std::fabs(x) > 1e6) return Bad(where, key, "must be a finite number of at most 1e6");
  *out = static_cast<float>(x);
  return Status::Ok();
}

// An id (or a list of ids) that must equal eos_id.
Status ForcedEos(const json& v, const std::string& where, uint32_t eos_id, bool* out) {
  const json ids = v.is_array() ? v : json::array({v});
  if (ids.empty()) return Bad(where, "forced_eos_token_id", "is an empty list");
  for (const json& id : ids) {
    if (!id.is_number_unsigned() || id.get<uint64_t>() > 0xffffffffu)
      return Bad(where, "forced_eos_token_id", "must be a token id, is " + Brief(id));
    if (id.get<uint64_t>() != eos_id)
      return Refused(where, "forced_eos_token_id",
                     std::to_string(id.get<uint64_t>()) + " (not eos_token_id " + std::to_string(eos_id) + ")");
  }
  *out = true;
  return Status::Ok();
}

}  // namespace

Status ReadGenerationKeys(const json& g, GenerationSource source, const std::string& where, uint32_t eos_id,
                          uint32_t target_vocab_size, GenerationDefaults* gen) {
  if (!g.is_object()) return Status(StatusCode::kInvalidModel, where + ": not a JSON object");
  GenerationDefaults d;  // tern's struct, then transformers' defaults for absent keys
  d.beam_size = 1;
  d.max_length = 20 - 1;
  d.length_penalty = 1.f;
  d.forced_eos = source == GenerationSource::kModelConfig && eos_id == 0;  // MarianConfig: forced_eos_token_id = 0
  d.bad_word_ids.clear();
  uint64_t x = 0;
  if (Present(g, "num_beams")) {
    TERN_RETURN_IF_ERROR(Uint(g, "num_beams", where, 1u << 20, &x));
    if (x == 0) return Bad(where, "num_beams", "must be at least 1");
    if (x > kMaxBeam)
      return Refused(where, "num_beams", std::to_string(x) + " (tern's beam is at most " + std::to_string(kMaxBeam) + ")");
    d.beam_size = static_cast<uint32_t>(x);
  }
  if (Present(g, "max_length")) {
    TERN_RETURN_IF_ERROR(Uint(g, "max_length", where, 1u << 20, &x));
    if (x < 2) return Bad(where, "max_length", "must be at least 2 (it counts the decoder start token)");
    d.max_length = static_cast<uint32_t>(x - 1);  // HF counts the decoder start token; tern counts generated tokens
  }
  if (Present(g, "max_new_tokens")) {
    TERN_RETURN_IF_ERROR(Uint(g, "max_new_tokens", where, 1u << 20, &x));
    if (x < 1) return Bad(where, "max_new_tokens", "must be at least 1");
    d.max_length = static_cast<uint32_t>(x);
  }
  if (Present(g, "length_penalty")) TERN_RETURN_IF_ERROR(Float(g, "length_penalty", where, &d.length_penalty));
  if (g.contains("forced_eos_token_id")) {
    d.forced_eos = false;
    if (!g["forced_eos_token_id"].is_null()) TERN_RETURN_IF_ERROR(ForcedEos(g["forced_eos_token_id"], where, eos_id, &d.forced_eos));
  }
  if (Present(g, "bad_words_ids")) {
    const json& b = g["bad_words_ids"];
    if (!b.is_array()) return Bad(where, "bad_words_ids", "must be a list of lists of token ids");
    for (const json& w : b) {
      if (!w.is_array() || w.size() != 1)
        return Refused(where, "bad_words_ids", "entry " + Brief(w) + " (only single tokens)");
      if (!w[0].is_number_unsigned() || w[0].get<uint64_t>() >= target_vocab_size)
        return Bad(where, "bad_words_ids", "holds " + Brief(w[0]) + ", not an id of the " +
                                               std::to_string(target_vocab_size) + "-token target vocabulary");
      d.bad_word_ids.push_back(w[0].get<uint32_t>());
    }
  }
  if (Present(g, "renormalize_logits")) {
    if (!g["renormalize_logits"].is_boolean()) return Bad(where, "renormalize_logits", "must be true or false");
    d.renormalize_logits = g["renormalize_logits"].get<bool>();
  }
  if (Present(g, "repetition_penalty")) {
    TERN_RETURN_IF_ERROR(Float(g, "repetition_penalty", where, &d.repetition_penalty));
    if (!(d.repetition_penalty > 0.f)) return Bad(where, "repetition_penalty", "must be > 0");
  }
  if (Present(g, "no_repeat_ngram_size")) {
    TERN_RETURN_IF_ERROR(Uint(g, "no_repeat_ngram_size", where, 1024, &x));
    d.no_repeat_ngram_size = static_cast<uint32_t>(x);
  }
  if (Present(g, "min_length")) {
    TERN_RETURN_IF_ERROR(Uint(g, "min_length", where, 1u << 20, &x));
    d.min_length = x > 0 ? static_cast<uint32_t>(x - 1) : 0;  // counts the start token, as max_length
  }
  if (Present(g, "min_new_tokens")) {
    TERN_RETURN_IF_ERROR(Uint(g, "min_new_tokens", where, 1u << 20, &x));
    d.min_length = static_cast<uint32_t>(x);
  }
  // Behaviour tern does not implement: refused, never ignored.
  if (Present(g, "do_sample") && !(g["do_sample"].is_boolean() && !g["do_sample"].get<bool>()))
    return Refused(where, "do_sample", Brief(g["do_sample"]));
  if (Present(g, "early_stopping")) {  // GenerationConfig: a bool or the string "never"
    const json& e = g["early_stopping"];
    if (e.is_boolean()) d.early_stopping = e.get<bool>() ? EarlyStopping::kTrue : EarlyStopping::kFalse;
    else if (e.is_string() && e.get<std::string>() == "never") d.early_stopping = EarlyStopping::kNever;
    else return Bad(where, "early_stopping", "must be true, false or \"never\", is " + Brief(e));
  }
  for (const char* key : {"num_beam_groups"}) {
    if (!Present(g, key)) continue;
    TERN_RETURN_IF_ERROR(Uint(g, key, where, 1u << 20, &x));
    if (x > 1) return Refused(where, key, std::to_string(x));
  }
  for (const char* key : {"diversity_penalty", "encoder_repetition_penalty"}) {
    if (!Present(g, key)) continue;
    float v = 0.f;
    TERN_RETURN_IF_ERROR(Float(g, key, where, &v));
    if (v != (std::string(key) == "diversity_penalty" ? 0.f : 1.f)) return Refused(where, key, Brief(g[key]));
  }
  if (Present(g, "encoder_no_repeat_ngram_size")) {
    TERN_RETURN_IF_ERROR(Uint(g, "encoder_no_repeat_ngram_size", where, 1024, &x));
    if (x > 0) return Refused(where, "encoder_no_repeat_ngram_size", std::to_string(x));
  }
  for (const char* key : {"forced_bos_token_id", "suppress_tokens", "begin_suppress_tokens", "sequence_bias",
                          "exponential_decay_length_penalty", "forced_decoder_ids"}) {
    if (Present(g, key) && !(g[key].is_array() && g[key].empty())) return Refused(where, key, Brief(g[key]));
  }
  *gen = std::move(d);
  return Status::Ok();
}

Status ReadGenerationIds(const json& g, const std::string& where, Hyperparameters* hp) {
  if (!g.is_object()) return Status(StatusCode::kInvalidModel, where + ": not a JSON object");
  if (Present(g, "decoder_start_token_id")) {
    uint64_t x = 0;
    TERN_RETURN_IF_ERROR(Uint(g, "decoder_start_token_id", where, 0xffffffffu, &x));
    if (x >= hp->target_vocab_size)
      return Bad(where, "decoder_start_token_id", std::to_string(x) + " is outside the " + std::to_string(hp->target_vocab_size) +
                                                     "-token target vocabulary");
    hp->decoder_start_id = static_cast<uint32_t>(x);
  }
  if (Present(g, "eos_token_id")) {
    const json& v = g["eos_token_id"];
    const json ids = v.is_array() ? v : json::array({v});
    for (const json& id : ids) {
      if (!id.is_number_unsigned() || id.get<uint64_t>() > 0xffffffffu)
        return Bad(where, "eos_token_id", "must be a token id, is " + Brief(id));
      if (id.get<uint64_t>() != hp->eos_id || ids.size() != 1)
        return Refused(where, "eos_token_id", Brief(v) + " (tern stops on config.json's eos_token_id " +
                                                  std::to_string(hp->eos_id) + " only)");
    }
  }
  return Status::Ok();
}

Status ParseGenerationConfig(const std::string& text, const std::string& where, uint32_t eos_id,
                             uint32_t target_vocab_size, GenerationDefaults* gen) {
  json g = json::parse(text, nullptr, false);
  if (g.is_discarded() || !g.is_object()) return Status(StatusCode::kInvalidModel, where + ": not a JSON object");
  return ReadGenerationKeys(g, GenerationSource::kGenerationConfig, where, eos_id, target_vocab_size, gen);
}

}  // namespace tern::convert
