// ProtoWire: a protobuf wire-format reader over [p, end) -- fields as (number, wire type, varint value or
// fixed32 bits, length-delimited bytes). Every read is bounds-checked: a malformed field (a varint of more
// than 10 bytes, a length past the end, a group or reserved wire type, field number 0) makes Next return
// false. The one reader of SentencePiece's ModelProto in tern (format/sentencepiece_check.cc,
// format/piece_trie.cc, the runtime's own SentencePiece encoder).
#pragma once

#include <cstdint>
#include <string_view>

namespace tern::format {

struct ProtoWire {
  const uint8_t* p;
  const uint8_t* end;

  explicit ProtoWire(std::string_view b) : p(reinterpret_cast<const uint8_t*>(b.data())), end(p + b.size()) {}

  bool done() const { return p >= end; }

  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      const uint8_t b = *p++;
      *v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;  // more than 10 bytes
  }

  /// The next field: its number and wire type; a varint's value or a fixed32's bits in *value (a fixed64 is
  /// skipped); a length-delimited field's payload in *bytes. False at the end or at a malformed field.
  bool Next(uint32_t* number, uint32_t* type, uint64_t* value, std::string_view* bytes) {
    uint64_t key;
    if (p >= end || !Varint(&key) || key >> 32 || (key >> 3) == 0) return false;
    *number = static_cast<uint32_t>(key >> 3), *type = static_cast<uint32_t>(key & 7);
    switch (*type) {
      case 0: return Varint(value);
      case 1:
        if (end - p < 8) return false;
        p += 8;
        return true;
      case 5:
        if (end - p < 4) return false;
        *value = uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
        p += 4;
        return true;
      case 2:
        if (!Varint(value) || *value > static_cast<uint64_t>(end - p)) return false;
        *bytes = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(*value));
        p += *value;
        return true;
      default: return false;  // groups (3, 4) and reserved types
    }
  }
};

}  // namespace tern::format
