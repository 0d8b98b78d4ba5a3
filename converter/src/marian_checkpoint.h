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
  bool clean_up_tokenization_spaces = false;     // tokenizer_config.json (absent: false, see docs/conformance.md)
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

/// Parses tokenizer_config.json text into out->clean_up_tokenization_spaces (absent or null: unchanged,
/// i.e. off) and out->source_lang / target_lang (letters, digits, '-', '_', at most 32 bytes). Errors
/// (kInvalidModel, naming `where` and the key): not a JSON object, a value of another type or form.
Status ParseTokenizerConfig(const std::string& text, const std::string& where, Checkpoint* out);

/// Reads model.safetensors at `path` into out->tensors for out->hp (read first): see ReadMarianCheckpoint
/// for the renaming and the checks; sets hp.final_logits_bias when the file has one. Errors name the file
/// and tensor: kNotFound (a tensor missing), kInvalidModel (a shape, a copy that disagrees, a NaN or
/// infinite weight, a position table that is not the configured sinusoid), kUnsupported (a dtype, a
/// tensor tern does not know).
Status ReadMarianTensors(const std::string& path, Checkpoint* out);

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
