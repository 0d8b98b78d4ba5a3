// SpmEncoder's BPE segmentation: SentencePiece 0.1.97's bpe::Model::SampleEncode without dropout (alpha 0),
// step for step: the same symbols, the same candidate pairs pushed in the same order onto a binary heap
// ordered as its SymbolPairComparator (higher score first, then the leftmost), so the same merges in the same
// order (std::push_heap / std::pop_heap are what its std::priority_queue runs).
#include <algorithm>

#include "text/spm_encoder.h"

namespace tern {

void SpmEncoder::SegmentBpe(Scratch* s) const {
  const std::string& norm = s->normalized;
  auto& symbols = s->symbols;
  auto& pairs = s->pairs;
  auto& heap = s->heap;
  symbols.clear(), pairs.clear(), heap.clear(), s->unused_split.clear();
  // Characters, a user-defined symbol whole and frozen (PrefixMatcher::PrefixMatch).
  for (uint32_t at = 0; at < norm.size();) {
    const size_t user = UserDefinedPrefix(std::string_view(norm).substr(at));
    const auto n = static_cast<uint32_t>(user ? user : std::min(Utf8CharLen(norm.data() + at), norm.size() - at));
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({index - 1, at + n < norm.size() ? index + 1 : -1, at, n, user > 0});
    at += n;
  }
  // SymbolPairComparator as a heap's "less": the top is the highest score, then the smallest left.
  auto less = [&pairs](uint32_t a, uint32_t b) {
    const Scratch::Pair &h1 = pairs[a], &h2 = pairs[b];
    return h1.score < h2.score || (h1.score == h2.score && h1.left > h2.left);
  };
  auto maybe_add = [&](int32_t left, int32_t right) {
    if (left == -1 || right == -1 || symbols[left].freeze || symbols[right].freeze) return;
    const std::string_view piece(norm.data() + symbols[left].begin, symbols[left].length + symbols[right].length);
    const int32_t id = pieces_.Find(piece);
    if (id < 0) return;
    pairs.push_back({left, right, scores_[id], static_cast<uint32_t>(piece.size())});
    heap.push_back(static_cast<uint32_t>(pairs.size() - 1));
    std::push_heap(heap.begin(), heap.end(), less);
    if (types_[id] == 5 /* UNUSED */) s->unused_split.insert_or_assign(piece, symbols[left].length);
  };
  for (size_t i = 1; i < symbols.size(); ++i) maybe_add(static_cast<int32_t>(i - 1), static_cast<int32_t>(i));
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), less);
    const Scratch::Pair top = pairs[heap.back()];
    heap.pop_back();
    Scratch::Symbol &l = symbols[top.left], &r = symbols[top.right];
    if (l.length == 0 || r.length == 0 || l.length + r.length != top.size) continue;  // no longer there
    l.length += r.length;
    l.next = r.next;
    if (r.next >= 0) symbols[r.next].prev = top.left;
    r.length = 0;
    maybe_add(l.prev, top.left);
    maybe_add(top.left, l.next);
  }
  // Each symbol's piece; an UNUSED one split back into its parts, left first (an explicit stack).
  auto& stack = s->stack;
  for (int32_t index = 0; index != -1; index = symbols[index].next) {
    stack.assign(1, symbols[index].length);
    uint32_t at = symbols[index].begin;
    while (!stack.empty()) {
      const uint32_t length = stack.back();
      stack.pop_back();
      const std::string_view w(norm.data() + at, length);
      const int32_t id = PieceToId(w);
      const auto split = types_[id] == 5 ? s->unused_split.find(w) : s->unused_split.end();
      if (split == s->unused_split.end()) {
        s->segments.push_back({length, id});
        at += length;
      } else {
        stack.push_back(length - split->second), stack.push_back(split->second);  // left on top
      }
    }
  }
}

}  // namespace tern
