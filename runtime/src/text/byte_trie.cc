#include "text/byte_trie.h"

#include <algorithm>
#include <iterator>

namespace tern {

bool ByteTrie::Build(std::vector<std::pair<std::string_view, int32_t>>* keys, std::string_view* duplicate) {
  // An MSD radix sort that is the BFS: each node's range of keys is split by the byte at its depth, stably
  // (the keys come in id order, so the first id of a key is the one a node keeps, as InsertIfNotPresent keeps
  // the first definition). Each key is moved once per byte: no comparison sort, no memcmp.
  std::vector<std::pair<std::string_view, int32_t>>& k = *keys;
  std::vector<std::pair<std::string_view, int32_t>> tmp(k.size());
  first.assign(1, 0), count.assign(1, 0), label.assign(1, 0), value.assign(1, -1);
  first.reserve(k.size() * 2), count.reserve(k.size() * 2), label.reserve(k.size() * 2), value.reserve(k.size() * 2);
  std::fill(std::begin(root_child), std::end(root_child), 0u);
  max_key = 0;
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
        value[r.node] = k[lo++].second;
        max_key = std::max<size_t>(max_key, r.depth);
        if (lo < r.hi && k[lo].first.size() == r.depth) {
          if (duplicate) *duplicate = k[lo].first;
          return false;
        }
      }
      first[r.node] = static_cast<uint32_t>(label.size());
      uint16_t children = 0;
      for (uint32_t i = lo; i < r.hi;) {
        const auto b = static_cast<uint8_t>(k[i].first[r.depth]);
        uint32_t j = i + 1;
        while (j < r.hi && static_cast<uint8_t>(k[j].first[r.depth]) == b) ++j;
        const auto node = static_cast<uint32_t>(label.size());
        first.push_back(0), count.push_back(0), label.push_back(b), value.push_back(-1);
        if (r.node == 0) root_child[b] = node;
        next.push_back({node, i, j, r.depth + 1});
        ++children;
        i = j;
      }
      count[r.node] = children;
    }
    level.swap(next);
  }
  return true;
}

uint32_t ByteTrie::Child(uint32_t node, uint8_t b) const {
  if (node == 0) return root_child[b];
  const uint32_t lo = first[node], n = count[node];
  if (n <= 8) {
    for (uint32_t i = lo; i < lo + n; ++i)
      if (label[i] == b) return i;
    return 0;
  }
  const uint8_t* begin = label.data() + lo;
  const uint8_t* it = std::lower_bound(begin, begin + n, b);
  return it != begin + n && *it == b ? lo + static_cast<uint32_t>(it - begin) : 0;
}

int32_t ByteTrie::Find(std::string_view key) const {
  uint32_t node = 0;
  for (const char c : key)
    if ((node = Child(node, static_cast<uint8_t>(c))) == 0) return -1;
  return value[node];
}

}  // namespace tern
