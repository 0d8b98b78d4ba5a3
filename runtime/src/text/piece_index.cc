#include "text/piece_index.h"

#include <functional>

namespace tern {

void PieceIndex::Build(const std::vector<std::string_view>& vocab) {
  vocab_ = &vocab;
  size_t n = 16;
  while (n < 2 * vocab.size()) n *= 2;
  slots_.assign(n, 0);
  mask_ = n - 1;
  for (size_t id = 0; id < vocab.size(); ++id) {
    for (size_t s = std::hash<std::string_view>()(vocab[id]) & mask_;; s = (s + 1) & mask_) {
      if (slots_[s] == 0) {
        slots_[s] = static_cast<uint32_t>(id + 1);
        break;
      }
      if (vocab[slots_[s] - 1] == vocab[id]) break;  // a duplicate piece keeps its first id
    }
  }
}

uint32_t PieceIndex::Find(std::string_view piece) const {
  if (slots_.empty()) return kNone;
  for (size_t s = std::hash<std::string_view>()(piece) & mask_;; s = (s + 1) & mask_) {
    const uint32_t v = slots_[s];
    if (v == 0) return kNone;
    if ((*vocab_)[v - 1] == piece) return v - 1;
  }
}

}  // namespace tern
