// Model::Impl: everything a verified .tern holds, as the runtime reads it: the bytes (ModelData), what the
// format library read from them (format::ModelContents: header tables, tensor views, tokenizer blobs and
// vocabularies, shortlist), the tables computed at load (sinusoid positions, language tokens), and the
// slot for the weights prepared for the kernels (made by the first Translator, nn/prepared_model.h).
// Internal: tern's own code reaches it through Model::impl().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
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
class SpmPrefetch;    // text/spm_prefetch.h: the same for SentencePiece parsing while the model loads

struct Model::Impl {
  std::string name;
  LoadOptions options;
  std::unique_ptr<internal::ModelData> data;
  // SentencePiece parsing the source proto on a thread begun while the model loaded (api/model_load.cc),
  // taken by the first source Tokenizer; null when none was begun. Declared after `data`: destroyed (its
  // thread joined) before the bytes it reads.
  std::shared_ptr<SpmPrefetch> source_spm_prefetch;
  format::ModelContents c;                       // tensors sorted by name
  // The sinusoid (empty for learned positions): [max_positions, d_model] allocated at load, its first
  // kSinusoidRowsAtLoad rows filled then and later rows on first use (positions()), kSinusoidRowsAtLoad at a
  // time: filling all of them took 1.8 of a 15 ms warm load at the base shape (512 x 512 sin/cos in float64).
  static constexpr size_t kSinusoidRowsAtLoad = 64;
  std::unique_ptr<float[]> sinusoid;
  std::vector<double> sinusoid_denom;             // [d_model / 2] format::SinusoidDenominators
  mutable std::atomic<size_t> sinusoid_rows{0};   // rows filled (written under sinusoid_mu)
  mutable std::mutex sinusoid_mu;
  std::vector<std::string_view> language_tokens;
  // Model::source_vocab() / target_vocab(): vectors of views made on first call (tern's own code reads
  // c.source_pieces / c.target_pieces in place: a load and a translation allocate none of this).
  mutable std::once_flag vocab_once[2];
  mutable std::vector<std::string_view> vocab_views[2];
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
  /// Position table [max_positions, d_model] f32 for the encoder (decoder=false) or decoder, of which the
  /// caller reads rows [0, rows) (rows <= max_positions): the learned table, or the sinusoid computed in
  /// float64 and rounded to float32, its rows filled here first when a position reaches them for the first
  /// time (thread-safe; no allocation: the table is allocated at load).
  const float* positions(bool decoder, size_t rows) const;
  const ShortlistView& shortlist() const { return c.shortlist; }
  /// SentencePiece model protos (bytes inside the model's image).
  std::string_view source_spm() const { return c.source_spm; }
  std::string_view target_spm() const { return c.target_spm; }

  /// What the model and one Translator's host tables hold against the memory budget besides the arena
  /// (the memory rule of LoadOptions; packed weights estimated before packing), bytes.
  uint64_t owned_bytes_estimate() const;

  /// Gives back the pages lying wholly inside bytes [data, data + bytes) of the model's image
  /// (internal::ModelData::ReleasePages): a mapping's always (a later read faults them back in from the
  /// file), a private copy's only when `never_read_again` (the weights a packed copy replaces; anything that
  /// may be read again, like the SentencePiece protos, stays). Tensors read at run time (embeddings, norms,
  /// biases) are never released. No effect outside the image or where madvise is unavailable. Never fails.
  void ReleasePages(const void* data, size_t bytes, bool never_read_again = false) const {
    this->data->ReleasePages(data, bytes, never_read_again);
  }
};

namespace internal {

/// Begins work on a verified source SentencePiece proto (the model's bytes) while the load goes on, or
/// returns null (api/model_load.cc's; format::ReadModel's on_source_spm says when it is called).
using SourceSpmHook = std::function<std::shared_ptr<SpmPrefetch>(const format::SourceSpm& spm)>;

/// The one place a Model is made: `data` verified and read (format::ReadModel, the memory rule of
/// LoadOptions inside), then the tables made at load. Errors: ReadModel's; kResourceExhausted for the tables.
Result<std::shared_ptr<const Model>> CreateModel(std::unique_ptr<ModelData> data, const std::string& name,
                                                 const LoadOptions& options, const SourceSpmHook& hook = {});

}  // namespace internal

}  // namespace tern
