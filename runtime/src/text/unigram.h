// tern's own SentencePiece unigram encoder: the pieces SentencePiece 0.1.97 gives for a text (its Normalizer,
// unigram::Model::EncodeOptimized and PopulateSentencePieceText, read from its source; tests/test_unigram.cc
// compares the two on every Multi30k split, the real OPUS-MT tokenizers and fuzzed Unicode), without the
// library at encode time:
//
//   normalize: at each position the longest user-defined symbol, else the longest rule of the model's
//     precompiled_charsmap (a darts-clone double-array read in place, at most 32 matches as SentencePiece
//     reads them), else the character; leading, repeated and trailing whitespace dropped
//     (remove_extra_whitespaces), U+2581 first (add_dummy_prefix), spaces as U+2581 (escape_whitespaces);
//     each normalized byte keeps the offset of the input byte it came from;
//   segment: the Viterbi best path over the pieces' scores (NORMAL, USER_DEFINED, UNUSED pieces; UNUSED ones
//     never chosen; a user-defined symbol scores length x max_score - 0.1; a character no piece starts with is
//     one unknown piece scoring min_score - 10), ties to the first candidate found, in SentencePiece's float
//     arithmetic;
//   pieces: consecutive unknown pieces merged into one (or, with byte_fallback, each unknown character as its
//     <0xNN> byte pieces), each with its byte range in the input.
//
// Linear in the input (a piece is at most max_piece_bytes long), which SentencePiece's merging of unknown
// pieces is not (a run of n unknown characters cost O(n^2): 1 MB of '{' took 24 s). The piece trie is built
// once per model (an MSD radix sort of the pieces that is the BFS: children contiguous, sorted by byte). Models of another type
// (BPE, word, char) are not taken: Create says kUnsupported and the tokenizer keeps the library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/status.h"
#include "text/byte_trie.h"

namespace tern {

class UnigramEncoder {
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
    std::vector<uint32_t> ends;
  };

  /// From a serialized ModelProto that passed format::CheckSentencePieceModel. Errors: kUnsupported (not a
  /// unigram model, or a trainer option this encoder does not follow); kInvalidModel naming `where` for what
  /// SentencePiece refuses too (no unknown piece, a piece defined twice, byte pieces without byte_fallback or
  /// not all 256 of them, a broken charsmap, more than 2^24 pieces).
  static Result<std::unique_ptr<UnigramEncoder>> Create(std::string_view proto, const std::string& where);

  /// The pieces of `text` (valid UTF-8 without NUL bytes: the caller checks) into *out (cleared first),
  /// SentencePiece's. Allocates only to grow the scratch and *out.
  void Encode(std::string_view text, Scratch* scratch, std::vector<Piece>* out) const;

  /// The normalized text SentencePiece segments (tests).
  std::string Normalize(std::string_view text) const;

 private:
  UnigramEncoder() = default;
  // SentencePiece's OneCharLen: the length a UTF-8 lead byte announces (a continuation byte counts 1).
  static size_t Utf8CharLen(const char* p) { return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[(*p & 0xFF) >> 4]; }
  void NormalizeInto(std::string_view text, Scratch* s) const;
  // The longest match of the user-defined symbols at the start of w (0: none).
  size_t UserDefinedPrefix(std::string_view w) const;
  // The charsmap's longest rule at the start of w: its length and the replacement, or 0.
  size_t CharsMapPrefix(std::string_view w, std::string_view* replacement) const;

  std::vector<float> scores_;     // per piece id
  std::vector<uint8_t> types_;    // per piece id (ModelProto.SentencePiece.Type)
  ByteTrie pieces_, user_defined_;  // text/byte_trie.h
  int32_t unk_id_ = -1;
  float min_score_ = 0.f, max_score_ = 0.f;
  bool byte_fallback_ = false;
  bool add_dummy_prefix_ = true, remove_extra_whitespaces_ = true, escape_whitespaces_ = true;
  std::string charsmap_;                // NormalizerSpec.precompiled_charsmap (a copy)
  size_t n_units_ = 0;                  // 32-bit units of its double array (after the 4-byte size)
  std::string_view replacements_;       // its NUL-terminated replacement strings
};

}  // namespace tern
