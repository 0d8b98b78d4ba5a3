#include "marian_checkpoint.h"

#include <nlohmann/json.hpp>

#include "generation_config.h"
#include "read_file.h"
#include "sentencepiece_check.h"

namespace tern::convert {
namespace {

using nlohmann::json;

Status ReadText(const std::string& path, std::string* out) { return ReadWholeFile(path, kMaxTextFileBytes, out); }

bool Exists(const std::string& path) { return PathExists(path); }

}  // namespace

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
  const std::string tc_path = dir + "/tokenizer_config.json";
  if (Exists(tc_path)) {
    TERN_RETURN_IF_ERROR(ReadText(tc_path, &text));
    TERN_RETURN_IF_ERROR(ParseTokenizerConfig(text, tc_path, out));
  }
  const std::string st_path = dir + "/model.safetensors";
  if (!Exists(st_path))
    return Status(StatusCode::kNotFound, st_path + ": missing (for pytorch_model.bin run converter/pytorch/bin_to_safetensors.py)");
  return ReadMarianTensors(st_path, out);
}

}  // namespace tern::convert
