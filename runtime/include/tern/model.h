// tern::Model: an immutable, verified .tern file (schema/tern.fbs), mapped read-only or held in memory.
//
// Loading follows a fixed order (after ExecuTorch's program.cpp): size, file identifier "TERN",
// FlatBuffers verifier, format version, then the semantic checks of the format library
// (runtime/format/): every expected tensor present with the shape the hyperparameters imply, offsets
// 64-byte aligned and inside the weight segment, quantization scales finite and positive, vocabulary
// sizes agreeing with the embeddings, special ids in range. A Model is read-only after Load and may be
// shared by any number of threads and Translators.
//
// The structs below are the C++ view of the schema's tables; the schema is their definition. The format
// library converts between the two in one place and ties every enum value to the schema's with a
// static_assert, so they cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tern/export.h"
#include "tern/status.h"

namespace tern {

/// The newest format version this build reads (schema/README.md, rule 5). The converter writes the lowest
/// version a file needs (format::RequiredVersion): 1, 2 for the format-2 generation rules, 3 for int4, 4
/// for an early_stopping other than false.
constexpr uint32_t kFormatVersion = 4;

/// The widest beam a file, a Translator or a call may ask for (transformers has no limit; tern keeps a
/// sentence's 2 x beam candidates and its finished hypotheses in fixed-size arrays).
constexpr uint32_t kMaxBeam = 64;
/// The most sentences a translate call may hold (TranslatorConfig::max_batch, ArenaLimits::max_batch).
constexpr uint32_t kMaxBatch = 4096;

/// Storage format of a stored tensor (schema enum DType; same values). Per-format facts (bytes, scales,
/// kernels) live in one table each: format::FormatOf (storage) and the runtime's kernel table.
enum class DType : uint8_t {
  kF32 = 0,   // little-endian IEEE float32
  kF16 = 1,   // little-endian IEEE float16
  kInt8 = 2,  // int8 [rows, cols], f32 scale per row: w = q * scale[row] (per-output-channel, "qc8w")
  kQc4w = 3,  // 4-bit, two per byte, f32 scale per row: w = (nibble - 8) * scale[row]
  kQb4w = 4,  // 4-bit, two per byte, bf16 scale per block of block_size columns: w = (nibble - 8) * scale[row][col / block]
};
/// "f32", "f16", "int8", "qc4w", "qb4w"; "?" for a value outside the enum.
TERN_API const char* DTypeName(DType t);

enum class Activation : uint8_t { kRelu = 0, kSwish = 1, kGelu = 2 };
/// transformers' GenerationConfig.early_stopping for beam search (schema enum EarlyStopping; same values):
/// kFalse stops a sentence when its best running beam cannot beat its worst finished hypothesis at the
/// current length, kTrue once num_beams hypotheses are finished, kNever tests at the longest allowed length
/// when length_penalty > 0 (transformers' _check_early_stop_heuristic; 4.x's BeamHypotheses.is_done).
enum class EarlyStopping : uint8_t { kFalse = 0, kTrue = 1, kNever = 2 };
enum class NormPlacement : uint8_t { kPostNorm = 0, kPreNorm = 1 };
enum class PositionEncoding : uint8_t { kSinusoidalHalves = 0, kSinusoidalInterleaved = 1, kLearned = 2 };
TERN_API const char* ActivationName(Activation a);
TERN_API const char* NormPlacementName(NormPlacement n);
TERN_API const char* PositionEncodingName(PositionEncoding p);
/// "false", "true", "never" (transformers' spelling); "?" outside the enum.
TERN_API const char* EarlyStoppingName(EarlyStopping e);

/// Model hyperparameters (schema table Hyperparameters; defaults are the schema's). Sizes in elements/tokens.
struct Hyperparameters {
  uint32_t d_model = 0, n_heads = 0, head_dim = 0, ffn_dim = 0;
  uint32_t encoder_layers = 0, decoder_layers = 0;
  uint32_t source_vocab_size = 0, target_vocab_size = 0;
  Activation activation = Activation::kSwish;
  NormPlacement norm_placement = NormPlacement::kPostNorm;
  float layer_norm_epsilon = 1e-5f;
  PositionEncoding position_encoding = PositionEncoding::kSinusoidalHalves;
  uint32_t max_positions = 0;
  float embedding_scale = 1.0f;
  bool shared_embeddings = false;       // the decoder uses encoder.embed_tokens.weight
  bool tied_output_projection = true;   // logits use the decoder embedding, else lm_head.weight
  bool final_logits_bias = false;
  uint32_t pad_id = 0, eos_id = 0, unk_id = 0, decoder_start_id = 0;
};

/// Decoding defaults stored in the file (from generation_config.json at conversion).
struct GenerationDefaults {
  uint32_t beam_size = 4;
  float length_penalty = 1.0f;
  uint32_t max_length = 256;     // generated tokens including </s>
  float max_length_ratio = 0.f;  // > 0: also cap at ceil(ratio * source tokens) + 10
  bool forced_eos = false;
  std::vector<uint32_t> bad_word_ids;
  // Format 2 (schema GenerationDefaults); each default is format 1's behaviour.
  bool renormalize_logits = false;   // log_softmax again after the processors
  float repetition_penalty = 1.f;    // transformers' RepetitionPenaltyLogitsProcessor; 1 = off
  uint32_t no_repeat_ngram_size = 0; // transformers' NoRepeatNGramLogitsProcessor; 0 = off
  uint32_t min_length = 0;           // generated tokens before </s> is allowed (transformers' min_length - 1)
  // Format 4.
  EarlyStopping early_stopping = EarlyStopping::kFalse;  // generation_config.json's early_stopping
};

/// The limits a Translator is created with by default; its arena is sized from them.
struct ArenaLimits {
  uint32_t max_source_tokens = 256;  // including </s>
  uint32_t max_target_tokens = 256;  // generated, including </s>
  uint32_t max_batch = 8;            // sentences per translate call
  uint32_t max_rows = 32;            // batch x beam rows: a Translator whose config leaves max_batch 0 gets
                                     // max_batch = min(max_batch, max(1, max_rows / beam))
};

/// Where the file came from (schema table Provenance).
struct Provenance {
  std::string source_checkpoint, converter_version, weights, quantization, date, notes;
  float max_abs_error = 0.f;
};

/// One tensor of the weight segment, pointing into the model's bytes (no copy).
/// `data` is 64-byte aligned; for kInt8 and kQc4w `scales` holds shape[0] f32 values (one per row); for
/// kQb4w `block_scales` holds shape[0] x (shape[1] / block_size) bfloat16 values.
struct TensorView {
  std::string_view name;
  DType dtype = DType::kF32;
  uint32_t rank = 0;
  uint32_t shape[2] = {1, 1};    // [rows, cols] for matrices (linear weights are [out, in]); [n, 1] for vectors
  const void* data = nullptr;
  size_t bytes = 0;              // of data (scales not included)
  const float* scales = nullptr;
  const uint16_t* block_scales = nullptr;
  uint32_t block_size = 0;
  float max_abs_error = 0.f;

