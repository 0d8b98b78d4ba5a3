// Piece -> id of a vocabulary: an open-addressing table (linear probing) of ids into the vocabulary as the
// model stores it (PieceList), built in one allocation of 4 bytes x the next power of two >= 2 x
// pieces (512 KiB for OPUS-MT's 54,688 pieces, where a node-based map took about 2.6 MB and 54,688 allocations). Each slot
// holds id + 1 in its low bits and, in the bits the ids leave free (16 at OPUS-MT's size), the top bits of
// the piece's hash: a probe compares strings only when those match, so building reads each piece's bytes
// once, and a lookup of an absent piece rarely reads any. The first id of a piece that occurs twice wins, as with
// MarianTokenizer's vocab.json (a dict keeps one id).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "views.h"

namespace tern {

class PieceIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  /// Indexes `vocab` (which must outlive the index; at most 2^30 pieces). Throws std::bad_alloc only.
  void Build(const PieceList& vocab);
  /// The id of `piece`, or kNone.
  uint32_t Find(std::string_view piece) const;

 private:
  PieceList vocab_;  // a view: copies nothing
  std::vector<uint32_t> slots_;  // (tag << id_bits_) | (id + 1); 0 = empty
  size_t mask_ = 0;
  uint32_t id_bits_ = 32;        // bits of id + 1; the rest hold the tag
};

}  // namespace tern
