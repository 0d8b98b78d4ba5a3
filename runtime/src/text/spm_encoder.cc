#include "text/spm_encoder.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstring>

#include "piece_trie.h"
#include "proto_wire.h"

namespace tern {
namespace {

// ModelProto.SentencePiece.Type, TrainerSpec.ModelType (sentencepiece_model.proto).
enum : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
constexpr uint64_t kUnigram = 1, kBpe = 2;
constexpr float kUnkPenalty = 10.0f;  // unigram_model.cc


using Wire = format::ProtoWire;

// "<0xNN>" of every byte (ByteToPiece).
const std::string* BytePieces() {
  static const std::string* kPieces = [] {
    static std::string p[256];
    for (int b = 0; b < 256; ++b) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      p[b] = buf;
    }
    return p;
  }();
  return kPieces;
}

}  // namespace

Result<std::unique_ptr<SpmEncoder>> SpmEncoder::Create(std::string_view proto, const std::string& where,
                                                       const format::ByteTrieArrays* piece_trie) {
  auto bad = [&](const std::string& why) { return Status(StatusCode::kInvalidModel, where + why); };
  const std::string trie_where = where + "tokenizer.source_piece_trie";
  std::unique_ptr<SpmEncoder> e(new SpmEncoder());
  const bool stored = piece_trie && piece_trie->nodes > 0;
  if (stored) TERN_RETURN_IF_ERROR(e->pieces_.Adopt(*piece_trie, trie_where));
  std::vector<std::pair<std::string_view, int32_t>> keys, user, reserved, byte_pieces;
  std::string_view trainer, normalizer;
  Wire w(proto);
  uint32_t number, type;
  uint64_t v;
  std::string_view bytes;
  // The pieces counted first: every array is allocated once (a cold process pays for each page it touches).
  size_t n_pieces = 0;
  while (!w.done()) {
    if (!w.Next(&number, &type, &v, &bytes)) return bad("a ModelProto field does not parse");
    n_pieces += number == 1 && type == 2;
  }
  if (n_pieces > (size_t{1} << 24)) return bad("more than 2^24 pieces");
  e->scores_.reserve(n_pieces), e->types_.reserve(n_pieces);
  std::vector<uint64_t> key_hash;  // a stored trie's check (format::ByteTrie::CheckKeys)
  if (!stored) keys.reserve(n_pieces);
  else key_hash.assign(n_pieces, 0);
  size_t n_keys = 0;
  w = Wire(proto);
  while (!w.done()) {
    if (!w.Next(&number, &type, &v, &bytes)) return bad("a ModelProto field does not parse");
    if (number == 2 && type == 2) trainer = bytes;
    if (number == 3 && type == 2) normalizer = bytes;
    if (number != 1 || type != 2) continue;
    std::string_view text;
    float score = 0.f;
    uint64_t kind = kNormal;
    Wire pw(bytes);
    while (!pw.done()) {
      std::string_view b;
      uint64_t x = 0;
      if (!pw.Next(&number, &type, &x, &b)) return bad("a SentencePiece field does not parse");
      if (number == 1 && type == 2) text = b;
      if (number == 2 && type == 5) std::memcpy(&score, &x, 4);
      if (number == 3 && type == 0) kind = x;
    }
    const auto id = static_cast<int32_t>(e->scores_.size());
    if (text.empty()) return bad("piece " + std::to_string(id) + " is empty");
    e->scores_.push_back(score);
    e->types_.push_back(static_cast<uint8_t>(kind > 255 ? 0 : kind));
    if (format::IsPieceTrieKey(kind)) {
      ++n_keys;
      if (!stored) keys.emplace_back(text, id);
      else key_hash[id] = format::ByteTrie::KeyHash(text);
    } else {
      reserved.emplace_back(text, id);
    }
    if (kind == kUserDefined) user.emplace_back(text, id);
    if (kind == kByte) byte_pieces.emplace_back(text, id);
    if (kind == kUnknown) {
      if (e->unk_id_ >= 0) return bad("unk is already defined");
      e->unk_id_ = id;
    }
  }
  if (stored) TERN_RETURN_IF_ERROR(e->pieces_.CheckKeys(key_hash, n_keys, trie_where));
  e->piece_trie_from_file_ = stored;
  if (e->unk_id_ < 0) return bad("unk is not defined");
  // TrainerSpec: the model type, byte_fallback, treat_whitespace_as_suffix (not followed here).
  uint64_t model_type = kUnigram;
  bool suffix = false;
  Wire tw(trainer);
  while (!tw.done()) {
    if (!tw.Next(&number, &type, &v, &bytes)) return bad("a TrainerSpec field does not parse");
    if (number == 3 && type == 0) model_type = v;
    if (number == 35 && type == 0) e->byte_fallback_ = v != 0;
    if (number == 24 && type == 0) suffix = v != 0;
  }
  if (model_type != kUnigram && model_type != kBpe) return Status(StatusCode::kUnsupported, where + "neither a unigram nor a BPE model");
  e->bpe_ = model_type == kBpe;
  if (suffix) return Status(StatusCode::kUnsupported, where + "treat_whitespace_as_suffix");
  // Every piece a NORMAL piece scores (SentencePiece starts from FLT_MAX and FLT_MIN).
  e->min_score_ = FLT_MAX, e->max_score_ = FLT_MIN;
  int bytes_found = 0;
  std::vector<bool> byte_seen(256, false);
  for (size_t i = 0; i < e->types_.size(); ++i)
    if (e->types_[i] == kNormal) e->min_score_ = std::min(e->min_score_, e->scores_[i]), e->max_score_ = std::max(e->max_score_, e->scores_[i]);
  for (const auto& [text, id] : byte_pieces) {
    if (!e->byte_fallback_) return bad("byte piece " + std::string(text) + " is found although `byte_fallback` is false");
    unsigned b = 256;
    if (text.size() == 6 && std::sscanf(std::string(text).c_str(), "<0x%2X>", &b) == 1 && b < 256 && !byte_seen[b])
      byte_seen[b] = true, ++bytes_found;
  }
  if (e->byte_fallback_ && bytes_found != 256) return bad("there are not 256 byte pieces although `byte_fallback` is true");
  // Pieces defined twice are refused, as SentencePiece refuses them (among NORMAL/USER_DEFINED/UNUSED ones).
  std::string_view dup;
  if ((!stored && !e->pieces_.Build(&keys, &dup)) || !e->reserved_.Build(&reserved, &dup))
    return bad(std::string(dup) + " is already defined");
  e->user_defined_.Build(&user, nullptr);
  // NormalizerSpec: the charsmap and the whitespace rules (proto defaults: all three true).
  Wire nw(normalizer);
  while (!nw.done()) {
    if (!nw.Next(&number, &type, &v, &bytes)) return bad("a NormalizerSpec field does not parse");
    if (number == 2 && type == 2) e->charsmap_ = std::string(bytes);
    if (number == 3 && type == 0) e->add_dummy_prefix_ = v != 0;
    if (number == 4 && type == 0) e->remove_extra_whitespaces_ = v != 0;
    if (number == 5 && type == 0) e->escape_whitespaces_ = v != 0;
  }
  if (!e->charsmap_.empty()) {  // <trie bytes: u32 LE><double array><NUL-terminated replacements>
    uint32_t trie_bytes = 0;
    if (e->charsmap_.size() < 4) return bad("Blob for normalization rule is broken.");
    std::memcpy(&trie_bytes, e->charsmap_.data(), 4);
    if (trie_bytes >= e->charsmap_.size()) return bad("Trie data size exceeds the input blob size.");
    e->n_units_ = trie_bytes / 4;
    e->replacements_ = std::string_view(e->charsmap_).substr(4 + static_cast<size_t>(trie_bytes));
  }
  return e;
}