  size_t rows() const { return shape[0]; }
  size_t cols() const { return rank == 2 ? shape[1] : 1; }
  size_t numel() const { return rows() * cols(); }
  const float* f32() const { return static_cast<const float*>(data); }
};

/// A lexical shortlist stored in the model (schema table Shortlist): views into the model's bytes. The
/// candidates of source id s are candidates[offsets[s] .. offsets[s + 1]).
struct ShortlistView {
  const uint32_t* frequent = nullptr;
  size_t frequent_count = 0;
  const uint32_t* offsets = nullptr;    // [source_vocab_size + 1]; nullptr: the model has no shortlist
  const uint32_t* candidates = nullptr;
  size_t candidate_count = 0;
  std::string_view method;
  bool present() const { return offsets != nullptr; }
};

/// What a file may make tern allocate. Memory rule: for a Model and one Translator on it, everything tern
/// allocates because of the file's header fields and the caller's limits must fit memory_budget_bytes:
///  - at load (checked by the verifier before any is allocated): the sinusoid position table
///    (max_positions x d_model x 4 bytes), a view per tensor and per vocabulary piece;
///  - once per Model: the packed weights (about the weight bytes of the file; f16 is packed as f32, so
///    twice theirs) and, with a shortlist, 4 bytes per target token of row sums;
///  - per Translator: its arena (a function of the limits: Translator::RequiredArenaBytes), the
///    tokenizer's piece -> id map (about 64 bytes per source piece) and the token mask (a byte per target
///    token). ArenaLimits from the file are bounded by the verifier (max_batch <= kMaxBatch, max_rows <=
///    kMaxBatch x kMaxBeam, token limits <= max_positions).
/// Every size is computed in 64 bits before anything is allocated; Load refuses tables over the budget,
/// Translator::Create a Translator that takes the total over it (kResourceExhausted, naming the sizes and
/// the budget). Not counted: the file itself (mapped, paged in on demand; FromBytes copies it once),
/// SentencePiece's own tables (a few times the tokenizer blob sizes, which the file's size bounds), and
/// what a call's input sizes (its texts, split sentences, the C API's result copies).
///
/// map_file: Load maps the file read-only (fast, and the pages of packed weights are given back, so the
/// resident set holds one copy of each weight). The file must then not change in place while the Model
/// lives: truncating or rewriting it under a mapping makes the next read of a lost page raise SIGBUS.
/// Replacing it by rename (write a new file, rename it over the old one, as tern-convert does) is safe:
/// the mapping keeps the old file. With map_file = false the file is read into memory once (read(2)) and
/// later changes cannot reach the Model; it costs the file's size in resident memory. The C API and JNI
/// default to false.
struct LoadOptions {
  uint64_t memory_budget_bytes = uint64_t{2} << 30;  // 2 GiB: half of a 4 GB device
  bool map_file = true;
};

namespace internal {
class ModelData;
struct PreparedSlot;
}  // namespace internal

class TERN_API Model {
 public:
  /// Maps and verifies `path`. Errors: kIoError (cannot open/map, not a regular file), kInvalidModel (size,
  /// identifier, verifier, semantic checks; the message names the check and the tensor or field),
  /// kUnsupported (format version newer than kFormatVersion).
  /// kResourceExhausted when the derived tables exceed options.memory_budget_bytes.
  static Result<std::shared_ptr<const Model>> Load(const std::string& path, const LoadOptions& options = {});

