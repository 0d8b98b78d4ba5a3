// Views into a verified .tern image (no copies): a tensor of the weight segment and the lexical
// shortlist. The format library makes them (model_reader.h); the runtime and the converter read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tern/model.h"

namespace tern {

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

/// One side's vocabulary as the file stores it (the tokenizer's verified vector of strings): the piece of
/// each id, read in place. Nothing is copied or allocated at load: a vector of string views took 1.75 MB of
/// fresh pages and about 1.5 ms of a 9 ms warm load at OPUS-MT's 2 x 54,688 pieces.
class PieceList {
 public:
  PieceList() = default;
  /// `fb_strings`: a verified `flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>` of n entries.
  PieceList(const void* fb_strings, size_t n) : strings_(fb_strings), n_(n) {}
  size_t size() const { return n_; }
  /// The bytes of piece `id` (id < size()), a view into the model.
  std::string_view operator[](size_t id) const;

 private:
  const void* strings_ = nullptr;
  size_t n_ = 0;
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

}  // namespace tern
