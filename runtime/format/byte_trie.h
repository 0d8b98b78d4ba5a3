// ByteTrie: a set of byte strings with an int32 value each, as four arrays in BFS order: node 0 is the root,
// node i's children are nodes [first[i], first[i] + count[i]) with strictly increasing labels (a node's
// children are consecutive, and the children of node i come before those of node i + 1), value[i] is the
// value of the key ending at node i or -1. Built from the keys by an MSD radix sort that is the BFS (each
// key moved once per byte, no comparison sort), or adopted from arrays someone else holds (the .tern file's
// Tokenizer.source_piece_trie, which tern-convert builds with Build: format/piece_trie.h) after a check that
// makes every walk stay inside them. Walked a byte at a time (Child). The SentencePiece encoder's pieces and
// user-defined symbols (runtime/src/text/spm_encoder.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tern/status.h"

namespace tern::format {

/// A trie's arrays, each `nodes` long (see above). Views: whoever made them keeps them alive.
struct ByteTrieArrays {
  const uint32_t* first = nullptr;
  const uint16_t* count = nullptr;
  const uint8_t* label = nullptr;
  const int32_t* value = nullptr;
  size_t nodes = 0;
};

class ByteTrie {
 public:
  ByteTrie() = default;
  ByteTrie(ByteTrie&&) = default;  // the vectors' buffers move with them: arrays_ stays valid
  ByteTrie& operator=(ByteTrie&&) = default;
  ByteTrie(const ByteTrie&) = delete;
  ByteTrie& operator=(const ByteTrie&) = delete;

  /// From keys in value order (reordered): the first key of a string keeps its value. False, with
  /// *duplicate (when not null), when a string comes twice. May throw std::bad_alloc.
  bool Build(std::vector<std::pair<std::string_view, int32_t>>* keys, std::string_view* duplicate);
  /// Takes `a` as this trie's arrays (not copied: they must outlive it) after checking, in one pass over
  /// them, that every walk stays inside: at least the root, at most 2^31 nodes, the root no key (no empty
  /// string), every node after the root the child of exactly one earlier node, the children ranges
  /// consecutive in node order and inside the arrays, labels strictly increasing among siblings. Values are
  /// not checked (the caller knows their range). Error: kInvalidModel "<what>: node N ..." (this trie is then
  /// empty).
  Status Adopt(const ByteTrieArrays& a, const std::string& what);

  /// FNV-1a (64-bit) of `key`'s bytes with the low bit set (never 0): what CheckKeys compares.
  static uint64_t KeyHash(std::string_view key) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : key) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
    return h | 1;
  }
  /// Checks that this trie's keys are the caller's, in one pass over the nodes (a sequential one: a Find per
  /// key walks the arrays at random, as slow as building the trie): every node holding a value v has
  /// v < key_hash.size() and key_hash[v] == KeyHash(the node's path), and `n_keys` nodes hold one (the ids
  /// whose key_hash the caller set, 0 for an id that is no key: a one-to-one match, up to FNV-1a
  /// collisions). A temporary of 8 bytes per node. Errors: kInvalidModel "<what>: node N ...",
  /// kResourceExhausted.
  Status CheckKeys(const std::vector<uint64_t>& key_hash, size_t n_keys, const std::string& what) const;

  /// The child of `node` by byte b; 0 when there is none.
  uint32_t Child(uint32_t node, uint8_t b) const;
  /// The value of `key`, or -1 when it is not a key.
  int32_t Find(std::string_view key) const;
  /// The value at `node` (< nodes()), or -1.
  int32_t value(uint32_t node) const { return arrays_.value[node]; }

  size_t nodes() const { return arrays_.nodes; }
  /// Nodes that hold a key (a value >= 0).
  size_t keys() const { return keys_; }
  /// The longest key, bytes.
  size_t max_key() const { return max_key_; }
  /// The arrays (the built vectors' or the adopted ones): what tern-convert writes.
  const ByteTrieArrays& arrays() const { return arrays_; }

 private:
  std::vector<uint32_t> first_;  // when built
  std::vector<uint16_t> count_;
  std::vector<uint8_t> label_;
  std::vector<int32_t> value_;
  ByteTrieArrays arrays_;
  uint32_t root_child_[256] = {};  // 0: none (the root is node 0)
  size_t max_key_ = 0;
  size_t keys_ = 0;
};

}  // namespace tern::format
