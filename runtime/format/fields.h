// The fields of the schema's header tables, listed once. Each list drives reading (FromFb), writing
// (ToFb, schema_io.cc) and describing (VisitFields: `tern inspect`). A field added to a table in
// schema/tern.fbs is added here, and nowhere else in C++: its name must be the schema's (the generated
// accessor `t.NAME()` and builder `add_NAME()` are called by these names) and the public struct's.
#pragma once

#include "tern/model.h"

// schema table Hyperparameters <-> tern::Hyperparameters
#define TERN_HYPERPARAMETER_FIELDS(X)                                                                          \
  X(d_model) X(n_heads) X(head_dim) X(ffn_dim) X(encoder_layers) X(decoder_layers) X(source_vocab_size)        \
  X(target_vocab_size) X(activation) X(norm_placement) X(layer_norm_epsilon) X(position_encoding)              \
  X(max_positions) X(embedding_scale) X(shared_embeddings) X(tied_output_projection) X(final_logits_bias)      \
  X(pad_id) X(eos_id) X(unk_id) X(decoder_start_id)

// schema table GenerationDefaults <-> tern::GenerationDefaults
#define TERN_GENERATION_FIELDS(X)                                                                      \
  X(beam_size) X(length_penalty) X(max_length) X(max_length_ratio) X(forced_eos) X(bad_word_ids)      \
  X(renormalize_logits) X(repetition_penalty) X(no_repeat_ngram_size) X(min_length) X(early_stopping)

// schema table ArenaLimits <-> tern::ArenaLimits
#define TERN_LIMIT_FIELDS(X) X(max_source_tokens) X(max_target_tokens) X(max_batch) X(max_rows)

// schema table Provenance <-> tern::Provenance
#define TERN_PROVENANCE_FIELDS(X) \
  X(source_checkpoint) X(converter_version) X(weights) X(quantization) X(date) X(max_abs_error) X(notes)

namespace tern::format {

/// Calls v(name, value) for every field of the table, in schema order.
template <typename V>
void VisitFields(const Hyperparameters& s, V&& v) {
#define TERN_VISIT(f) v(#f, s.f);
  TERN_HYPERPARAMETER_FIELDS(TERN_VISIT)
}
template <typename V>
void VisitFields(const GenerationDefaults& s, V&& v) {
  TERN_GENERATION_FIELDS(TERN_VISIT)
}
template <typename V>
void VisitFields(const ArenaLimits& s, V&& v) {
  TERN_LIMIT_FIELDS(TERN_VISIT)
}
template <typename V>
void VisitFields(const Provenance& s, V&& v) {
  TERN_PROVENANCE_FIELDS(TERN_VISIT)
#undef TERN_VISIT
}

}  // namespace tern::format
