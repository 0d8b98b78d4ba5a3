#include "sentencepiece_check.h"

#include <cstdint>
#include <cstring>

#include "proto_wire.h"

namespace tern::format {
namespace {

Status Bad(const std::string& what, const std::string& msg) {
  return Status(StatusCode::kInvalidModel, what + ": " + msg);
}

// darts-clone's DoubleArrayUnit accessors (third_party/darts_clone/darts.h in SentencePiece).
bool IsLeafUnit(uint32_t u) { return (u >> 31) != 0; }  // its label() has the MSB set: never matched
bool HasLeaf(uint32_t u) { return ((u >> 8) & 1) == 1; }
uint32_t Value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t Offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

Status CheckNormalizerSpec(std::string_view spec, const std::string& what) {
  ProtoWire w(spec);
  uint64_t value;
  while (w.p < w.end) {
    uint32_t number, type;
    std::string_view bytes;
    if (!w.Next(&number, &type, &value, &bytes)) return Bad(what, "malformed protobuf field");
    if (number == 2) {  // precompiled_charsmap
      if (type != 2) return Bad(what, "precompiled_charsmap is not a bytes field");
      TERN_RETURN_IF_ERROR(CheckPrecompiledCharsMap(bytes, what + ".precompiled_charsmap"));
    }
  }
  return Status::Ok();
}

// One ModelProto.pieces entry (SentencePiece message: piece = 1, score = 2, type = 3). SentencePiece hands
// the piece strings to darts-clone as C strings (unigram::Model::BuildTrie and the normalizer's
// PrefixMatcher pass no lengths), and darts-clone throws Darts::Details::Exception ("zero-length key",
// "invalid null character", "wrong key order") on a key that is empty or shortened by a NUL byte:
// through SentencePiece's C++ API that exception ends the process. So a piece must be non-empty and hold
// no NUL byte, which every model SentencePiece's trainer writes satisfies.
Status CheckPiece(std::string_view entry, uint64_t index, const std::string& what) {
  ProtoWire w(entry);
  uint64_t value;
  bool has_piece = false;
  while (w.p < w.end) {
    uint32_t number, type;
    std::string_view bytes;
    if (!w.Next(&number, &type, &value, &bytes)) return Bad(what, "piece " + std::to_string(index) + ": malformed protobuf field");
    if (number != 1) continue;
    if (type != 2) return Bad(what, "piece " + std::to_string(index) + ": its text is not a string field");
    if (bytes.empty()) return Bad(what, "piece " + std::to_string(index) + " is empty");
    if (const size_t nul = bytes.find('\0'); nul != std::string_view::npos)
      return Bad(what, "piece " + std::to_string(index) + " holds a NUL byte (at byte " + std::to_string(nul) + " of its text)");
    has_piece = true;
  }
  if (!has_piece) return Bad(what, "piece " + std::to_string(index) + " has no text");
  return Status::Ok();
}

}  // namespace

Status CheckPrecompiledCharsMap(std::string_view blob, const std::string& what) {
  if (blob.empty()) return Status::Ok();  // no rules: SentencePiece builds no trie
  if (blob.size() <= 4) return Bad(what, std::to_string(blob.size()) + " bytes, too short for the trie size");
  uint32_t trie_bytes;
  std::memcpy(&trie_bytes, blob.data(), 4);  // little-endian, as SentencePiece writes it
  const uint64_t rest = blob.size() - 4;
  if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > rest)
    return Bad(what, "trie size " + std::to_string(trie_bytes) + " is not a positive multiple of 4 within the " +
                         std::to_string(rest) + " bytes that follow it");
  const uint64_t n = trie_bytes / 4;
  const char* units = blob.data() + 4;
  const std::string_view strings = blob.substr(4 + trie_bytes);
  if (!strings.empty() && strings.back() != '\0')
    return Bad(what, "the replacement strings do not end with a NUL byte");
  auto unit = [&](uint64_t i) {
    uint32_t u;
    std::memcpy(&u, units + 4 * i, 4);
    return u;
  };
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t u = unit(i);
    // The search follows the root's offset unconditionally; any other unit only after its label matched
    // an input byte, which a leaf unit's label (MSB set) never does.
    if (i != 0 && IsLeafUnit(u)) continue;
    const uint64_t base = i ^ Offset(u);
    if ((base | 0xff) >= n)
      return Bad(what, "trie unit " + std::to_string(i) + " leads to units " + std::to_string(base & ~uint64_t{0xff}) +
                           ".." + std::to_string(base | 0xff) + ", outside the " + std::to_string(n) + "-unit trie");
    if (i != 0 && HasLeaf(u) && Value(unit(base)) >= strings.size())
      return Bad(what, "trie unit " + std::to_string(base) + " holds replacement offset " +
                           std::to_string(Value(unit(base))) + ", outside the " + std::to_string(strings.size()) +
                           " bytes of replacement strings");
  }
  return Status::Ok();
}

Status CheckSentencePieceModel(std::string_view proto, const std::string& what) {
  if (proto.empty()) return Bad(what, "empty SentencePiece model");
  ProtoWire w(proto);
  uint64_t value;
  uint64_t pieces = 0;
  while (w.p < w.end) {
    const size_t at = static_cast<size_t>(w.p - reinterpret_cast<const uint8_t*>(proto.data()));
    uint32_t number, type;
    std::string_view bytes;
    if (!w.Next(&number, &type, &value, &bytes))
      return Bad(what, "not a SentencePiece model: malformed protobuf field at byte " + std::to_string(at));
    if (number == 1) {  // pieces
      if (type != 2) return Bad(what, "piece " + std::to_string(pieces) + " is not a message");
      TERN_RETURN_IF_ERROR(CheckPiece(bytes, pieces++, what));
    }
    if (number == 3 || number == 5) {  // normalizer_spec, denormalizer_spec
      if (type != 2) return Bad(what, "normalizer spec is not a message");
      TERN_RETURN_IF_ERROR(CheckNormalizerSpec(bytes, what + (number == 3 ? ".normalizer_spec" : ".denormalizer_spec")));
    }
  }
  return Status::Ok();
}

}  // namespace tern::format
