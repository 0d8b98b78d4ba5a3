// PieceEncoder: a text's SentencePiece pieces with their byte ranges, by tern's own encoder (text/spm_encoder.h:
// unigram models, which every OPUS-MT model is, and BPE ones) or, for any other model, the SentencePiece
// library. The one place the tokenizer gets pieces from; what it builds at load is what a cold start waits for
// (docs/cold-start.md): tern's encoder builds one piece trie by a radix sort (text/byte_trie.h), where
// SentencePiece's LoadFromSerializedProto parses the protobuf and builds darts-clone tries.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "byte_trie.h"
#include "tern/status.h"
#include "text/piece_text.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace tern {

class SpmEncoder;

/// A SentencePiece processor from `proto`, or kInvalidModel "<where>SentencePiece failed to load it: ..." /
/// "<where><SentencePiece's status>" (an exception from the library is caught, never the process's end).
Result<std::unique_ptr<sentencepiece::SentencePieceProcessor>> ParseSentencePiece(std::string_view proto,
                                                                                 const std::string& where);

class PieceEncoder {
 public:
  /// From a serialized ModelProto that passed format::CheckSentencePieceModel: tern's encoder when the model is
  /// one it follows exactly, else SentencePiece's processor (its refusal is this model's error).
  /// `force_library` (TERN_SENTENCEPIECE=library in the environment, for comparisons) takes the library
  /// always. Errors: kInvalidModel "<where>..." (SentencePiece's message), kResourceExhausted.
  /// `piece_trie` (optional; nodes 0: none): the file's trie of the proto's pieces (format/piece_trie.h), which
  /// tern's encoder checks and maps instead of building its own; with one, what tern's encoder refuses as
  /// kInvalidModel is the model's error (a trie that fails its check: "<where>tokenizer.source_piece_trie: ...").
  static Result<std::unique_ptr<PieceEncoder>> Load(std::string_view proto, const std::string& where,
                                                    const format::ByteTrieArrays* piece_trie = nullptr);
  ~PieceEncoder();

  /// The pieces of `text` (valid UTF-8 without NUL bytes; the caller checks) into *out, each with its byte
  /// range [begin, end) in `text`: SentencePiece's SentencePieceText pieces. A piece's text is valid until
  /// the calling thread encodes again (a thread-local scratch, grown to the longest text seen, holds it).
  /// Thread-safe. Error: kInternal when the library's output does not parse (the library path only).
  Status Encode(std::string_view text, std::vector<PieceSpan>* out) const;

  /// "unigram" or "bpe" (tern's encoder), or "sentencepiece" (the library).
  const char* kind() const;
  /// Whether tern's encoder maps the file's piece trie (Load's `piece_trie`) rather than building one.
  bool piece_trie_from_file() const;

 private:
  PieceEncoder() = default;
  std::unique_ptr<SpmEncoder> own_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> library_;
};

}  // namespace tern
