// Model::Impl: everything a verified .tern holds, as the runtime reads it: the bytes (ModelData), what the
// format library read from them (format::ModelContents: header tables, tensor views, tokenizer blobs and
// vocabularies, shortlist), the tables computed at load (sinusoid positions, language tokens), and the
// slot for the weights prepared for the kernels (made by the first Translator, nn/prepared_model.h).
// Internal: tern's own code reaches it through Model::impl().
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_data.h"
#include "model_reader.h"
#include "tern/model.h"
#include "views.h"

namespace tern {

class PreparedModel;  // nn/prepared_model.h: the model layer holds it without knowing the kernels
class Tokenizer;      // text/tokenizer.h: the same for the tokenizers

struct Model::Impl {
  std::string name;
  LoadOptions options;
  std::unique_ptr<internal::ModelData> data;
  format::ModelContents c;                       // tensors sorted by name
  std::vector<float> sinusoid;                   // [max_positions, d_model]; empty for learned positions
  std::vector<std::string_view> language_tokens;
  // The weights prepared for the kernels: made by the first Translator, shared by every later one.
  // Logically const: a cache of derived data (an incomplete type here: the model layer does not know the
  // kernels; the shared_ptr's deleter, made where the type is complete, destroys it).
  mutable std::mutex prepared_mu;
  mutable std::shared_ptr<const PreparedModel> prepared;
  mutable std::string packed_note;  // where the prepared weights came from (Model::packed_weights_note)
  // The source and target tokenizers (SentencePiece and the piece index), made on first use and shared by
  // every Translator (Tokenizer::Shared).
  mutable std::mutex tokenizers_mu;
  mutable std::shared_ptr<const Tokenizer> tokenizers[2];

  /// The tensor called `name`, or nullptr.
  const TensorView* tensor(std::string_view name) const;
  const std::vector<TensorView>& tensors() const { return c.tensors; }
  /// Position table [max_positions, d_model] f32 for the encoder (decoder=false) or decoder: the learned
  /// table, or the sinusoid computed at load in float64 and rounded to float32.
  const float* positions(bool decoder) const;
  const ShortlistView& shortlist() const { return c.shortlist; }
  /// SentencePiece model protos (bytes inside the model's image).
  std::string_view source_spm() const { return c.source_spm; }
  std::string_view target_spm() const { return c.target_spm; }

  /// What the model and one Translator's host tables hold against the memory budget besides the arena
  /// (the memory rule of LoadOptions; packed weights estimated before packing), bytes.
  uint64_t owned_bytes_estimate() const;

  /// Tells the OS that the mapped file pages lying wholly inside bytes [data, data + bytes) of this
  /// model are not needed now (madvise MADV_DONTNEED), so they stop counting in the resident set. The
  /// bytes stay valid: a later read faults them back in from the file (page cache). Called once the
  /// packed copy of a weight exists; tensors read at run time (embeddings, norms, biases) are never
  /// released. No effect for FromBytes models (heap memory), for ranges outside the image, or where
  /// madvise is unavailable. Never fails.
  void ReleasePages(const void* data, size_t bytes) const { this->data->ReleasePages(data, bytes); }
};

}  // namespace tern
