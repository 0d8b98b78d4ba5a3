// Text <-> token ids with the model's own SentencePiece models and vocabularies (MarianTokenizer
// semantics: SentencePiece splits the text into pieces, each piece maps to its id in the stored
// vocabulary, unknown pieces to unk_id; ids are never SentencePiece's own ids).
#pragma once

#include <memory>
#include <string_view>
#include <unordered_map>

#include "tern/model.h"
#include "tern/status.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tern {

class Tokenizer {
 public:
  /// Loads the source and target SentencePiece protos from `model`. Error: kInvalidModel.
  static Result<std::unique_ptr<Tokenizer>> Create(const Model& model);
  ~Tokenizer();

  /// Checks `text` (valid UTF-8, no NUL byte), splits it into pieces and writes their ids followed by
  /// eos_id into ids[0..*n). Errors (message without the sentence number; the caller adds it):
  /// kInvalidArgument "invalid UTF-8 at byte N" / "NUL byte at byte N"; kResourceExhausted when more
  /// than `capacity` ids would be needed. Allocates inside SentencePiece only.
  Status Encode(std::string_view text, uint32_t* ids, size_t capacity, size_t* n) const;

  /// Writes the text of target `ids` into out[0..capacity) and returns its length in bytes: pieces
  /// concatenated, U+2581 (SentencePiece's word boundary) turned into a space and the leading space
  /// dropped, byte pieces <0xNN> turned into their byte, unknown pieces written as " ⁇ ", </s> and pad
  /// skipped (what SentencePiece's DecodePieces gives for these models). No allocation. Output beyond
  /// capacity is cut at a UTF-8 boundary.
  size_t Decode(const uint32_t* ids, size_t n, char* out, size_t capacity) const;

  /// Bytes Decode can need per token at most.
  size_t max_piece_bytes() const { return max_piece_bytes_; }

 private:
  Tokenizer() = default;
  const Model* model_ = nullptr;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> source_;
  std::unordered_map<std::string_view, uint32_t> source_ids_;
  size_t max_piece_bytes_ = 0;
};

/// Bytes Tokenizer::Decode can need per target token: the longest target piece, at least 6 (" ⁇ ",
/// the text of an unknown piece). Used to size the result text buffers.
size_t MaxPieceBytes(const Model& model);

/// Offset of the first invalid UTF-8 byte in `s`, or s.size() if it is valid (RFC 3629: no overlongs,
/// no surrogates, nothing above U+10FFFF).
size_t FindInvalidUtf8(std::string_view s);

}  // namespace tern
