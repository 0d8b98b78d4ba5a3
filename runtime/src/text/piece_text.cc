#include "text/piece_text.h"

namespace tern::piece_text {

bool Varint(const char*& p, const char* end, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const auto b = static_cast<unsigned char>(*p++);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool Skip(const char*& p, const char* end, uint32_t wire) {
  uint64_t v = 0;
  switch (wire) {
    case 0: return Varint(p, end, &v);
    case 1: return end - p >= 8 ? (p += 8, true) : false;
    case 2:
      if (!Varint(p, end, &v) || v > static_cast<uint64_t>(end - p)) return false;
      p += v;
      return true;
    case 5: return end - p >= 4 ? (p += 4, true) : false;
    default: return false;
  }
}

// message SentencePiece { string piece = 1; uint32 id = 2; string surface = 3; uint32 begin = 4; uint32 end = 5; }
bool ReadPiece(std::string_view m, PieceSpan* out) {
  const char* p = m.data();
  const char* end = p + m.size();
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (!Varint(p, end, &key)) return false;
    const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
    if (field == 1 && wire == 2) {
      if (!Varint(p, end, &v) || v > static_cast<uint64_t>(end - p)) return false;
      out->piece = std::string_view(p, v);
      p += v;
    } else if ((field == 4 || field == 5) && wire == 0) {
      if (!Varint(p, end, &v) || v > UINT32_MAX) return false;
      (field == 4 ? out->begin : out->end) = static_cast<uint32_t>(v);
    } else if (!Skip(p, end, wire)) {
      return false;
    }
  }
  return true;
}

}  // namespace tern::piece_text
