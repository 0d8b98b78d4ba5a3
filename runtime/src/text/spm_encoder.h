// tern's own SentencePiece encoder: the pieces SentencePiece 0.1.97 gives for a text with a unigram or a BPE
// model (its Normalizer, unigram::Model::EncodeOptimized, bpe::Model::SampleEncode without dropout and
// SentencePieceProcessor::PopulateSentencePieceText, read from its source; tests/test_spm_encoder.cc compares
// the two on every Multi30k split, the real OPUS-MT tokenizers, the test models' BPE ones and fuzzed Unicode),
// without the library at encode time:
//
//   normalize: at each position the longest user-defined symbol, else the longest rule of the model's
//     precompiled_charsmap (a darts-clone double-array read in place, at most 32 matches as SentencePiece
//     reads them), else the character; leading, repeated and trailing whitespace dropped
//     (remove_extra_whitespaces), U+2581 first (add_dummy_prefix), spaces as U+2581 (escape_whitespaces);
//     each normalized byte keeps the offset of the input byte it came from;
//   segment, unigram: the Viterbi best path over the pieces' scores (NORMAL, USER_DEFINED, UNUSED pieces;
//     UNUSED ones never chosen; a user-defined symbol scores length x max_score - 0.1; a character no piece
//     starts with is one unknown piece scoring min_score - 10), ties to the first candidate found, in
//     SentencePiece's float arithmetic;
//   segment, BPE: characters (user-defined symbols frozen whole), then the adjacent pair whose concatenation is
//     the best-scoring piece merged first (ties to the leftmost), in SentencePiece's heap order; an UNUSED piece
//     split back into the pair that made it;
//   pieces: consecutive unknown pieces merged into one (or, with byte_fallback, each unknown character as its
//     <0xNN> byte pieces), each with its byte range in the input.
//
// Linear in the input for unigram and O(n log n) for BPE (a piece is at most max_key bytes long), which
// SentencePiece's merging of unknown pieces is not (a run of n unknown characters cost O(n^2): 1 MB of '{' took
// 24 s). The piece trie is built once per model (format/byte_trie.h), or mapped from the file, where tern-convert
// wrote it (format/piece_trie.h). Models of another type (word, char) or
// with treat_whitespace_as_suffix are not taken: Create says kUnsupported and the tokenizer keeps the library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tern/status.h"
#include "byte_trie.h"

namespace tern {

class SpmEncoder {
 public:
  /// One piece of an encoded text: its text (valid until the scratch is used again), whether it is the unknown
  /// piece (a merged run of unknown characters), and its bytes [begin, end) in the input.
  struct Piece {
    std::string_view text;
    bool unknown = false;
    uint32_t begin = 0, end = 0;
  };
  /// What one Encode works in (grown to the longest input seen; reusable, one thread at a time).
  struct Scratch {
    std::string normalized;
    std::vector<uint32_t> norm_to_orig;
    std::vector<float> score;
    std::vector<int32_t> start, id;
    struct Segment {
      uint32_t length;  // normalized bytes
      int32_t id;       // the piece's id (unk_id for an unknown character)
    };
    std::vector<Segment> segments;  // the model's segmentation, in order
    // BPE's symbols, candidate pairs and heap (scratch/spm_bpe.cc), and the UNUSED pieces' splits.
    struct Symbol {
      int32_t prev, next;
      uint32_t begin, length;
      bool freeze;
    };
    struct Pair {
      int32_t left, right;
      float score;
      uint32_t size;
    };
    std::vector<Symbol> symbols;
    std::vector<Pair> pairs;
    std::vector<uint32_t> heap, stack;
    std::unordered_map<std::string_view, uint32_t> unused_split;  // piece -> its left part's length
  };

  /// From a serialized ModelProto that passed format::CheckSentencePieceModel. Errors: kUnsupported (neither
  /// a unigram nor a BPE model, or a trainer option this encoder does not follow); kInvalidModel naming `where` for what
  /// SentencePiece refuses too (no unknown piece, a piece defined twice, byte pieces without byte_fallback or
  /// not all 256 of them, a broken charsmap, more than 2^24 pieces).
  /// `piece_trie` (optional; nodes 0: none): the trie of the proto's pieces tern-convert wrote
  /// (format/piece_trie.h), taken in place of building one after ByteTrie::Adopt's check and a check that its
  /// keys are exactly the proto's NORMAL, USER_DEFINED and UNUSED pieces, each with its id (a Find per piece
  /// and a count of the keys); the arrays must outlive the encoder. A trie that fails: kInvalidModel
  /// "<where>tokenizer.source_piece_trie: ...".
  static Result<std::unique_ptr<SpmEncoder>> Create(std::string_view proto, const std::string& where,
                                                    const format::ByteTrieArrays* piece_trie = nullptr);

  /// The pieces of `text` (valid UTF-8 without NUL bytes: the caller checks) into *out (cleared first),
  /// SentencePiece's. Allocates only to grow the scratch and *out.
  void Encode(std::string_view text, Scratch* scratch, std::vector<Piece>* out) const;

  /// The normalized text SentencePiece segments (tests).
  std::string Normalize(std::string_view text) const;

  /// "unigram" or "bpe".
  const char* model_type() const { return bpe_ ? "bpe" : "unigram"; }
  /// Whether the piece trie is the file's (Create's `piece_trie`) rather than built here.
  bool piece_trie_from_file() const { return piece_trie_from_file_; }

 private:
  SpmEncoder() = default;
  // SentencePiece's OneCharLen: the length a UTF-8 lead byte announces (a continuation byte counts 1).
  static size_t Utf8CharLen(const char* p) { return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[(*p & 0xFF) >> 4]; }
  void NormalizeInto(std::string_view text, Scratch* s) const;
  // The longest match of the user-defined symbols at the start of w (0: none).
  size_t UserDefinedPrefix(std::string_view w) const;
  // The charsmap's longest rule at the start of w: its length and the replacement, or 0.
  size_t CharsMapPrefix(std::string_view w, std::string_view* replacement) const;
  // The model's segmentation of s->normalized into s->segments.
  void SegmentUnigram(Scratch* s) const;
  void SegmentBpe(Scratch* s) const;  // text/spm_bpe.cc
  // SentencePiece's PieceToId: a CONTROL, UNKNOWN or BYTE piece's id, else a NORMAL, USER_DEFINED or UNUSED
  // piece's, else unk_id.
  int32_t PieceToId(std::string_view piece) const;

  std::vector<float> scores_;     // per piece id
  std::vector<uint8_t> types_;    // per piece id (ModelProto.SentencePiece.Type)
  format::ByteTrie pieces_, user_defined_, reserved_;  // format/byte_trie.h; reserved_: CONTROL, UNKNOWN, BYTE pieces
  int32_t unk_id_ = -1;
  float min_score_ = 0.f, max_score_ = 0.f;
  bool byte_fallback_ = false;
  bool bpe_ = false;  // TrainerSpec.model_type BPE (else unigram)
  bool piece_trie_from_file_ = false;
  bool add_dummy_prefix_ = true, remove_extra_whitespaces_ = true, escape_whitespaces_ = true;
  std::string charsmap_;                // NormalizerSpec.precompiled_charsmap (a copy)
  size_t n_units_ = 0;                  // 32-bit units of its double array (after the 4-byte size)
  std::string_view replacements_;       // its NUL-terminated replacement strings
};

}  // namespace tern
