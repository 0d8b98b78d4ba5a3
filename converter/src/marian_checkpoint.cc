#include "marian_checkpoint.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "positions.h"
#include "read_file.h"
#include "generation_config.h"
#include "safetensors.h"
#include "sentencepiece_check.h"
#include "tensor_specs.h"

namespace tern::convert {
namespace {

using nlohmann::json;

Status ReadText(const std::string& path, std::string* out) { return ReadWholeFile(path, kMaxTextFileBytes, out); }

bool Exists(const std::string& path) { return PathExists(path); }

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

std::string ShapeStr(const std::vector<uint64_t>& s) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < s.size(); ++i) o << (i ? ", " : "") << s[i];
  o << ']';
  return o.str();
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

std::vector<std::string> CheckpointFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* f : {"config.json", "model.safetensors", "vocab.json", "target_vocab.json", "source.spm", "target.spm",
                        "generation_config.json", "tokenizer_config.json"})
    files.push_back(dir + "/" + f);
  return files;
}

Status ReadMarianCheckpoint(const std::string& dir, Checkpoint* out) {
  std::string text;
  const std::string config_path = dir + "/config.json";
  TERN_RETURN_IF_ERROR(ReadText(config_path, &text));
  TERN_RETURN_IF_ERROR(ParseMarianConfig(text, config_path, &out->hp));
  Hyperparameters& hp = out->hp;

  // Vocabularies: ids come from vocab.json, never from SentencePiece's own ids.
  const std::string vocab_path = dir + "/vocab.json";
  TERN_RETURN_IF_ERROR(ReadText(vocab_path, &text));
  TERN_RETURN_IF_ERROR(ParseVocab(text, vocab_path, &out->source_vocab));
  const std::string tv_path = dir + "/target_vocab.json";
  if (Exists(tv_path)) {
    TERN_RETURN_IF_ERROR(ReadText(tv_path, &text));
    TERN_RETURN_IF_ERROR(ParseVocab(text, tv_path, &out->target_vocab));
  } else {
    out->target_vocab = out->source_vocab;
  }
  if (out->source_vocab.size() != hp.source_vocab_size)
    return Status(StatusCode::kInvalidModel, vocab_path + ": " + std::to_string(out->source_vocab.size()) +
                                                 " pieces, config.json vocab_size is " + std::to_string(hp.source_vocab_size));
  if (out->target_vocab.size() != hp.target_vocab_size)
    return Status(StatusCode::kInvalidModel, (Exists(tv_path) ? tv_path : vocab_path) + ": " +
                                                 std::to_string(out->target_vocab.size()) + " target pieces, config.json says " +
                                                 std::to_string(hp.target_vocab_size));
  hp.unk_id = 0;
  bool have_unk = false;
  for (size_t i = 0; i < out->source_vocab.size(); ++i)
    if (out->source_vocab[i] == "<unk>") hp.unk_id = static_cast<uint32_t>(i), have_unk = true;
  if (!have_unk) return Status(StatusCode::kInvalidModel, vocab_path + ": no \"<unk>\" piece");

  TERN_RETURN_IF_ERROR(ReadText(dir + "/source.spm", &out->source_spm));
  TERN_RETURN_IF_ERROR(ReadText(dir + "/target.spm", &out->target_spm));
  // The same check the loader makes: a broken normalizer never reaches a .tern file.
  TERN_RETURN_IF_ERROR(format::CheckSentencePieceModel(out->source_spm, dir + "/source.spm"));
  TERN_RETURN_IF_ERROR(format::CheckSentencePieceModel(out->target_spm, dir + "/target.spm"));

  // Decoding rules: generation_config.json, else config.json's generation keys (transformers 4.x).
  const std::string gen_path = dir + "/generation_config.json";
  if (Exists(gen_path)) {
    TERN_RETURN_IF_ERROR(ReadText(gen_path, &text));
    TERN_RETURN_IF_ERROR(ParseGenerationConfig(text, gen_path, hp.eos_id, hp.target_vocab_size, &out->gen));
    TERN_RETURN_IF_ERROR(ReadGenerationIds(json::parse(text, nullptr, false), gen_path, &hp));
  } else {
    TERN_RETURN_IF_ERROR(ReadText(config_path, &text));
    TERN_RETURN_IF_ERROR(ReadGenerationKeys(json::parse(text, nullptr, false), GenerationSource::kModelConfig, config_path,
                                            hp.eos_id, hp.target_vocab_size, &out->gen));
  }
  // Special ids inside the vocabularies (an absent key takes MarianConfig's default, 58100 for pad and the
  // decoder start: a small vocabulary needs them stated, as transformers would index out of its embedding).
  for (auto [id, key] : {std::pair{hp.pad_id, "pad_token_id"}, {hp.eos_id, "eos_token_id"},
                         {hp.decoder_start_id, "decoder_start_token_id"}}) {
    if (id >= hp.source_vocab_size || id >= hp.target_vocab_size)
      return Status(StatusCode::kInvalidModel, config_path + ": \"" + key + "\" " + std::to_string(id) +
                                                   " is outside the vocabulary (" + std::to_string(hp.target_vocab_size) +
                                                   " tokens; an absent key takes MarianConfig's default)");
  }
  // Detokenization: transformers' clean_up_tokenization when tokenizer_config.json asks for it (absent:
  // off, the default of transformers >= 4.45 and 5.x; older 4.x defaulted to on).
  const std::string tc_path = dir + "/tokenizer_config.json";
  if (Exists(tc_path)) {
    TERN_RETURN_IF_ERROR(ReadText(tc_path, &text));
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
  }

  SafeTensorsFile st;
  const std::string st_path = dir + "/model.safetensors";
  if (!Exists(st_path))
    return Status(StatusCode::kNotFound, st_path + ": missing (for pytorch_model.bin run converter/pytorch/bin_to_safetensors.py)");
  TERN_RETURN_IF_ERROR(ReadSafeTensors(st_path, &st));
  if (st.metadata.count("tern_provenance")) out->notes = st.metadata["tern_provenance"];

  // Tensor names without the "model." prefix.
  std::map<std::string, const SafeTensor*> src;
  for (const auto& [name, t] : st.tensors) {
    std::string n = name.rfind("model.", 0) == 0 ? name.substr(6) : name;
    src[n] = &t;
  }
  auto load = [&](const std::string& name, std::vector<float>* data, std::vector<uint64_t>* shape) -> Status {
    auto it = src.find(name);
    if (it == src.end()) return Status(StatusCode::kNotFound, st_path + ": tensor '" + name + "' missing");
    *shape = it->second->shape;
    Status s = ToF32(*it->second, name, data);
    if (!s.ok()) return Status(s.code(), st_path + ": " + s.message());
    // A NaN or infinite weight would convert, and translate to empty or garbage lines: refuse it here.
    const uint64_t cols = shape->size() == 2 ? (*shape)[1] : 1;
    for (size_t i = 0; i < data->size(); ++i)
      if (!std::isfinite((*data)[i]))
        return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + name + "' holds " +
                                                     (std::isnan((*data)[i]) ? "NaN" : "an infinity") + " at element " +
                                                     std::to_string(i) + " (row " + std::to_string(i / cols) + ", column " +
                                                     std::to_string(i % cols) + ")");
    return Status::Ok();
  };
  std::set<std::string> used;
  auto check_copy = [&](const std::string& copy, const std::vector<float>& of, const std::string& of_name) -> Status {
    if (!src.count(copy)) return Status::Ok();
    std::vector<float> d;
    std::vector<uint64_t> s;
    TERN_RETURN_IF_ERROR(load(copy, &d, &s));
    used.insert(copy);
    if (d != of)
      return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + copy + "' differs from '" + of_name +
                                                   "' but the config says they are one matrix");
    return Status::Ok();
  };

  // Token embeddings: shared.weight is the encoder's (and the decoder's when shared).
  std::vector<float> enc_embed;
  std::vector<uint64_t> shape;
  std::string enc_name = src.count("shared.weight") ? "shared.weight" : "encoder.embed_tokens.weight";
  TERN_RETURN_IF_ERROR(load(enc_name, &enc_embed, &shape));
  used.insert(enc_name);
  if (enc_name == "shared.weight") TERN_RETURN_IF_ERROR(check_copy("encoder.embed_tokens.weight", enc_embed, enc_name));
  out->tensors["encoder.embed_tokens.weight"] = {{}, std::move(enc_embed)};
  std::map<std::string, std::vector<uint64_t>> src_shapes{{"encoder.embed_tokens.weight", shape}};
  const std::vector<float>* dec_embed = &out->tensors["encoder.embed_tokens.weight"].data;
  std::string dec_name = enc_name;
  if (hp.shared_embeddings) {
    TERN_RETURN_IF_ERROR(check_copy("decoder.embed_tokens.weight", *dec_embed, enc_name));
  } else {
    std::vector<float> d;
    TERN_RETURN_IF_ERROR(load("decoder.embed_tokens.weight", &d, &shape));
    used.insert("decoder.embed_tokens.weight");
    out->tensors["decoder.embed_tokens.weight"] = {{}, std::move(d)};
    src_shapes["decoder.embed_tokens.weight"] = shape;
    dec_embed = &out->tensors["decoder.embed_tokens.weight"].data;
    dec_name = "decoder.embed_tokens.weight";
  }
  if (hp.tied_output_projection) {
    TERN_RETURN_IF_ERROR(check_copy("lm_head.weight", *dec_embed, dec_name));
  }
  // Sinusoidal position tables that older exports carry are checked against the sinusoid the runtime
  // computes for this config (same layout; within 1e-3, which f16 storage of values in [-1, 1] meets),
  // then dropped: the runtime regenerates them. A table that differs means another position scheme.
  if (hp.position_encoding != PositionEncoding::kLearned) {
    for (const char* side : {"encoder", "decoder"}) {
      const std::string name = std::string(side) + ".embed_positions.weight";
      if (!src.count(name)) continue;
      std::vector<float> table;
      TERN_RETURN_IF_ERROR(load(name, &table, &shape));
      used.insert(name);
      if (shape.size() != 2 || shape[1] != hp.d_model || shape[0] == 0 || shape[0] > hp.max_positions)
        return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + name + "' has shape " + ShapeStr(shape) +
                                                     ", expected [<= " + std::to_string(hp.max_positions) + ", " +
                                                     std::to_string(hp.d_model) + "]");
      std::vector<float> want(table.size());
      format::FillSinusoid(hp.position_encoding, shape[0], hp.d_model, want.data());
      for (size_t i = 0; i < table.size(); ++i) {
        if (!(std::fabs(table[i] - want[i]) <= 1e-3f))
          return Status(StatusCode::kInvalidModel,
                        st_path + ": tensor '" + name + "' differs from the " + PositionEncodingName(hp.position_encoding) +
                            " table config.json implies at position " + std::to_string(i / hp.d_model) + ", column " +
                            std::to_string(i % hp.d_model) + " (" + std::to_string(table[i]) + " vs " +
                            std::to_string(want[i]) + ")");
      }
    }
  }
  if (src.count("final_logits_bias")) {
    hp.final_logits_bias = true;
  }

  const std::vector<format::TensorSpec> specs = format::ExpectedTensors(hp);
  for (const format::TensorSpec& spec : specs) {
    if (out->tensors.count(spec.name) && !out->tensors[spec.name].data.empty() && src_shapes.count(spec.name)) {
      shape = src_shapes[spec.name];
    } else {
      std::vector<float> d;
      TERN_RETURN_IF_ERROR(load(spec.name, &d, &shape));
      used.insert(spec.name);
      if (spec.name == "final_logits_bias" && shape.size() == 2 && shape[0] == 1) shape = {shape[1]};
      out->tensors[spec.name].data = std::move(d);
    }
    std::vector<uint64_t> want(spec.shape.begin(), spec.shape.end());
    if (shape != want)
      return Status(StatusCode::kInvalidModel, st_path + ": tensor '" + spec.name + "' has shape " + ShapeStr(shape) +
                                                   ", config.json implies " + ShapeStr(want));
    out->tensors[spec.name].shape = spec.shape;
  }
  for (const auto& [name, t] : src) {
    if (!used.count(name))
      return Status(StatusCode::kUnsupported, st_path + ": tensor '" + name + "' is not part of a Marian model tern knows");
  }
  return Status::Ok();
}

}  // namespace tern::convert
