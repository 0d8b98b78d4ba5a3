// The piece trie of a SentencePiece model (ModelProto): its NORMAL, USER_DEFINED and UNUSED pieces, text ->
// id (SentencePiece's `pieces_` map, which its unigram and BPE encoders search; CONTROL, UNKNOWN and BYTE
// pieces are its `reserved_id_map_` and are not in it). tern-convert builds it for the source model and
// writes it as Tokenizer.source_piece_trie (schema/tern.fbs), so that a load maps it instead of building it
// (docs/cold-start.md); the runtime's SentencePiece encoder (runtime/src/text/spm_encoder.h) checks a mapped
// one against the proto's pieces and builds the same trie itself when a file has none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "byte_trie.h"
#include "tern/status.h"

namespace tern::format {

/// ModelProto.SentencePiece.Type values that are keys of the piece trie: NORMAL (1, the default),
/// USER_DEFINED (4), UNUSED (5).
inline bool IsPieceTrieKey(uint64_t type) { return type == 1 || type == 4 || type == 5; }

/// The piece trie of `proto` (which passed CheckSentencePieceModel): values are piece ids. Errors:
/// kInvalidModel "<what>: ..." (a field that does not parse; "<piece> is already defined" for a key piece
/// that comes twice, which SentencePiece refuses too), kResourceExhausted (no memory).
Result<ByteTrie> BuildPieceTrie(std::string_view proto, const std::string& what);

}  // namespace tern::format