int32_t SpmEncoder::PieceToId(std::string_view piece) const {
  const int32_t r = reserved_.Find(piece);
  if (r >= 0) return r;
  const int32_t p = pieces_.Find(piece);
  return p >= 0 ? p : unk_id_;
}

void SpmEncoder::SegmentUnigram(Scratch* s) const {
  // Model::EncodeOptimized: the best path ending at each byte position.
  const std::string& norm = s->normalized;
  const size_t size = norm.size();
  s->score.assign(size + 1, 0.f), s->start.assign(size + 1, -1), s->id.assign(size + 1, -1);
  float* best = s->score.data();
  int32_t* start = s->start.data();
  int32_t* id = s->id.data();
  const float unk_score = min_score_ - kUnkPenalty;
  for (size_t at = 0; at < size;) {
    const float here = best[at];
    bool has_single_node = false;
    const size_t mblen = std::min(Utf8CharLen(norm.data() + at), size - at);
    uint32_t node = 0;
    for (size_t key = at; key < size;) {
      node = pieces_.Child(node, static_cast<uint8_t>(norm[key]));
      if (node == 0) break;
      ++key;
      const int32_t ret = pieces_.value(node);
      if (ret < 0 || types_[ret] == kUnused) continue;
      const size_t length = key - at;
      // SentencePiece's `score` is a double (its ?: mixes the user-defined symbol's double with a piece's float):
      // the sum and the comparison are in double, the best score kept as a float.
      const double score = types_[ret] == kUserDefined ? static_cast<float>(length) * max_score_ - 0.1 : scores_[ret];
      const double candidate = score + here;
      if (start[key] == -1 || candidate > best[key])
        best[key] = static_cast<float>(candidate), start[key] = static_cast<int32_t>(at), id[key] = ret;
      if (!has_single_node && length == mblen) has_single_node = true;
    }
    if (!has_single_node) {
      const size_t key = at + mblen;
      const float candidate = unk_score + here;
      if (start[key] == -1 || candidate > best[key]) best[key] = candidate, start[key] = static_cast<int32_t>(at), id[key] = unk_id_;
    }
    at += mblen;
  }
  // Backtrack.
  for (size_t end = size; end > 0; end = static_cast<size_t>(start[end]))
    s->segments.push_back({static_cast<uint32_t>(end - static_cast<size_t>(start[end])), id[end]});
  std::reverse(s->segments.begin(), s->segments.end());
}

