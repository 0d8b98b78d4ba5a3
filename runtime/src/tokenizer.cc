#include "tokenizer.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <sentencepiece_processor.h>

namespace tern {

size_t FindInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    size_t len;
    uint32_t cp;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
      return i;
    i += len;
  }
  return n;
}

Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Create(const Model& model) {
  std::unique_ptr<Tokenizer> t(new Tokenizer());
  t->model_ = &model;
  t->source_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  auto st = t->source_->LoadFromSerializedProto(model.source_spm());
  if (!st.ok()) return Status(StatusCode::kInvalidModel, model.name() + ": tokenizer.source_spm: " + st.ToString());
  model.ReleasePages(model.source_spm().data(), model.source_spm().size());  // SentencePiece parsed its own copy
  const auto& vocab = model.source_vocab();
  t->source_ids_.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) t->source_ids_.emplace(vocab[i], static_cast<uint32_t>(i));
  t->max_piece_bytes_ = MaxPieceBytes(model);
  return t;
}

size_t MaxPieceBytes(const Model& model) {
  size_t n = 6;  // " ⁇ " for unknown pieces
  for (std::string_view p : model.target_vocab()) n = std::max(n, p.size());
  return n;
}

Status Tokenizer::Encode(std::string_view text, uint32_t* ids, size_t capacity, size_t* n) const {
  const size_t bad = FindInvalidUtf8(text);
  if (bad != text.size()) return Status(StatusCode::kInvalidArgument, "invalid UTF-8 at byte " + std::to_string(bad));
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) return Status(StatusCode::kInvalidArgument, "NUL byte at byte " + std::to_string(nul));
  std::vector<std::string> pieces;
  auto st = source_->Encode(text, &pieces);
  if (!st.ok()) return Status(StatusCode::kInvalidArgument, "SentencePiece: " + st.ToString());
  if (pieces.size() + 1 > capacity)
    return Status(StatusCode::kResourceExhausted, std::to_string(pieces.size() + 1) + " source tokens exceed max_source_tokens " +
                                                      std::to_string(capacity));
  const uint32_t unk = model_->hparams().unk_id;
  for (size_t i = 0; i < pieces.size(); ++i) {
    auto it = source_ids_.find(pieces[i]);
    ids[i] = it == source_ids_.end() ? unk : it->second;
  }
  ids[pieces.size()] = model_->hparams().eos_id;
  *n = pieces.size() + 1;
  return Status::Ok();
}

size_t Tokenizer::Decode(const uint32_t* ids, size_t n, char* out, size_t capacity) const {
  static constexpr char kSpace[] = "\xe2\x96\x81";  // U+2581
  const Hyperparameters& hp = model_->hparams();
  const auto& vocab = model_->target_vocab();
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
    if (id == hp.eos_id || id == hp.pad_id || id >= vocab.size()) continue;
    std::string_view p = vocab[id];
    if (id == hp.unk_id) {
      put(" \xe2\x81\x87 ", 5);
      continue;
    }
    if (p.size() == 6 && p[0] == '<' && p[1] == '0' && p[2] == 'x' && p[5] == '>') {  // byte fallback <0xNN>
      auto hex = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
      char byte = static_cast<char>(hex(p[3]) * 16 + hex(p[4]));
      put(&byte, 1);
      continue;
    }
    size_t pos = 0;
    while (pos < p.size()) {
      if (p.compare(pos, 3, kSpace) == 0) {
        put(" ", 1);
        pos += 3;
      } else {
        size_t next = p.find(kSpace, pos);
        if (next == std::string_view::npos) next = p.size();
        put(p.data() + pos, next - pos);
        pos = next;
      }
    }
  }
  if (len > 0 && out[0] == ' ') {
    std::memmove(out, out + 1, len - 1);
    --len;
  }
  return len;
}

}  // namespace tern
