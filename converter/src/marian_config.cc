// config.json, vocab.json and tokenizer_config.json of a MarianMT checkpoint (marian_checkpoint.h).
#include <nlohmann/json.hpp>

#include "json_message.h"
#include "marian_checkpoint.h"

namespace tern::convert {
namespace {

using nlohmann::json;

// Typed keys of config.json. A key that is absent takes `fallback` (MarianConfig's own default; none: the
// key is required). A JSON null is refused unless `null_ok` (keys transformers itself accepts as None):
// MarianConfig cannot be built from such a config, and taking null as "absent" would silently use a default.
Status NullRefused(const std::string& where, const char* key, const char* want) {
  return Status(StatusCode::kInvalidModel, where + ": key \"" + key + "\" is null; it must be " + want +
                                               " (transformers cannot build MarianConfig from it)");
}

Status GetUint(const json& j, const char* key, const std::string& where, uint32_t* out, const uint32_t* fallback = nullptr,
               bool null_ok = false) {
  if (!j.contains(key) || (null_ok && j[key].is_null())) {
    if (fallback) return *out = *fallback, Status::Ok();
    return Status(StatusCode::kInvalidModel, where + ": key \"" + key + "\" missing");
  }
  if (j[key].is_null()) return NullRefused(where, key, "an integer");
  if (!j[key].is_number_unsigned() || j[key].get<uint64_t>() > 0xffffffffu)
    return Status(StatusCode::kInvalidModel, where + ": key \"" + key + "\" must be an integer in 0..4294967295, is " +
                                                 BriefJson(j[key]));
  *out = j[key].get<uint32_t>();
  return Status::Ok();
}

// A boolean key: absent gives `fallback`; null or any other type is an error.
Status GetBool(const json& j, const char* key, const std::string& where, bool fallback, bool* out) {
  *out = fallback;
  if (!j.contains(key)) return Status::Ok();
  if (j[key].is_null()) return NullRefused(where, key, "true or false");
  if (!j[key].is_boolean())
    return Status(StatusCode::kInvalidModel, where + ": key \"" + key + "\" must be true or false, is " + BriefJson(j[key]));
  *out = j[key].get<bool>();
  return Status::Ok();
}

// A string key: absent gives `fallback`; null or any other type is an error.
Status GetString(const json& j, const char* key, const std::string& where, const std::string& fallback, std::string* out) {
  *out = fallback;
  if (!j.contains(key)) return Status::Ok();
  if (j[key].is_null()) return NullRefused(where, key, "a string");
  if (!j[key].is_string())
    return Status(StatusCode::kInvalidModel, where + ": key \"" + key + "\" must be a string, is " + BriefJson(j[key]));
  *out = j[key].get<std::string>();
  return Status::Ok();
}


}  // namespace

Status ParseMarianConfig(const std::string& text, const std::string& where, Hyperparameters* hp) {
  json c = json::parse(text, nullptr, false);
  if (c.is_discarded() || !c.is_object()) return Status(StatusCode::kInvalidModel, where + ": not a JSON object");
  if (c.contains("model_type") && c["model_type"] != "marian")
    return Status(StatusCode::kUnsupported, where + ": model_type " + BriefJson(c["model_type"]) + " (tern converts \"marian\")");
  // Defaults of absent keys are MarianConfig's (transformers models/marian/configuration_marian.py), so a
  // config converts as transformers reads it. The sizes that shape the weights have no default here: a
  // missing one is an error rather than MarianConfig's (which would not fit the checkpoint's tensors).
  TERN_RETURN_IF_ERROR(GetUint(c, "d_model", where, &hp->d_model));
  TERN_RETURN_IF_ERROR(GetUint(c, "encoder_layers", where, &hp->encoder_layers));
  TERN_RETURN_IF_ERROR(GetUint(c, "decoder_layers", where, &hp->decoder_layers));
  TERN_RETURN_IF_ERROR(GetUint(c, "encoder_attention_heads", where, &hp->n_heads));
  const uint32_t kMarianHeads = 16, kMarianFfn = 4096;  // MarianConfig's decoder defaults
  uint32_t dec_heads = 0, dec_ffn = 0;
  TERN_RETURN_IF_ERROR(GetUint(c, "decoder_attention_heads", where, &dec_heads, &kMarianHeads));
  TERN_RETURN_IF_ERROR(GetUint(c, "encoder_ffn_dim", where, &hp->ffn_dim));
  TERN_RETURN_IF_ERROR(GetUint(c, "decoder_ffn_dim", where, &dec_ffn, &kMarianFfn));
  if (dec_heads != hp->n_heads || dec_ffn != hp->ffn_dim)
    return Status(StatusCode::kUnsupported, where + ": encoder and decoder must have the same attention heads and ffn_dim "
                                                    "(decoder: " + std::to_string(dec_heads) + " heads, ffn_dim " +
                                                    std::to_string(dec_ffn) + "; absent keys take MarianConfig's 16 and 4096)");
  if (hp->n_heads == 0 || hp->d_model % hp->n_heads != 0)
    return Status(StatusCode::kInvalidModel, where + ": d_model " + std::to_string(hp->d_model) +
                                                 " is not divisible by encoder_attention_heads " + std::to_string(hp->n_heads));
  hp->head_dim = hp->d_model / hp->n_heads;
  const uint32_t kMarianVocab = 58101, kMarianPositions = 1024, kMarianPad = 58100, kZero = 0;
  TERN_RETURN_IF_ERROR(GetUint(c, "vocab_size", where, &hp->source_vocab_size, &kMarianVocab));
  // decoder_vocab_size=None means vocab_size (MarianConfig: `decoder_vocab_size or vocab_size`).
  TERN_RETURN_IF_ERROR(GetUint(c, "decoder_vocab_size", where, &hp->target_vocab_size, &hp->source_vocab_size, true));
  TERN_RETURN_IF_ERROR(GetUint(c, "max_position_embeddings", where, &hp->max_positions, &kMarianPositions));
  TERN_RETURN_IF_ERROR(GetUint(c, "pad_token_id", where, &hp->pad_id, &kMarianPad));
  TERN_RETURN_IF_ERROR(GetUint(c, "eos_token_id", where, &hp->eos_id, &kZero));
  TERN_RETURN_IF_ERROR(GetUint(c, "decoder_start_token_id", where, &hp->decoder_start_id, &kMarianPad));

  std::string act;
  TERN_RETURN_IF_ERROR(GetString(c, "activation_function", where, "gelu", &act));
  if (act == "swish" || act == "silu") hp->activation = Activation::kSwish;  // Marian's "swish" is SiLU
  else if (act == "gelu") hp->activation = Activation::kGelu;                // exact erf GELU
  else if (act == "relu") hp->activation = Activation::kRelu;
  else return Status(StatusCode::kUnsupported, where + ": activation_function " + BriefJson(json(act)) + " (relu, swish, gelu)");

  bool pre_norm = false, scale = false;
  TERN_RETURN_IF_ERROR(GetBool(c, "normalize_before", where, false, &pre_norm));
  TERN_RETURN_IF_ERROR(GetBool(c, "scale_embedding", where, false, &scale));
  TERN_RETURN_IF_ERROR(GetBool(c, "share_encoder_decoder_embeddings", where, true, &hp->shared_embeddings));
  TERN_RETURN_IF_ERROR(GetBool(c, "tie_word_embeddings", where, true, &hp->tied_output_projection));
  hp->norm_placement = pre_norm ? NormPlacement::kPreNorm : NormPlacement::kPostNorm;
  hp->layer_norm_epsilon = 1e-5f;  // transformers' nn.LayerNorm default, as Marian uses
  hp->embedding_scale = scale ? static_cast<float>(std::sqrt(static_cast<double>(hp->d_model))) : 1.0f;

  std::string pos;
  TERN_RETURN_IF_ERROR(GetString(c, "tern_position_encoding", where, "sinusoidal", &pos));
  if (pos == "sinusoidal") hp->position_encoding = PositionEncoding::kSinusoidalHalves;
  else if (pos == "sinusoidal_interleaved") hp->position_encoding = PositionEncoding::kSinusoidalInterleaved;
  else if (pos == "learned") hp->position_encoding = PositionEncoding::kLearned;
  else return Status(StatusCode::kUnsupported, where + ": tern_position_encoding " + BriefJson(json(pos)));

  for (const char* key : {"normalize_embedding", "add_bias_logits", "add_final_layer_norm"}) {
    bool on = false;
    TERN_RETURN_IF_ERROR(GetBool(c, key, where, false, &on));
    if (on && !(std::string(key) == "add_final_layer_norm" && hp->norm_placement == NormPlacement::kPreNorm))
      return Status(StatusCode::kUnsupported, where + ": \"" + std::string(key) + "\": true is not supported");
  }
  return Status::Ok();
}

Status ParseVocab(const std::string& text, const std::string& where, std::vector<std::string>* pieces) {
  json v = json::parse(text, nullptr, false);
  if (v.is_discarded() || !v.is_object()) return Status(StatusCode::kInvalidModel, where + ": not a JSON object {piece: id}");
  pieces->assign(v.size(), std::string());
  std::vector<bool> seen(v.size(), false);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!it.value().is_number_unsigned())
      return Status(StatusCode::kInvalidModel, where + ": id of piece " + BriefJson(json(it.key())) + " is not a non-negative integer");
    const uint64_t id = it.value().get<uint64_t>();
    if (id >= v.size() || seen[id])
      return Status(StatusCode::kInvalidModel, where + ": id " + std::to_string(id) + " of piece " + BriefJson(json(it.key())) +
                                                   (id >= v.size() ? " is outside 0.." + std::to_string(v.size() - 1) : " is used twice"));
    seen[id] = true;
    (*pieces)[id] = it.key();
  }
  return Status::Ok();
}