void SpmEncoder::Encode(std::string_view text, Scratch* s, std::vector<Piece>* out) const {
  out->clear();
  NormalizeInto(text, s);
  const std::string& norm = s->normalized;
  if (norm.empty()) return;
  s->segments.clear();
  if (bpe_) SegmentBpe(s);
  else SegmentUnigram(s);
  // PopulateSentencePieceText: consecutive unknown pieces merged (or byte pieces), spans. A segment's text is
  // the normalized bytes it consumes (BPE's split of an UNUSED piece has the same bytes as its parts).
  const uint32_t* to_orig = s->norm_to_orig.data();
  bool prev_unk = false;
  uint32_t b = 0;
  for (const Scratch::Segment& seg : s->segments) {
    const uint32_t e = b + seg.length;
    const bool unk = seg.id == unk_id_;
    if (unk && byte_fallback_) {
      for (uint32_t i = b; i < e; ++i) {
        Piece p;
        p.text = BytePieces()[static_cast<uint8_t>(norm[i])];
        p.begin = to_orig[b];
        p.end = i + 1 == e ? to_orig[e] : to_orig[b];  // the last byte piece holds the character's surface
        out->push_back(p);
      }
    } else if (unk && prev_unk) {  // merged into the previous unknown piece (its text: the normalized bytes)
      Piece& p = out->back();
      p.text = std::string_view(p.text.data(), static_cast<size_t>(norm.data() + e - p.text.data()));
      p.end = to_orig[e];
    } else {
      out->push_back(Piece{std::string_view(norm).substr(b, e - b), unk, to_orig[b], to_orig[e]});
    }
    prev_unk = unk;
    b = e;
  }
}

}  // namespace tern
