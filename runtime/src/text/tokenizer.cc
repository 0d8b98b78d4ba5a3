#include "model/model_impl.h"
#include "text/tokenizer.h"

#include "text/piece_encoder.h"
#include "text/spm_prefetch.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <vector>

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

Result<std::unique_ptr<Tokenizer>> Tokenizer::Create(const Model& model, Side side) {
  std::unique_ptr<Tokenizer> t(new Tokenizer());
  t->model_ = &model;
  t->side_ = side;
  const bool source = side == Side::kSource;
  const std::string_view proto = source ? model.impl().source_spm() : model.impl().target_spm();
  const std::string where = model.name() + (source ? ": tokenizer.source_spm: " : ": tokenizer.target_spm: ");
  // MarianTokenizer: the source vocabulary, and the target one in target mode (the same list when shared).
  // The index first: SentencePiece may still be parsing the proto on Model::Load's thread meanwhile.
  const PieceList& vocab = source ? model.impl().c.source_pieces : model.impl().c.target_pieces;
  try {
    t->ids_.Build(vocab);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kResourceExhausted, where + "no memory for the piece index");
  }
  std::optional<Result<std::unique_ptr<PieceEncoder>>> parsed;
  if (source && model.impl().source_spm_prefetch) parsed = model.impl().source_spm_prefetch->Take();
  TERN_ASSIGN_OR_RETURN(t->encoder_, parsed ? std::move(*parsed)
                                           : PieceEncoder::Load(proto, where, source ? &model.impl().c.source_piece_trie : nullptr));
  model.impl().ReleasePages(proto.data(), proto.size());  // the encoder keeps nothing of the proto's bytes
  t->max_piece_bytes_ = MaxPieceBytes(model);
  return t;
}

const char* Tokenizer::encoder_kind() const { return encoder_->kind(); }

bool Tokenizer::piece_trie_from_file() const { return encoder_->piece_trie_from_file(); }

Result<std::shared_ptr<const Tokenizer>> Tokenizer::Shared(const Model& model, Side side) {
  const Model::Impl& m = model.impl();
  std::lock_guard<std::mutex> lock(m.tokenizers_mu);
  std::shared_ptr<const Tokenizer>& slot = m.tokenizers[side == Side::kSource ? 0 : 1];
  if (!slot) {
    TERN_ASSIGN_OR_RETURN(auto t, Create(model, side));
    slot = std::shared_ptr<const Tokenizer>(std::move(t));
  }
  return slot;
}

size_t MaxPieceBytes(const Model& model) {
  return std::max<size_t>(6, model.impl().c.max_target_piece_bytes);  // 6: " ⁇ " for unknown pieces
}

size_t MaxSourcePieceBytes(const Model& model) { return std::max<size_t>(1, model.impl().c.max_source_piece_bytes); }

size_t Tokenizer::PiecesText(const uint32_t* ids, size_t n, char* out, size_t capacity, TextSpan* spans) const {
  static constexpr char kSpace[] = "\xe2\x96\x81";  // U+2581
  const Hyperparameters& hp = model_->hparams();
  const PieceList& vocab = side_ == Side::kSource ? model_->impl().c.source_pieces : model_->impl().c.target_pieces;
  size_t len = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = ids[i];
    const size_t start = len;
    const std::string_view p = id < vocab.size() ? vocab[id] : std::string_view();
    const bool special = id >= vocab.size() || id == hp.unk_id || id == hp.eos_id || id == hp.pad_id ||
                         (p.size() > 4 && p.substr(0, 2) == ">>" && p.substr(p.size() - 2) == "<<");
    if (special) {
      if (len < capacity) out[len++] = '\x01';
    } else {
      size_t need = 0;  // the piece's bytes with each U+2581 as one space
      for (size_t k = 0; k < p.size();) k += p.compare(k, 3, kSpace) == 0 ? 3 : 1, ++need;
      if (len + need <= capacity) {
        for (size_t k = 0; k < p.size();) {
          const bool space = p.compare(k, 3, kSpace) == 0;
          out[len++] = space ? ' ' : p[k];
          k += space ? 3 : 1;
        }
      }
    }
    spans[i] = TextSpan{start, len};
  }
  return len;
}