// Detokenization: transformers' clean_up_tokenization when tokenizer_config.json asks for it (absent:
// off, the default of transformers >= 4.45 and 5.x; older 4.x defaulted to on); the language codes.
Status ParseTokenizerConfig(const std::string& text, const std::string& tc_path, Checkpoint* out) {
  json tc = json::parse(text, nullptr, false);
  if (tc.is_discarded() || !tc.is_object()) return Status(StatusCode::kInvalidModel, tc_path + ": not a JSON object");
  if (tc.contains("clean_up_tokenization_spaces") && !tc["clean_up_tokenization_spaces"].is_null()) {
    if (!tc["clean_up_tokenization_spaces"].is_boolean())
      return Status(StatusCode::kInvalidModel, tc_path + ": \"clean_up_tokenization_spaces\" must be true or false");
    out->clean_up_tokenization_spaces = tc["clean_up_tokenization_spaces"].get<bool>();
  }
  for (auto [key, dst] : {std::pair{"source_lang", &out->source_lang}, {"target_lang", &out->target_lang}}) {
    if (!tc.contains(key) || tc[key].is_null()) continue;
    const json& v = tc[key];
    if (!v.is_string() || v.get_ref<const std::string&>().size() > 32 ||
        v.get_ref<const std::string&>().find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
      return Status(StatusCode::kInvalidModel, tc_path + ": \"" + key + "\" must be a language code (letters, digits, '-', '_')");
    *dst = v.get<std::string>();
  }
  return Status::Ok();
}

}  // namespace tern::convert
