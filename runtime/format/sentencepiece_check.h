// Checks a serialized SentencePiece model (ModelProto) before SentencePiece parses it.
//
// SentencePiece trusts the normalization rules embedded in a model: NormalizerSpec.precompiled_charsmap
// is a darts-clone double-array trie (units of 32 bits) followed by the NUL-separated replacement strings,
// and the normalizer follows the trie's offsets and reads the strings with no bounds checks, so a crafted
// blob makes it read outside the model (a crash, or worse). This check walks the protobuf wire format of
// the ModelProto (every field well formed, lengths inside the blob) and, for the normalizer and the
// denormalizer, proves that every read the normalizer can make stays inside the blob:
//   - the trie's size is a whole number of units and leaves room for the strings;
//   - for every non-leaf unit u at index i, the block i ^ offset(u) the search steps into is inside the
//     trie for every byte of input (darts-clone's commonPrefixSearch: next = (i ^ offset) ^ byte);
//   - for every unit with a leaf, the leaf's value indexes the strings, which end with a NUL.
// Units are read as darts-clone does (darts.h: has_leaf, value, label, offset).
// It also checks every piece's text: non-empty and free of NUL bytes, because SentencePiece builds
// darts-clone tries from the pieces as C strings and darts-clone throws (std::terminate through
// SentencePiece) on an empty key or one a NUL byte cuts short.
#pragma once

#include <string>
#include <string_view>

#include "tern/status.h"

namespace tern::format {

/// kInvalidModel naming `what` (e.g. "tokenizer.source_spm") and the fault (field, piece or unit index,
/// offset) when the blob is not a well-formed ModelProto, a piece is empty or holds a NUL byte, or a
/// charsmap could make SentencePiece read outside it.
Status CheckSentencePieceModel(std::string_view proto, const std::string& what);

/// The check of one precompiled_charsmap blob (exposed for tests).
Status CheckPrecompiledCharsMap(std::string_view blob, const std::string& what);

}  // namespace tern::format