std::string LanguageCode(std::string_view lang) { return ">>" + std::string(lang) + "<<"; }

std::string_view LeadingLanguageCode(std::string_view text) {
  if (text.size() < 2 || text.compare(0, 2, ">>") != 0) return {};
  const size_t end = text.find("<<");
  return end == std::string_view::npos ? std::string_view() : text.substr(0, end + 2);
}

Status Tokenizer::Encode(std::string_view text, std::string_view target_lang, uint32_t* ids, size_t capacity,
                         size_t* n, TextSpan* spans, size_t truncate) const {
  const size_t bad = FindInvalidUtf8(text);
  if (bad != text.size()) {
    // An encoded surrogate (ED A0..BF xx): what a lone surrogate of a Python str or a Java String becomes.
    const bool surrogate = bad + 2 < text.size() && static_cast<unsigned char>(text[bad]) == 0xed &&
                           (static_cast<unsigned char>(text[bad + 1]) & 0xe0) == 0xa0;
    return Status(StatusCode::kInvalidArgument, "invalid UTF-8 at byte " + std::to_string(bad) +
                                                    (surrogate ? " (a lone surrogate, U+D800-U+DFFF)" : ""));
  }
  const size_t nul = text.find('\0');
  if (nul != std::string_view::npos) return Status(StatusCode::kInvalidArgument, "NUL byte at byte " + std::to_string(nul));
  const uint32_t unk = model_->hparams().unk_id;
  auto id_of = [&](std::string_view piece) {
    const uint32_t id = ids_.Find(piece);
    return id == PieceIndex::kNone ? unk : id;
  };
  // MarianTokenizer.remove_language_code: ">>...<<" at the very start, up to the first "<<".
  const std::string_view code = LeadingLanguageCode(text);
  text.remove_prefix(code.size());
  uint32_t code_id = 0;
  bool has_code = !code.empty();
  if (!target_lang.empty()) {
    const std::string wanted = LanguageCode(target_lang);
    code_id = ids_.Find(wanted);
    if (code_id == PieceIndex::kNone)
      return Status(StatusCode::kInvalidArgument, "the model has no target-language token " + wanted);
    has_code = true;
  } else if (has_code) {
    code_id = id_of(code);
  }
  // SentencePiece's pieces with their byte ranges in the original text (text/piece_encoder.h), in a
  // thread-local list grown to the longest text seen. Counted first, so that a sentence too long fails
  // before anything is written.
  if (text.size() > (size_t{1} << 31))
    return Status(StatusCode::kResourceExhausted, "a text of " + std::to_string(text.size()) + " bytes (at most 2 GiB)");
  thread_local std::vector<PieceSpan> pieces;
  TERN_RETURN_IF_ERROR(encoder_->Encode(text, &pieces));
  size_t n_pieces = pieces.size();
  size_t total = (has_code ? 1 : 0) + n_pieces + 1;
  if (truncate > 0) {
    const size_t cut = std::max<size_t>(std::min(truncate, capacity), (has_code ? 1 : 0) + 1);
    if (total > cut) n_pieces -= total - cut, total = cut;
  }
  if (total > capacity) {
    *n = total;  // what it needs: TextTokenizer sizes its output by this
    return Status(StatusCode::kResourceExhausted, std::to_string(total) + " source tokens exceed max_source_tokens " +
                                                      std::to_string(capacity));
  }
  const size_t base = code.size(), end = base + text.size();
  size_t k = 0;
  auto put = [&](uint32_t id, size_t b, size_t e) {
    e = std::min(std::max(b, e), end), b = std::min(b, end);
    // A word-initial piece's span starts at the word: the space its U+2581 stands for is left out.
    const std::string_view full = text.substr(0);
    while (b < e && b >= base && b - base < full.size() && (full[b - base] == ' ' || full[b - base] == '\t')) ++b;
    if (spans) spans[k] = TextSpan{b, e};
    ids[k++] = id;
  };
  if (has_code) put(code_id, 0, code.size());
  for (size_t i = 0; i < n_pieces; ++i) put(id_of(pieces[i].piece), base + pieces[i].begin, base + pieces[i].end);
  put(model_->hparams().eos_id, end, end);
  *n = k;
  return Status::Ok();
}

}  // namespace tern
