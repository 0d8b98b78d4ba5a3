// Text <-> token ids with the model's own SentencePiece models and vocabularies, with MarianTokenizer's
// semantics (transformers models/marian/tokenization_marian.py):
//  - a leading target-language code ">>xxx<<" (the text starts with ">>"; the code runs to the first
//    "<<") is taken off before SentencePiece and mapped to its own vocabulary id (remove_language_code,
//    transformers 5.x; 4.x matched the regex ">>.+<<", greedy, and removed every match: the same for a
//    text with one code at its start, which is what multilingual OPUS-MT models are given);
//  - SentencePiece splits the rest into pieces; each piece maps to its id in the stored vocabulary,
//    a piece the vocabulary lacks to unk_id (transformers 4.x; ids are never SentencePiece's own);
//  - </s> is appended.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/model.h"
#include "text/piece_index.h"
#include "tern/status.h"
#include "tern/translator.h"

namespace tern {

class PieceEncoder;

class Tokenizer {
 public:
  enum class Side { kSource, kTarget };
  /// Loads the SentencePiece proto of `side` (the source one translates; the target one is for
  /// `tern tokenize --target`). Error: kInvalidModel (naming the proto) when SentencePiece rejects it.
  static Result<std::unique_ptr<Tokenizer>> Create(const Model& model, Side side = Side::kSource);
  /// The model's one tokenizer of `side`, made by the first call and shared by every Translator on the model
  /// (thread-safe: every method is const; the piece encoder's scratch is thread-local). Errors as Create (from
  /// each call until one succeeds).
  static Result<std::shared_ptr<const Tokenizer>> Shared(const Model& model, Side side = Side::kSource);
  ~Tokenizer();

  /// Checks `text` (valid UTF-8, no NUL byte), takes off a leading language code, splits the rest into
  /// pieces and writes the ids (code first, then pieces, then eos_id) into ids[0..*n). A non-empty
  /// `target_lang` ("por") puts the id of ">>por<<" first instead of any code the text starts with.
  /// Errors (message without the sentence number; the caller adds it): kInvalidArgument "invalid UTF-8
  /// at byte N" / "NUL byte at byte N" / an unknown target_lang; kResourceExhausted when more than
  /// `capacity` ids would be needed (*n then says how many), or for a text over 2 GiB. Allocates only to grow a thread-local scratch
  /// (to the longest text the thread has encoded), or inside SentencePiece for a model neither unigram nor BPE.
  /// With `spans` (capacity entries): each id's byte range in `text`, the text it came from: the language
  /// code's (an empty span at 0 for a target_lang code the text lacks), SentencePiece's begin/end of each
  /// piece in the original text (normalization undone) without the space or tab a word-initial piece
  /// starts with, an empty span at the end for </s>.
  /// `truncate` (> 0): a text of more ids keeps its code, its first pieces and </s>, truncate ids in all
  /// (CTranslate2's max_input_length), instead of failing.
  Status Encode(std::string_view text, std::string_view target_lang, uint32_t* ids, size_t capacity, size_t* n,
                TextSpan* spans = nullptr, size_t truncate = 0) const;

  /// Writes the text of target `ids` into out[0..capacity) and returns its length in bytes: pieces
  /// concatenated, U+2581 (SentencePiece's word boundary) turned into a space and the leading space
  /// dropped, a run of byte pieces <0xNN> decoded as SentencePiece's ProcessBytePieces does (each UTF-8
  /// character its bytes spell, written once; U+FFFD for each byte that begins none, so the text is always
  /// valid UTF-8), unknown pieces written as " ⁇ ", </s> and pad skipped (what SentencePiece's DecodePieces
  /// gives for these models); then, when the model asks for
  /// it, transformers' clean_up_tokenization (" ." -> ".", " ?" -> "?", " !" -> "!", " ," -> ",",
  /// " ' " -> "'", " n't" -> "n't", " 'm" -> "'m", " 's" -> "'s", " 've" -> "'ve", " 're" -> "'re", in
  /// that order, each over the whole text). No allocation. Output beyond capacity is cut at a UTF-8
  /// boundary.
  ///
  /// With `spans` (n entries) and `scratch` (capacity entries): each token's byte range in the output text,
  /// what its piece wrote there without the space a word-initial piece starts with (</s>, pad and tokens cut
  /// by the capacity: an empty span at the end; a space the clean-up takes out leaves the span it was in).
  size_t Decode(const uint32_t* ids, size_t n, char* out, size_t capacity, TextSpan* spans = nullptr,
                uint32_t* scratch = nullptr) const;

  /// The text source `ids` spell, for a glossary to match ids given without their text (TranslateIds):
  /// the pieces one after another, U+2581 written as a space; an unknown piece, a language code, </s> and pad
  /// as one byte 0x01 (no glossary term holds a control character). Writes at most `capacity` bytes (a piece
  /// that does not fit is left out) and each id's bytes into spans[0..n). Returns the length. No allocation.
  size_t PiecesText(const uint32_t* ids, size_t n, char* out, size_t capacity, TextSpan* spans) const;

  /// Which piece encoder Encode uses: "unigram" or "bpe" (tern's, text/spm_encoder.h) or "sentencepiece" (the
  /// library, for other SentencePiece model types).
  const char* encoder_kind() const;
  /// Whether the encoder maps the file's piece trie (Tokenizer.source_piece_trie) rather than building one.
  bool piece_trie_from_file() const;

  /// Bytes Decode can need per token at most.
  size_t max_piece_bytes() const { return max_piece_bytes_; }

 private:
  Tokenizer() = default;
  const Model* model_ = nullptr;
  Side side_ = Side::kSource;
  std::unique_ptr<PieceEncoder> encoder_;  // text/piece_encoder.h
  PieceIndex ids_;  // piece -> id of the side's vocabulary
  size_t max_piece_bytes_ = 0;
};

/// The vocabulary piece of a target-language code: ">>" + lang + "<<".
std::string LanguageCode(std::string_view lang);

/// The language code `text` starts with, by MarianTokenizer.remove_language_code (transformers 5.x): text
/// that starts with ">>" up to and including the first "<<"; empty when there is none.
std::string_view LeadingLanguageCode(std::string_view text);

/// transformers' clean_up_tokenization on text[0..n) in place; returns the new length. With `origin` (n
/// entries), origin[i] is set to the position in the input of output byte i (the rules only delete spaces).
size_t CleanUpTokenization(char* text, size_t n, uint32_t* origin = nullptr);

/// Bytes Tokenizer::Decode can need per target token: the longest target piece, at least 6 (" ⁇ ",
/// the text of an unknown piece). Used to size the result text buffers.
size_t MaxPieceBytes(const Model& model);

/// Bytes Tokenizer::PiecesText can need per source token: the longest source piece, at least 1.
size_t MaxSourcePieceBytes(const Model& model);

/// Offset of the first invalid UTF-8 byte in `s`, or s.size() if it is valid (RFC 3629: no overlongs,
/// no surrogates, nothing above U+10FFFF).
size_t FindInvalidUtf8(std::string_view s);

}  // namespace tern
