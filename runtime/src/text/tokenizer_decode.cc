// Tokenizer::Decode (text/tokenizer.h): target ids to text, as SentencePiece decodes pieces and
// transformers' clean_up_tokenization tidies them.
#include <algorithm>
#include <cstring>
#include <string_view>

#include "model/model_impl.h"
#include "text/tokenizer.h"

namespace tern {

size_t CleanUpTokenization(char* text, size_t n, uint32_t* origin) {
  static constexpr std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."},   {" ?", "?"},     {" !", "!"},     {" ,", ","},     {" ' ", "'"},
      {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  if (origin)
    for (size_t i = 0; i < n; ++i) origin[i] = static_cast<uint32_t>(i);
  for (const auto& [from, to] : kRules) {  // each rule over the whole text, left to right (str.replace)
    size_t r = 0, w = 0;
    while (r < n) {
      if (n - r >= from.size() && std::string_view(text + r, from.size()) == from) {
        // Every rule's `to` is `from` after its leading space, cut to |to| (" ' " -> "'" drops the trailing
        // space too): output byte j comes from input byte r + 1 + j.
        for (size_t j = 0; j < to.size(); ++j, ++w) {
          text[w] = to[j];
          if (origin) origin[w] = origin[r + 1 + j];
        }
        r += from.size();
      } else {
        if (origin) origin[w] = origin[r];
        text[w++] = text[r++];
      }
    }
    n = w;
  }
  return n;
}

namespace {

// Whether `piece` is a byte-fallback piece "<0xNN>"; its byte in *byte.
bool BytePiece(std::string_view piece, char* byte) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
  };
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>' || hex(piece[3]) < 0 || hex(piece[4]) < 0) return false;
  *byte = static_cast<char>(hex(piece[3]) * 16 + hex(piece[4]));
  return true;
}

// The length of the UTF-8 sequence lead byte `b` begins, or 0 for a byte that begins none.
size_t Utf8SequenceLength(unsigned char b) {
  return b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
}

}  // namespace

size_t Tokenizer::Decode(const uint32_t* ids, size_t n, char* out, size_t capacity, TextSpan* spans,
                         uint32_t* scratch) const {
  static constexpr char kSpace[] = "\xe2\x96\x81";  // U+2581
  const Hyperparameters& hp = model_->hparams();
  const PieceList& vocab = model_->impl().c.target_pieces;
  size_t len = 0;
  auto put = [&](const char* s, size_t k) {
    if (len + k > capacity) {  // keep whole UTF-8 sequences only: cut before a continuation byte
      size_t cut = capacity - len;
      while (cut > 0 && cut < k && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;
      k = cut;
    }
    std::memcpy(out + len, s, k);
    len += k;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = ids[i];
    size_t start = len;
    if (id == hp.eos_id || id == hp.pad_id || id >= vocab.size()) {
      if (spans) spans[i] = TextSpan{len, len};
      continue;
    }
    std::string_view p = vocab[id];
    if (id == hp.unk_id) {
      put(" \xe2\x81\x87 ", 5);
      if (spans) spans[i] = TextSpan{std::min(start + 1, len), len};
      continue;
    }
    char bytes[4];
    if (BytePiece(p, &bytes[0])) {
      // A run of byte pieces, as SentencePiece's ProcessBytePieces decodes it: a whole UTF-8 character they
      // spell is written once (its span on its first token; the others' empty after it), and each byte that
      // begins none is U+FFFD (a hypothesis cut inside a character, or a byte no character has).
      size_t k = 1;
      while (k < 4 && i + k < n && ids[i + k] < vocab.size() && ids[i + k] != hp.unk_id && ids[i + k] != hp.eos_id &&
             ids[i + k] != hp.pad_id && BytePiece(vocab[ids[i + k]], &bytes[k]))
        ++k;
      const size_t want = Utf8SequenceLength(static_cast<unsigned char>(bytes[0]));
      if (want > 0 && want <= k && FindInvalidUtf8(std::string_view(bytes, want)) == want) {
        put(bytes, want);
        if (spans) {
          spans[i] = TextSpan{start, len};
          for (size_t j = 1; j < want; ++j) spans[i + j] = TextSpan{len, len};
        }
        i += want - 1;
      } else {
        put("\xef\xbf\xbd", 3);
        if (spans) spans[i] = TextSpan{start, len};
      }
      continue;
    }
    size_t pos = 0;
    while (pos < p.size()) {
      if (p.compare(pos, 3, kSpace) == 0) {
        put(" ", 1);
        if (pos == 0) start = len;  // a word-initial piece's span starts after its space
        pos += 3;
      } else {
        size_t next = p.find(kSpace, pos);
        if (next == std::string_view::npos) next = p.size();
        put(p.data() + pos, next - pos);
        pos = next;
      }
    }
    if (spans) spans[i] = TextSpan{std::min(start, len), len};
  }
  if (len > 0 && out[0] == ' ') {
    std::memmove(out, out + 1, len - 1);
    --len;
    if (spans)
      for (size_t i = 0; i < n; ++i) spans[i] = TextSpan{spans[i].begin ? spans[i].begin - 1 : 0, spans[i].end ? spans[i].end - 1 : 0};
  }
  if (!model_->clean_up_tokenization_spaces()) return len;
  const size_t before = len;
  len = CleanUpTokenization(out, len, spans ? scratch : nullptr);
  if (spans && len != before) {
    // Old offset x -> the first new byte whose origin is >= x (spans are in text order: one pass).
    size_t w = 0;
    auto map = [&](size_t x) {
      while (w < len && scratch[w] < x) ++w;
      return w;
    };
    for (size_t i = 0; i < n; ++i) {
      const size_t b = map(spans[i].begin);
      spans[i] = TextSpan{b, std::max(b, map(spans[i].end))};
      w = b;
    }
  }
  return len;
}

}  // namespace tern
