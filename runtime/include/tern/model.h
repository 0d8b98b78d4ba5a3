// tern::Model: an immutable, memory-mapped, verified .tern file (schema/tern.fbs).
//
// Loading follows a fixed order (after ExecuTorch's program.cpp): minimum size, file identifier "TERN",
// FlatBuffers verifier, format version, then semantic checks (every expected tensor present with the
// shape the hyperparameters imply, offsets 64-byte aligned and inside the weight segment, int8 scales
// finite and positive, vocabulary sizes agreeing with the embeddings, special ids in range). A Model is
// read-only after Load and may be shared by any number of threads and Translators.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/status.h"

namespace tern {

namespace fb {
struct Model;
}

/// The format version this build writes and the newest it reads.
constexpr uint32_t kFormatVersion = 1;

/// Element type of a stored tensor (values match schema DType).
enum class DType : uint8_t {
  kF32 = 0,
  kF16 = 1,
  kInt8 = 2,  // int8 [rows, cols], f32 scale per row: w = q * scale[row] (per-output-channel, "qc8w")
};
const char* DTypeName(DType t);
/// Bytes per element: 4, 2 or 1.
size_t DTypeSize(DType t);

enum class Activation : uint8_t { kRelu = 0, kSwish = 1, kGelu = 2 };
enum class NormPlacement : uint8_t { kPostNorm = 0, kPreNorm = 1 };
enum class PositionEncoding : uint8_t { kSinusoidalHalves = 0, kSinusoidalInterleaved = 1, kLearned = 2 };
const char* ActivationName(Activation a);
const char* NormPlacementName(NormPlacement n);
const char* PositionEncodingName(PositionEncoding p);

/// Model hyperparameters (schema table Hyperparameters). Sizes in elements/tokens.
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
  bool shared_embeddings = true;        // decoder uses encoder.embed_tokens.weight
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
};

/// The limits a Translator is created with by default; its arena is sized from them.
struct ArenaLimits {
  uint32_t max_source_tokens = 256;  // including </s>
  uint32_t max_target_tokens = 256;  // generated, including </s>
  uint32_t max_batch = 8;            // sentences per translate call
  uint32_t max_rows = 32;            // batch x beam rows
};

/// Where the file came from (schema table Provenance).
struct Provenance {
  std::string source_checkpoint, converter_version, weights, quantization, date, notes;
  float max_abs_error = 0.f;
};

/// One tensor of the weight segment, pointing into the mapped file (no copy).
/// `data` is 64-byte aligned; for kInt8, `scales` holds shape[0] f32 values.
struct TensorView {
  std::string_view name;
  DType dtype = DType::kF32;
  uint32_t rank = 0;
  uint32_t shape[2] = {1, 1};    // [rows, cols] for matrices (linear weights are [out, in]); [n, 1] for vectors
  const void* data = nullptr;
  size_t bytes = 0;
  const float* scales = nullptr;
  float max_abs_error = 0.f;

  size_t rows() const { return shape[0]; }
  size_t cols() const { return rank == 2 ? shape[1] : 1; }
  size_t numel() const { return rows() * cols(); }
  const float* f32() const { return static_cast<const float*>(data); }
};

/// A tensor the hyperparameters require: its name, shape and whether it may be stored as int8.
struct TensorSpec {
  std::string name;
  std::vector<uint32_t> shape;
  bool quantizable = false;  // 2-D matrices (linear weights, embeddings); vectors stay f32
};

/// Every tensor a .tern file must hold for `hp`, in a fixed order. Names follow transformers' Marian
/// layout without the "model." prefix (e.g. "encoder.layers.0.self_attn.q_proj.weight").
std::vector<TensorSpec> ExpectedTensors(const Hyperparameters& hp);

class Model {
 public:
  /// Maps and verifies `path`. Errors: kIoError (cannot open/map), kInvalidModel (too small, wrong
  /// identifier, verifier, semantic checks; the message names the check and the tensor or field),
  /// kUnsupported (format version newer than kFormatVersion).
  static Result<std::shared_ptr<const Model>> Load(const std::string& path);

  /// Verifies a .tern image held in memory (copied into a 64-byte aligned buffer first). `name` is used
  /// in error messages. Same errors as Load.
  static Result<std::shared_ptr<const Model>> FromBytes(const void* data, size_t size, const std::string& name);

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::string& name() const { return name_; }
  size_t file_bytes() const { return size_; }
  uint32_t format_version() const { return format_version_; }
  const Hyperparameters& hparams() const { return hp_; }
  const GenerationDefaults& generation() const { return gen_; }
  const ArenaLimits& limits() const { return limits_; }
  const Provenance& provenance() const { return prov_; }
  /// Weight dtype of the linear layers ("int8", "f16" or "f32" model).
  DType weight_dtype() const { return weight_dtype_; }

  const std::vector<TensorView>& tensors() const { return tensors_; }
  /// The tensor called `name`, or nullptr.
  const TensorView* tensor(std::string_view name) const;

  /// Position table [max_positions, d_model] f32 for the encoder (decoder=false) or decoder: the learned
  /// table, or the sinusoid computed at load in float64 and rounded to float32.
  const float* positions(bool decoder) const;

  /// SentencePiece model protos (bytes inside the mapped file).
  std::string_view source_spm() const { return source_spm_; }
  std::string_view target_spm() const { return target_spm_; }
  /// Piece of each token id; sizes equal source/target_vocab_size.
  const std::vector<std::string_view>& source_vocab() const { return source_vocab_; }
  const std::vector<std::string_view>& target_vocab() const { return target_vocab_; }

  /// Tells the OS that the mapped file pages lying wholly inside bytes [data, data + bytes) of this
  /// model are not needed now (madvise MADV_DONTNEED), so they stop counting in the resident set. The
  /// bytes stay valid: a later read faults them back in from the file (page cache). The Translator
  /// calls it once XNNPACK has packed its own copy of a weight; tensors read at run time (embeddings,
  /// norms, biases) are never released. No effect for FromBytes models (heap memory), for ranges
  /// outside the mapping, or where madvise is unavailable. Never fails.
  void ReleasePages(const void* data, size_t bytes) const;

 private:
  Model() = default;
  static Result<std::shared_ptr<const Model>> Verify(std::shared_ptr<Model> m);
  Status CheckSemantics();

  std::string name_;
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;          // munmap on destruction (Load)
  std::unique_ptr<uint8_t[]> owned_; // FromBytes copy (over-allocated for alignment)
  const fb::Model* fb_ = nullptr;
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
};

}  // namespace tern
