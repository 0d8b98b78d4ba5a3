#include "piece_trie.h"

#include <new>
#include <utility>
#include <vector>

#include "proto_wire.h"

namespace tern::format {

Result<ByteTrie> BuildPieceTrie(std::string_view proto, const std::string& what) {
  auto bad = [&](const std::string& why) { return Status(StatusCode::kInvalidModel, what + ": " + why); };
  std::vector<std::pair<std::string_view, int32_t>> keys;
  ProtoWire w(proto);
  uint32_t number, type;
  uint64_t v;
  std::string_view bytes;
  int32_t id = 0;
  try {
    while (!w.done()) {
      if (!w.Next(&number, &type, &v, &bytes)) return bad("a ModelProto field does not parse");
      if (number != 1 || type != 2) continue;
      if (id == INT32_MAX) return bad("more than 2^31 pieces");
      std::string_view text;
      uint64_t kind = 1;  // NORMAL
      ProtoWire pw(bytes);
      while (!pw.done()) {
        std::string_view b;
        uint64_t x = 0;
        if (!pw.Next(&number, &type, &x, &b)) return bad("piece " + std::to_string(id) + ": a field does not parse");
        if (number == 1 && type == 2) text = b;
        if (number == 3 && type == 0) kind = x;
      }
      if (IsPieceTrieKey(kind)) keys.emplace_back(text, id);
      ++id;
    }
    ByteTrie trie;
    std::string_view duplicate;
    if (!trie.Build(&keys, &duplicate)) return bad(std::string(duplicate) + " is already defined");
    return trie;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, what + ": no memory for the piece trie");
  }
}

}  // namespace tern::format
