// tern::Model: an immutable, verified .tern file (schema/tern.fbs), mapped read-only or held in memory.
// The public header shows what an application reads from a model; the tensors, the tokenizer blobs and the
// prepared weights are the runtime's own (Model::Impl).
//
// Loading follows a fixed order (after ExecuTorch's program.cpp): size, file identifier "TERN",
// FlatBuffers verifier, format version, then the semantic checks of the format library
// (runtime/format/): every expected tensor present with the shape the hyperparameters imply, offsets
// 64-byte aligned and inside the weight segment, quantization scales finite and positive, vocabulary
// sizes agreeing with the embeddings, special ids in range. A Model is read-only after Load and may be
// shared by any number of threads and Translators.
//
// The structs below are the C++ view of the schema's header tables; the schema is their definition. The
// format library converts between the two in one place and ties every enum value to the schema's with a
// static_assert, so they cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/export.h"
#include "tern/status.h"

namespace tern {

/// The newest format version this build reads (schema/README.md, rule 5). The converter writes the lowest
/// version a file needs (format::RequiredVersion): 1, 2 for the format-2 generation rules, 3 for int4, 4
/// for an early_stopping other than false, 5 for weights in a segment after the FlatBuffer (files over
/// 2 GiB, or `tern-convert --weights-segment`).
constexpr uint32_t kFormatVersion = 5;

/// The widest beam a file, a Translator or a call may ask for (transformers has no limit; tern keeps a
/// sentence's 2 x beam candidates and its finished hypotheses in fixed-size arrays).
constexpr uint32_t kMaxBeam = 64;
/// The most sentences a translate call may hold (TranslatorConfig::max_batch, ArenaLimits::max_batch).
constexpr uint32_t kMaxBatch = 4096;

/// Storage format of a stored tensor (schema enum DType; same values). Per-format facts (bytes, scales,
/// kernels) live in one table each: format::FormatOf (storage) and the runtime's kernel table.
enum class DType : uint8_t {
  kF32 = 0,   ///< little-endian IEEE float32
  kF16 = 1,   ///< little-endian IEEE float16
  kInt8 = 2,  ///< int8 [rows, cols], f32 scale per row: w = q * scale[row] (per-output-channel, "qc8w")
  kQc4w = 3,  ///< 4-bit, two per byte, f32 scale per row: w = (nibble - 8) * scale[row]
  kQb4w = 4,  ///< 4-bit, two per byte, bf16 scale per block of block_size columns: w = (nibble - 8) * scale[row][col / block]
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
  uint32_t d_model = 0;            ///< model width (embedding and hidden size), elements
  uint32_t n_heads = 0;            ///< attention heads per layer
  uint32_t head_dim = 0;           ///< d_model / n_heads
  uint32_t ffn_dim = 0;            ///< feed-forward inner width, elements
  uint32_t encoder_layers = 0;     ///< encoder layers
  uint32_t decoder_layers = 0;     ///< decoder layers
  uint32_t source_vocab_size = 0;  ///< source vocabulary, tokens
  uint32_t target_vocab_size = 0;  ///< target vocabulary (rows of the output layer), tokens
  Activation activation = Activation::kSwish;                                ///< feed-forward activation
  NormPlacement norm_placement = NormPlacement::kPostNorm;                   ///< LayerNorm after (Marian) or before each sublayer
  float layer_norm_epsilon = 1e-5f;                                          ///< LayerNorm's epsilon
  PositionEncoding position_encoding = PositionEncoding::kSinusoidalHalves;  ///< how positions are encoded
  uint32_t max_positions = 0;      ///< positions the model has embeddings for (source and target each)
  float embedding_scale = 1.0f;    ///< token embeddings are multiplied by this (sqrt(d_model) with scale_embedding)
  bool shared_embeddings = false;       ///< the decoder uses encoder.embed_tokens.weight
  bool tied_output_projection = true;   ///< logits use the decoder embedding, else lm_head.weight
  bool final_logits_bias = false;      ///< a bias is added to the logits (Marian's final_logits_bias)
  uint32_t pad_id = 0;                 ///< padding token id
  uint32_t eos_id = 0;                 ///< `</s>`
  uint32_t unk_id = 0;                 ///< the unknown token (pieces the vocabulary lacks)
  uint32_t decoder_start_id = 0;       ///< the decoder's first input (Marian: the pad id)
};

/// Decoding defaults stored in the file (from generation_config.json at conversion).
struct GenerationDefaults {
  uint32_t beam_size = 4;        ///< 1 = greedy search
  float length_penalty = 1.0f;   ///< beam scores are sum_logprob / generated_len ^ length_penalty
  uint32_t max_length = 256;     ///< generated tokens including `</s>`
  float max_length_ratio = 0.f;  ///< > 0: also cap at ceil(ratio * source tokens) + 10
  bool forced_eos = false;             ///< `</s>` forced at the last position (transformers' forced_eos_token_id)
  std::vector<uint32_t> bad_word_ids;  ///< tokens never generated (single-token bad_words_ids)
  // Format 2 (schema GenerationDefaults); each default is format 1's behaviour.
  bool renormalize_logits = false;   ///< log_softmax again after the processors
  float repetition_penalty = 1.f;    ///< transformers' RepetitionPenaltyLogitsProcessor; 1 = off
  uint32_t no_repeat_ngram_size = 0; ///< transformers' NoRepeatNGramLogitsProcessor; 0 = off
  uint32_t min_length = 0;           ///< generated tokens before `</s>` is allowed (transformers' min_length - 1)
  // Format 4.
  EarlyStopping early_stopping = EarlyStopping::kFalse;  ///< generation_config.json's early_stopping
};

/// The limits a Translator is created with by default; its arena is sized from them.
struct ArenaLimits {
  uint32_t max_source_tokens = 256;  ///< including `</s>`
  uint32_t max_target_tokens = 256;  ///< generated, including `</s>`
  uint32_t max_batch = 8;            ///< sentences per translate call
  uint32_t max_rows = 32;            ///< batch x beam rows: a Translator whose config leaves max_batch 0 gets
                                     /// max_batch = min(max_batch, max(1, max_rows / beam))
};

/// Where the file came from (schema table Provenance).
struct Provenance {
  std::string source_checkpoint;  ///< the checkpoint directory it was converted from
  std::string converter_version;  ///< tern-convert's version
  std::string weights;            ///< the weight layout ("int8", "int4", "mixed", ...)
  std::string quantization;       ///< how the weights were quantized
  std::string date;               ///< conversion date (ISO 8601)
  std::string notes;              ///< free text (e.g. how the shortlist was made)
  float max_abs_error = 0.f;      ///< the largest absolute weight error of the quantization
};

/// What a model's lexical shortlist holds (Model::shortlist()): present or not, its sizes and how it was
/// made (the schema's Shortlist.method).
struct ShortlistInfo {
  bool present = false;   ///< the file has a shortlist
  size_t frequent = 0;    ///< target tokens always scored
  size_t candidates = 0;  ///< candidate entries over all source tokens
  std::string_view method;  ///< how it was made (IBM Model 1 over a corpus, or Marian's lexical table)
};

/// What a file may make tern allocate. Memory rule: for a Model and one Translator on it, everything tern
/// allocates because of the file's header fields and the caller's limits must fit memory_budget_bytes:
///  - at load (checked by the verifier before any is allocated): the sinusoid position table
///    (max_positions x d_model x 4 bytes), a view per tensor and per vocabulary piece;
///  - once per Model: the packed weights (about the weight bytes of the file; f16 is packed as f32, so
///    twice theirs; none in memory when they are mapped from the packed-weights cache), with a shortlist
///    4 bytes per target token of row sums, and the tokenizer's piece -> id index (at most 8 bytes per
///    source piece; counted as 64);
///  - per Translator: its arena (a function of the limits: Translator::RequiredArenaBytes) and the token
///    mask (a byte per target token). ArenaLimits from the file are bounded by the verifier (max_batch <= kMaxBatch, max_rows <=
///    kMaxBatch x kMaxBeam, token limits <= max_positions).
/// Every size is computed in 64 bits before anything is allocated; Load refuses tables over the budget,
/// Translator::Create a Translator that takes the total over it (kResourceExhausted, naming the sizes and
/// the budget). Not counted: the file itself (mapped, paged in on demand; FromBytes copies it once),
/// SentencePiece's own tables (a few times the tokenizer blob sizes, which the file's size bounds), and
/// what a call's input sizes (its texts, split sentences, the C API's result copies).
///
/// map_file (false by default, in every binding): Load reads the file into private memory of its own (an
/// anonymous mapping with transparent huge pages asked for, read 2 MiB at a time: about the speed of memory,
/// 7 ms for 75 MiB on an AMD Zen 4), so later changes to the file cannot reach the Model, and gives back the
/// pages of the weights a packed copy replaces. true: Load maps the file read-only (no copy, pages shared
/// between processes). The file must then not change in place while the Model lives: truncating or
/// rewriting it under a mapping makes the next read of a lost page raise SIGBUS, which ends the process.
/// Replacing it by rename (write a new file, rename it over the old one, as tern-convert does) is safe: the
/// mapping keeps the old file.
///
/// packed_cache_dir: a directory for the packed-weights cache (docs/cold-start.md). The first Translator on
/// a model packs its weights for this CPU's XNNPACK kernels and writes them to DIR/NAME-HASH.ternpack
/// (NAME: the model file's name, HASH: 16 hex digits of its real path; written to a temporary, then
/// renamed into place; the name cut to 160 bytes); every later load of the same file on a CPU that packs the same way maps that file
/// instead of packing: no work per weight, and the packed weights are file pages that processes share and
/// the system can reclaim. The cache is keyed by tern's version, the CPU's instruction-set levels, a
/// fingerprint of XNNPACK's packing and the model file's path; an entry is used only for the model bytes it
/// was made from (known by the file's stamp, else by hashing them again) and only when its own blocks hash to
/// what was written; an entry or a directory that another user owns or can write is never read or written
/// (docs/cold-start.md "Trust"). A file with another key, or one that fails a check, is replaced, never
/// used: outputs are bit for bit those of packing at load. Empty: the environment variable TERN_PACKED_CACHE_DIR when it is set, else no cache.
/// Models made by FromBytes are not cached. C++, C and JNI use a cache only when asked (an app names its own
/// directory, e.g. Android's getCacheDir()); the CLI and the Python package use DefaultPackedCacheDir() unless
/// told not to.
///
/// packed_cache_max_bytes: when > 0, a load that writes an entry then removes the least recently used entries
/// of the directory (by modification time, which every load that maps an entry renews) until the entries
/// left, the new one included, take at most this many bytes; the new entry itself is never removed. 0: no
/// bound. packed_cache = false: no cache at all, whatever packed_cache_dir and TERN_PACKED_CACHE_DIR say.
struct LoadOptions {
  uint64_t memory_budget_bytes = uint64_t{2} << 30;  ///< 2 GiB: half of a 4 GB device
  bool map_file = false;  ///< false: read the file into memory (see above); true: map it
  std::string packed_cache_dir;  ///< where packed weights are cached (see above); "" = TERN_PACKED_CACHE_DIR or none
  uint64_t packed_cache_max_bytes = 0;  ///< bytes the directory's entries may take (see above); 0: unbounded
  bool packed_cache = true;             ///< false: no packed-weights cache (see above)
};

/// The per-user packed-weights cache directory the CLI and the Python package use by default:
/// $TERN_PACKED_CACHE_DIR when set, else $XDG_CACHE_HOME/tern/packed, else $HOME/.cache/tern/packed; "" (no
/// cache) when TERN_PACKED_CACHE is "off", "0", "no" or "false", or none of those variables is set. Never fails;
/// creates nothing (the first write creates the directory).
TERN_API std::string DefaultPackedCacheDir();

/// The bound the CLI and the Python package put on that directory (LoadOptions::packed_cache_max_bytes), bytes.
inline constexpr uint64_t kDefaultPackedCacheMaxBytes = uint64_t{2} << 30;

struct ModelFactory;

/// A verified, immutable .tern model: hyperparameters, generation defaults, limits, vocabularies, the weights
/// (mapped or in memory) and, once the first Translator is made, their packed form. Shared by any number of
/// threads and Translators (tern/translator.h) through shared_ptr.
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