  /// Verifies a .tern image held in memory (copied into a 64-byte aligned buffer first). `name` is used
  /// in error messages. Same errors as Load, plus kResourceExhausted if the copy cannot be allocated.
  static Result<std::shared_ptr<const Model>> FromBytes(const void* data, size_t size, const std::string& name,
                                                        const LoadOptions& options = {});

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& name() const { return name_; }
  size_t file_bytes() const;
  uint32_t format_version() const { return format_version_; }
  const Hyperparameters& hparams() const { return hp_; }
  const GenerationDefaults& generation() const { return gen_; }
  const ArenaLimits& limits() const { return limits_; }
  const Provenance& provenance() const { return prov_; }
  /// Weight format of the first linear layer (encoder layer 0's attention). A file may mix formats
  /// (e.g. 4-bit feed-forward layers, int8 attention): provenance().weights names the layout.
  DType weight_dtype() const { return weight_dtype_; }

  const std::vector<TensorView>& tensors() const { return tensors_; }
  /// The tensor called `name`, or nullptr.
  const TensorView* tensor(std::string_view name) const;

  /// Position table [max_positions, d_model] f32 for the encoder (decoder=false) or decoder: the learned
  /// table, or the sinusoid computed at load in float64 and rounded to float32.
  const float* positions(bool decoder) const;

  /// SentencePiece model protos (bytes inside the model's image).
  std::string_view source_spm() const { return source_spm_; }
  std::string_view target_spm() const { return target_spm_; }
  /// Piece of each token id; sizes equal source/target_vocab_size.
  const std::vector<std::string_view>& source_vocab() const { return source_vocab_; }
  const std::vector<std::string_view>& target_vocab() const { return target_vocab_; }
  /// Apply transformers' clean_up_tokenization to detokenized text (tokenizer_config.json).
  bool clean_up_tokenization_spaces() const { return clean_up_tokenization_spaces_; }
  /// The target-language tokens of a multilingual model: the source vocabulary's pieces ">>xxx<<", in id
  /// order (MarianTokenizer's supported_language_codes); empty for a model with one target language.
  const std::vector<std::string_view>& language_tokens() const { return language_tokens_; }
  /// The lexical shortlist, if the file has one (check present()).
  const ShortlistView& shortlist() const { return shortlist_; }
  /// Source and target language from tokenizer_config.json at conversion ("en"; empty when unknown).
  std::string_view source_lang() const { return source_lang_; }
  std::string_view target_lang() const { return target_lang_; }

  /// The memory budget the model was loaded with, and what the model and one Translator's host tables hold
  /// against it besides the arena (the memory rule of LoadOptions; packed weights estimated before packing), bytes.
  uint64_t memory_budget_bytes() const { return options_.memory_budget_bytes; }
  uint64_t owned_bytes_estimate() const;

  /// Tells the OS that the mapped file pages lying wholly inside bytes [data, data + bytes) of this
  /// model are not needed now (madvise MADV_DONTNEED), so they stop counting in the resident set. The
  /// bytes stay valid: a later read faults them back in from the file (page cache). Called once the
  /// packed copy of a weight exists (it is made once per Model and shared by its Translators); tensors
  /// read at run time (embeddings, norms, biases) are never released. No effect for FromBytes models
  /// (heap memory), for ranges outside the image, or where madvise is unavailable. Never fails.
  void ReleasePages(const void* data, size_t bytes) const;

 private:
  friend struct internal::PreparedSlot;
  Model();
  static Result<std::shared_ptr<const Model>> Create(std::unique_ptr<internal::ModelData> data, const std::string& name,
                                                     const LoadOptions& options);

  std::string name_;
  LoadOptions options_;
  std::unique_ptr<internal::ModelData> data_;
  uint32_t format_version_ = 0;
  Hyperparameters hp_;
  GenerationDefaults gen_;
  ArenaLimits limits_;
  Provenance prov_;
  DType weight_dtype_ = DType::kF32;
  std::vector<TensorView> tensors_;  // sorted by name
  std::vector<float> sinusoid_;
  std::string_view source_spm_, target_spm_;
  std::vector<std::string_view> source_vocab_, target_vocab_;
  bool clean_up_tokenization_spaces_ = false;
  std::vector<std::string_view> language_tokens_;
  std::string_view source_lang_, target_lang_;
  ShortlistView shortlist_;
  // The weights prepared for the kernels (runtime/src/prepared_model.h): made by the first Translator,
  // shared by every later one. Logically const: a cache of derived data.
  mutable std::mutex prepared_mu_;
  mutable std::shared_ptr<const void> prepared_;
};

}  // namespace tern
