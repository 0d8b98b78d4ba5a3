// ByteTrie: a set of byte strings with an int32 value each, as contiguous arrays in BFS order (a node's
// children are consecutive and sorted by byte). Built once from the keys by an MSD radix sort that is the BFS
// (each key moved once per byte, no comparison sort); walked a byte at a time (Child). The SentencePiece
// encoder's pieces and user-defined symbols (text/spm_encoder.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace tern {

struct ByteTrie {
  // Node i: children [first[i], first[i] + count[i]) (labels sorted), value[i] the key's value ending here or -1.
  std::vector<uint32_t> first;
  std::vector<uint16_t> count;
  std::vector<uint8_t> label;
  std::vector<int32_t> value;
  uint32_t root_child[256] = {};  // 0: none (the root is node 0)
  size_t max_key = 0;             // the longest key, bytes

  /// From keys in value order (reordered): the first key of a string keeps its value. False, with
  /// *duplicate (when not null), when a string comes twice. May throw std::bad_alloc.
  bool Build(std::vector<std::pair<std::string_view, int32_t>>* keys, std::string_view* duplicate);
  /// The child of `node` by byte b; 0 when there is none.
  uint32_t Child(uint32_t node, uint8_t b) const;
  /// The value of `key`, or -1 when it is not a key.
  int32_t Find(std::string_view key) const;
};

}  // namespace tern