  /// The path it was loaded from, or FromBytes' name.
  const std::string& name() const;
  /// Bytes of the .tern image.
  size_t file_bytes() const;
  /// The file's format version (schema/README.md).
  uint32_t format_version() const;
  /// The network's shape and special ids.
  const Hyperparameters& hparams() const;
  /// Decoding defaults from generation_config.json.
  const GenerationDefaults& generation() const;
  /// A Translator's default limits.
  const ArenaLimits& limits() const;
  /// Where the file came from.
  const Provenance& provenance() const;
  /// Weight format of the first linear layer (encoder layer 0's attention). A file may mix formats
  /// (e.g. 4-bit feed-forward layers, int8 attention): provenance().weights names the layout.
  DType weight_dtype() const;

  /// Piece of each token id; sizes equal source/target_vocab_size. Views into the model, in a vector made
  /// on the first call (16 bytes a piece; thread-safe): a load and a translation make none. Throws
  /// std::bad_alloc when that vector cannot be allocated.
  const std::vector<std::string_view>& source_vocab() const;
  /// The target side's pieces (see source_vocab()).
  const std::vector<std::string_view>& target_vocab() const;
  /// Apply transformers' clean_up_tokenization to detokenized text (tokenizer_config.json).
  bool clean_up_tokenization_spaces() const;
  /// The target-language tokens of a multilingual model: the source vocabulary's pieces ">>xxx<<", in id
  /// order (MarianTokenizer's supported_language_codes); empty for a model with one target language.
  const std::vector<std::string_view>& language_tokens() const;
  /// The lexical shortlist, if the file has one.
  ShortlistInfo shortlist() const;
  /// Source and target language from tokenizer_config.json at conversion ("en"; empty when unknown).
  std::string_view source_lang() const;
  /// Target language from tokenizer_config.json ("de"; empty when unknown).
  std::string_view target_lang() const;
  /// The memory budget the model was loaded with (LoadOptions), bytes.
  uint64_t memory_budget_bytes() const;
  /// Where the packed weights came from, for --verbose: "" before the first Translator, then e.g. "mapped
  /// from DIR/m.tern-0123456789abcdef.ternpack (37 blocks, no packing)" or "packed at load (cache: none
  /// yet); wrote DIR/...", with the reason a cache file was not used.
  std::string packed_weights_note() const;

  /// The model's internals (runtime/src/model/model_impl.h): for tern's own code only.
  struct Impl;
  /// tern's own code only.
  const Impl& impl() const { return *impl_; }

 private:
  friend struct ModelFactory;
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern
