// Reads a checkpoint directory in the Hugging Face MarianMT layout (what OPUS-MT models ship as):
// config.json, model.safetensors, source.spm, target.spm, vocab.json (+ target_vocab.json when the
// vocabularies are separate), generation_config.json when present.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tern/model.h"
#include "tern/status.h"

namespace tern::convert {

/// A checkpoint in tern's terms: tensors renamed to the .tern names (ExpectedTensors), all f32.
struct Checkpoint {
  Hyperparameters hp;
  GenerationDefaults gen;
  struct Tensor {
    std::vector<uint32_t> shape;
    std::vector<float> data;  // row-major
  };
  std::map<std::string, Tensor> tensors;
  std::string source_spm, target_spm;            // SentencePiece model protos (bytes)
  std::vector<std::string> source_vocab, target_vocab;  // piece of each id
  std::string notes;                             // the safetensors metadata "tern_provenance", if any
  bool clean_up_tokenization_spaces = false;     // tokenizer_config.json (absent: false, see README)
  std::string source_lang, target_lang;          // tokenizer_config.json ("" when absent)
};

/// Parses config.json text into hyperparameters (`where` names the file in messages). Marian semantics:
/// activation "swish" = SiLU ("silu" accepted too), "gelu" exact, "relu"; LayerNorm epsilon 1e-5;
/// embedding_scale = sqrt(d_model) if scale_embedding; sinusoidal positions in halves (the key
/// "tern_position_encoding": "sinusoidal_interleaved" | "learned" selects the other layouts);
/// normalize_before = pre-norm; decoder starts from decoder_start_token_id (pad for Marian).
/// Errors: kInvalidModel (not JSON, a missing or non-integer key, inconsistent sizes), kUnsupported
/// (model_type other than marian, an unknown activation, a key tern cannot honour such as
/// normalize_embedding or add_bias_logits).
Status ParseMarianConfig(const std::string& text, const std::string& where, Hyperparameters* hp);

/// Parses vocab.json ({piece: id}) into the piece of each id 0..n-1. Errors (kInvalidModel): not a JSON
/// object, a non-integer id, ids that are not exactly 0..n-1.
Status ParseVocab(const std::string& text, const std::string& where, std::vector<std::string>* pieces);

/// The files of checkpoint directory `dir` that ReadMarianCheckpoint may read (whether they exist or not):
/// a conversion's output must never be one of them.
std::vector<std::string> CheckpointFiles(const std::string& dir);

/// Reads the whole directory (the decoding rules through generation_config.h). Tensor names lose the "model." prefix; model.shared.weight becomes
/// encoder.embed_tokens.weight; optional copies (per-side embed_tokens, lm_head.weight,
/// embed_positions) are checked to agree with what they copy and dropped; final_logits_bias [1, V]
/// becomes [V]. Errors name the file and tensor: kNotFound (missing file or tensor), kInvalidModel
/// (shape disagreeing with config.json, copies that disagree), kUnsupported (dtype).
Status ReadMarianCheckpoint(const std::string& dir, Checkpoint* out);

}  // namespace tern::convert
