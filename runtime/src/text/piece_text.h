// SentencePiece's SentencePieceText (sentencepiece.proto), read from the bytes
// SentencePieceProcessor::EncodeAsSerializedProto returns: every SentencePiece release has that call (the
// ImmutableSentencePieceText class is missing from some, the Android build's among them), and this
// reader needs no protobuf headers.
#pragma once

#include <cstdint>
#include <string_view>

namespace tern {

/// One piece of a SentencePieceText: its text and its byte range [begin, end) in the original input.
struct PieceSpan {
  std::string_view piece;
  uint32_t begin = 0, end = 0;
};

/// Calls f(PieceSpan) for each piece of the serialized SentencePieceText `proto`, in order. False when the
/// bytes are not a well-formed message (nothing is read past them).
template <typename F>
bool ForEachPiece(std::string_view proto, F&& f);

namespace piece_text {
bool Varint(const char*& p, const char* end, uint64_t* v);
bool Skip(const char*& p, const char* end, uint32_t wire);
bool ReadPiece(std::string_view message, PieceSpan* out);
}  // namespace piece_text

template <typename F>
bool ForEachPiece(std::string_view proto, F&& f) {
  const char* p = proto.data();
  const char* end = p + proto.size();
  while (p < end) {
    uint64_t key = 0;
    if (!piece_text::Varint(p, end, &key)) return false;
    const uint32_t field = static_cast<uint32_t>(key >> 3), wire = static_cast<uint32_t>(key & 7);
    if (field == 2 && wire == 2) {  // repeated SentencePiece pieces = 2
      uint64_t len = 0;
      if (!piece_text::Varint(p, end, &len) || len > static_cast<uint64_t>(end - p)) return false;
      PieceSpan piece;
      if (!piece_text::ReadPiece(std::string_view(p, len), &piece)) return false;
      f(piece);
      p += len;
    } else if (!piece_text::Skip(p, end, wire)) {
      return false;
    }
  }
  return true;
}

}  // namespace tern
