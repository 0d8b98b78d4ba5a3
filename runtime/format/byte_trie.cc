#include "byte_trie.h"

#include <algorithm>
#include <iterator>
#include <new>

namespace tern::format {

bool ByteTrie::Build(std::vector<std::pair<std::string_view, int32_t>>* keys, std::string_view* duplicate) {
  // An MSD radix sort that is the BFS: each node's range of keys is split by the byte at its depth, stably
  // (the keys come in id order, so the first id of a key is the one a node keeps, as InsertIfNotPresent keeps
  // the first definition). Each key is moved once per byte: no comparison sort, no memcmp.
  std::vector<std::pair<std::string_view, int32_t>>& k = *keys;
  std::vector<std::pair<std::string_view, int32_t>> tmp(k.size());
  first_.assign(1, 0), count_.assign(1, 0), label_.assign(1, 0), value_.assign(1, -1);
  first_.reserve(k.size() * 3), count_.reserve(k.size() * 3), label_.reserve(k.size() * 3), value_.reserve(k.size() * 3);
  std::fill(std::begin(root_child_), std::end(root_child_), 0u);
  max_key_ = 0, keys_ = 0;
  arrays_ = {};
  struct Range {
    uint32_t node, lo, hi, depth;
  };
  std::vector<Range> level{{0, 0, static_cast<uint32_t>(k.size()), 0}}, next;
  uint32_t counts[257];
  while (!level.empty()) {
    next.clear();
    for (const Range& r : level) {
      // Bucket 0: keys that end at this depth; bucket 1 + b: keys whose byte here is b.
      auto bucket = [&](uint32_t i) -> uint32_t {
        const std::string_view key = k[i].first;
        return key.size() == r.depth ? 0 : 1u + static_cast<uint8_t>(key[r.depth]);
      };
      const uint32_t n = r.hi - r.lo;
      if (n <= 16) {  // a stable insertion sort by bucket
        for (uint32_t i = r.lo + 1; i < r.hi; ++i) {
          const auto item = k[i];
          const uint32_t b = bucket(i);
          uint32_t j = i;
          while (j > r.lo && bucket(j - 1) > b) k[j] = k[j - 1], --j;
          k[j] = item;
        }
      } else {  // a stable counting sort
        std::fill(std::begin(counts), std::end(counts), 0u);
        for (uint32_t i = r.lo; i < r.hi; ++i) ++counts[bucket(i)];
        uint32_t at = r.lo;
        for (uint32_t& c : counts) {
          const uint32_t m = c;
          c = at, at += m;
        }
        for (uint32_t i = r.lo; i < r.hi; ++i) tmp[counts[bucket(i)]++] = k[i];
        std::copy(tmp.begin() + r.lo, tmp.begin() + r.hi, k.begin() + r.lo);
      }
      uint32_t lo = r.lo;
      if (lo < r.hi && k[lo].first.size() == r.depth) {  // a key ends here; another one ending here is a duplicate
        value_[r.node] = k[lo++].second;
        ++keys_;
        max_key_ = std::max<size_t>(max_key_, r.depth);
        if (lo < r.hi && k[lo].first.size() == r.depth) {
          if (duplicate) *duplicate = k[lo].first;
          return false;
        }
      }
      first_[r.node] = static_cast<uint32_t>(label_.size());
      uint16_t children = 0;
      for (uint32_t i = lo; i < r.hi;) {
        const auto b = static_cast<uint8_t>(k[i].first[r.depth]);
        uint32_t j = i + 1;
        while (j < r.hi && static_cast<uint8_t>(k[j].first[r.depth]) == b) ++j;
        const auto node = static_cast<uint32_t>(label_.size());
        first_.push_back(0), count_.push_back(0), label_.push_back(b), value_.push_back(-1);
        if (r.node == 0) root_child_[b] = node;
        next.push_back({node, i, j, r.depth + 1});
        ++children;
        i = j;
      }
      count_[r.node] = children;
    }
    level.swap(next);
  }
  arrays_ = {first_.data(), count_.data(), label_.data(), value_.data(), label_.size()};
  return true;
}

Status ByteTrie::Adopt(const ByteTrieArrays& a, const std::string& what) {
  auto bad = [&](uint64_t node, const std::string& why) {
    *this = ByteTrie();
    return Status(StatusCode::kInvalidModel, what + ": node " + std::to_string(node) + ": " + why);
  };
  *this = ByteTrie();
  if (a.nodes == 0 || !a.first || !a.count || !a.label || !a.value)
    return Status(StatusCode::kInvalidModel, what + ": no nodes (at least the root)");
  if (a.nodes > (uint64_t{1} << 31)) return Status(StatusCode::kInvalidModel, what + ": more than 2^31 nodes");
  if (a.value[0] != -1) return bad(0, "the root holds a key (an empty string)");
  // Node i's children must be the next unassigned nodes: `next` is the first node no earlier node has as a
  // child. A node at or past `next` has no parent (unreachable, or a cycle).
  uint64_t next = 1, level_end = 1;
  size_t depth = 0, max_key = 0, keys = 0;
  for (uint64_t i = 0; i < a.nodes; ++i) {
    if (i > 0 && i >= next) return bad(i, "is no earlier node's child");
    if (i == level_end) ++depth, level_end = next;  // the nodes of one depth end where their children begin
    if (a.value[i] >= 0) max_key = std::max(max_key, depth), ++keys;
    const uint32_t n = a.count[i];
    if (n == 0) continue;
    if (a.first[i] != next)
      return bad(i, "its children begin at node " + std::to_string(a.first[i]) + ", not at " + std::to_string(next));
    if (n > 256 || next + n > a.nodes)
      return bad(i, "its " + std::to_string(n) + " children end past the " + std::to_string(a.nodes) + " nodes");
    for (uint64_t c = next + 1; c < next + n; ++c)
      if (a.label[c] <= a.label[c - 1]) return bad(i, "its children's labels are not strictly increasing");
    next += n;
  }
  if (next != a.nodes) return bad(next, "is no node's child");
  arrays_ = a;
  max_key_ = max_key;
  keys_ = keys;
  for (uint32_t c = a.first[0]; c < a.first[0] + a.count[0]; ++c) root_child_[a.label[c]] = c;
  return Status::Ok();
}

Status ByteTrie::CheckKeys(const std::vector<uint64_t>& key_hash, size_t n_keys, const std::string& what) const {
  const ByteTrieArrays& a = arrays_;
  std::vector<uint64_t> path;
  try {
    path.resize(a.nodes);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, what + ": no memory to check the trie's keys");
  }
  if (a.nodes) path[0] = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < a.nodes; ++i) {  // a parent comes before its children (Adopt checked)
    for (uint32_t c = a.first[i], end = a.first[i] + a.count[i]; c < end; ++c)
      path[c] = (path[i] ^ a.label[c]) * 0x100000001b3ull;
    const int32_t v = a.value[i];
    if (v < 0) continue;
    if (static_cast<uint64_t>(v) >= key_hash.size() || key_hash[v] != (path[i] | 1))
      return Status(StatusCode::kInvalidModel, what + ": node " + std::to_string(i) + " holds id " + std::to_string(v) +
                                                   ", which is not the piece its path spells");
  }
  if (keys_ != n_keys)
    return Status(StatusCode::kInvalidModel, what + ": it holds " + std::to_string(keys_) + " keys, the model has " +
                                                 std::to_string(n_keys));
  return Status::Ok();
}

uint32_t ByteTrie::Child(uint32_t node, uint8_t b) const {
  if (node == 0) return root_child_[b];
  const uint32_t lo = arrays_.first[node], n = arrays_.count[node];
  const uint8_t* label = arrays_.label;
  if (n <= 8) {
    for (uint32_t i = lo; i < lo + n; ++i)
      if (label[i] == b) return i;
    return 0;
  }
  const uint8_t* begin = label + lo;
  const uint8_t* it = std::lower_bound(begin, begin + n, b);
  return it != begin + n && *it == b ? lo + static_cast<uint32_t>(it - begin) : 0;
}

int32_t ByteTrie::Find(std::string_view key) const {
  if (arrays_.nodes == 0) return -1;
  uint32_t node = 0;
  for (const char c : key)
    if ((node = Child(node, static_cast<uint8_t>(c))) == 0) return -1;
  return arrays_.value[node];
}

}  // namespace tern::format
