#include "text/unigram.h"

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <deque>

namespace tern {
namespace {

// ModelProto.SentencePiece.Type, TrainerSpec.ModelType (sentencepiece_model.proto).
enum : uint8_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };
constexpr uint64_t kUnigram = 1;
constexpr float kUnkPenalty = 10.0f;  // unigram_model.cc

// SentencePiece's OneCharLen: the length a UTF-8 lead byte announces (a continuation byte counts 1).
size_t OneCharLen(const char* p) { return "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[(*p & 0xFF) >> 4]; }

// A protobuf wire-format reader over [p, end) (the proto passed format::CheckSentencePieceModel).
struct Wire {
  const uint8_t* p;
  const uint8_t* end;
  explicit Wire(std::string_view b) : p(reinterpret_cast<const uint8_t*>(b.data())), end(p + b.size()) {}
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p >= end) return false;
      const uint8_t b = *p++;
      *v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  // The next field: its number, wire type, varint value or fixed32 bits, bytes. False at the end or a fault.
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
      default: return false;
    }
  }
};

// darts-clone's unit accessors (darts.h).
bool HasLeaf(uint32_t u) { return ((u >> 8) & 1) == 1; }
uint32_t Value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t Label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t Offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

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

bool UnigramEncoder::Trie::Build(std::vector<std::pair<std::string_view, int32_t>>* keys, std::string_view* duplicate) {
  // An MSD radix sort that is the BFS: each node's range of keys is split by the byte at its depth, stably
  // (the keys come in id order, so the first id of a key is the one a node keeps, as InsertIfNotPresent keeps
  // the first definition). Each key is moved once per byte: no comparison sort, no memcmp.
  std::vector<std::pair<std::string_view, int32_t>>& k = *keys;
  std::vector<std::pair<std::string_view, int32_t>> tmp(k.size());
  first.assign(1, 0), count.assign(1, 0), label.assign(1, 0), value.assign(1, -1);
  first.reserve(k.size() * 2), count.reserve(k.size() * 2), label.reserve(k.size() * 2), value.reserve(k.size() * 2);
  std::fill(std::begin(root_child), std::end(root_child), 0u);
  max_key = 0;
  struct Range {
    uint32_t node, lo, hi, depth;
  };
  std::vector<Range> level{{0, 0, static_cast<uint32_t>(k.size()), 0}}, next;
  uint32_t counts[257];
  while (!level.empty()) {
    next.clear();
    for (const Range& r : level) {
      // Bucket 0: keys that end at this depth; bucket 1 + b: keys whose byte here is b.
      auto bucket = [&](uint32_t i) -> uint32_t {
        const std::string_view key = k[i].first;
        return key.size() == r.depth ? 0 : 1u + static_cast<uint8_t>(key[r.depth]);
      };
      const uint32_t n = r.hi - r.lo;
      if (n <= 16) {  // a stable insertion sort by bucket
        for (uint32_t i = r.lo + 1; i < r.hi; ++i) {
          const auto item = k[i];
          const uint32_t b = bucket(i);
          uint32_t j = i;
          while (j > r.lo && bucket(j - 1) > b) k[j] = k[j - 1], --j;
          k[j] = item;
        }
      } else {  // a stable counting sort
        std::fill(std::begin(counts), std::end(counts), 0u);
        for (uint32_t i = r.lo; i < r.hi; ++i) ++counts[bucket(i)];
        uint32_t at = r.lo;
        for (uint32_t& c : counts) {
          const uint32_t m = c;
          c = at, at += m;
        }
        for (uint32_t i = r.lo; i < r.hi; ++i) tmp[counts[bucket(i)]++] = k[i];
        std::copy(tmp.begin() + r.lo, tmp.begin() + r.hi, k.begin() + r.lo);
      }
      uint32_t lo = r.lo;
      if (lo < r.hi && k[lo].first.size() == r.depth) {  // a key ends here; another one ending here is a duplicate
        value[r.node] = k[lo++].second;
        max_key = std::max<size_t>(max_key, r.depth);
        if (lo < r.hi && k[lo].first.size() == r.depth) {
          if (duplicate) *duplicate = k[lo].first;
          return false;
        }
      }
      first[r.node] = static_cast<uint32_t>(label.size());
      uint16_t children = 0;
      for (uint32_t i = lo; i < r.hi;) {
        const auto b = static_cast<uint8_t>(k[i].first[r.depth]);
        uint32_t j = i + 1;
        while (j < r.hi && static_cast<uint8_t>(k[j].first[r.depth]) == b) ++j;
        const auto node = static_cast<uint32_t>(label.size());
        first.push_back(0), count.push_back(0), label.push_back(b), value.push_back(-1);
        if (r.node == 0) root_child[b] = node;
        next.push_back({node, i, j, r.depth + 1});
        ++children;
        i = j;
      }
      count[r.node] = children;
    }
    level.swap(next);
  }
  return true;
}

uint32_t UnigramEncoder::Trie::Child(uint32_t node, uint8_t b) const {
  if (node == 0) return root_child[b];
  const uint32_t lo = first[node], n = count[node];
  if (n <= 8) {
    for (uint32_t i = lo; i < lo + n; ++i)
      if (label[i] == b) return i;
    return 0;
  }
  const uint8_t* begin = label.data() + lo;
  const uint8_t* it = std::lower_bound(begin, begin + n, b);
  return it != begin + n && *it == b ? lo + static_cast<uint32_t>(it - begin) : 0;
}

Result<std::unique_ptr<UnigramEncoder>> UnigramEncoder::Create(std::string_view proto, const std::string& where) {
  auto bad = [&](const std::string& why) { return Status(StatusCode::kInvalidModel, where + why); };
  std::unique_ptr<UnigramEncoder> e(new UnigramEncoder());
  std::vector<std::pair<std::string_view, int32_t>> keys, user;
  std::vector<std::string_view> texts;
  std::string_view trainer, normalizer;
  Wire w(proto);
  uint32_t number, type;
  uint64_t v;
  std::string_view bytes;
  while (w.p < w.end) {
    if (!w.Next(&number, &type, &v, &bytes)) return bad("a ModelProto field does not parse");
    if (number == 2 && type == 2) trainer = bytes;
    if (number == 3 && type == 2) normalizer = bytes;
    if (number != 1 || type != 2) continue;
    std::string_view text;
    float score = 0.f;
    uint64_t kind = kNormal;
    Wire pw(bytes);
    while (pw.p < pw.end) {
      std::string_view b;
      uint64_t x = 0;
      if (!pw.Next(&number, &type, &x, &b)) return bad("a SentencePiece field does not parse");
      if (number == 1 && type == 2) text = b;
      if (number == 2 && type == 5) std::memcpy(&score, &x, 4);
      if (number == 3 && type == 0) kind = x;
    }
    if (text.empty()) return bad("piece " + std::to_string(texts.size()) + " is empty");
    if (texts.size() >= (size_t{1} << 24)) return bad("more than 2^24 pieces");
    const auto id = static_cast<int32_t>(texts.size());
    texts.push_back(text);
    e->scores_.push_back(score);
    e->types_.push_back(static_cast<uint8_t>(kind > 255 ? 0 : kind));
    if (kind == kNormal || kind == kUserDefined || kind == kUnused) keys.emplace_back(text, id);
    if (kind == kUserDefined) user.emplace_back(text, id);
    if (kind == kUnknown) {
      if (e->unk_id_ >= 0) return bad("unk is already defined");
      e->unk_id_ = id;
    }
  }
  if (e->unk_id_ < 0) return bad("unk is not defined");
  // TrainerSpec: the model type, byte_fallback, treat_whitespace_as_suffix (not followed here).
  uint64_t model_type = kUnigram;
  bool suffix = false;
  Wire tw(trainer);
  while (tw.p < tw.end) {
    if (!tw.Next(&number, &type, &v, &bytes)) return bad("a TrainerSpec field does not parse");
    if (number == 3 && type == 0) model_type = v;
    if (number == 35 && type == 0) e->byte_fallback_ = v != 0;
    if (number == 24 && type == 0) suffix = v != 0;
  }
  if (model_type != kUnigram) return Status(StatusCode::kUnsupported, where + "not a unigram model");
  if (suffix) return Status(StatusCode::kUnsupported, where + "treat_whitespace_as_suffix");
  // Every piece a NORMAL piece scores (SentencePiece starts from FLT_MAX and FLT_MIN).
  e->min_score_ = FLT_MAX, e->max_score_ = FLT_MIN;
  int bytes_found = 0;
  std::vector<bool> byte_seen(256, false);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (e->types_[i] == kNormal) e->min_score_ = std::min(e->min_score_, e->scores_[i]), e->max_score_ = std::max(e->max_score_, e->scores_[i]);
    if (e->types_[i] == kByte) {
      if (!e->byte_fallback_) return bad("byte piece " + std::string(texts[i]) + " is found although `byte_fallback` is false");
      unsigned b = 256;
      if (texts[i].size() == 6 && std::sscanf(std::string(texts[i]).c_str(), "<0x%2X>", &b) == 1 && b < 256 && !byte_seen[b])
        byte_seen[b] = true, ++bytes_found;
    }
  }
  if (e->byte_fallback_ && bytes_found != 256) return bad("there are not 256 byte pieces although `byte_fallback` is true");
  // Pieces defined twice are refused, as SentencePiece refuses them (among NORMAL/USER_DEFINED/UNUSED ones).
  std::string_view dup;
  if (!e->pieces_.Build(&keys, &dup)) return bad(std::string(dup) + " is already defined");
  e->user_defined_.Build(&user, nullptr);
  // NormalizerSpec: the charsmap and the whitespace rules (proto defaults: all three true).
  Wire nw(normalizer);
  while (nw.p < nw.end) {
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

size_t UnigramEncoder::UserDefinedPrefix(std::string_view w) const {
  // PrefixMatcher::PrefixMatch: the longest user-defined symbol w starts with.
  uint32_t node = 0;
  size_t longest = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    node = user_defined_.Child(node, static_cast<uint8_t>(w[i]));
    if (node == 0) break;
    if (user_defined_.value[node] >= 0) longest = i + 1;
  }
  return longest;
}

size_t UnigramEncoder::CharsMapPrefix(std::string_view w, std::string_view* replacement) const {
  // darts-clone's commonPrefixSearch over the charsmap, its first 32 results as the normalizer reads them,
  // each step bounds-checked (format::CheckPrecompiledCharsMap proved them; this never trusts that).
  if (n_units_ == 0) return 0;
  auto unit = [&](size_t i) {
    uint32_t u;
    std::memcpy(&u, charsmap_.data() + 4 + 4 * i, 4);
    return u;
  };
  size_t longest = 0, results = 0;
  uint32_t value = 0;
  size_t pos = Offset(unit(0));
  for (size_t i = 0; i < w.size(); ++i) {
    pos ^= static_cast<uint8_t>(w[i]);
    if (pos >= n_units_) break;
    const uint32_t u = unit(pos);
    if (Label(u) != static_cast<uint8_t>(w[i])) break;
    pos ^= Offset(u);
    if (pos >= n_units_) break;
    if (HasLeaf(u)) {
      if (results++ < 32 && i + 1 > longest) longest = i + 1, value = Value(unit(pos));
    }
  }
  if (longest == 0 || value >= replacements_.size()) return 0;
  const std::string_view rest = replacements_.substr(value);
  *replacement = rest.substr(0, std::min(rest.size(), rest.find('\0')));
  return longest;
}

void UnigramEncoder::NormalizeInto(std::string_view input, Scratch* s) const {
  // Normalizer::Normalize (normalizer.cc), step for step.
  std::string& out = s->normalized;
  std::vector<uint32_t>& to_orig = s->norm_to_orig;
  out.clear(), to_orig.clear();
  if (input.empty()) return;
  static constexpr std::string_view kSpaceSymbol = "\xe2\x96\x81";
  // One normalization step: the prefix's replacement and how many input bytes it takes.
  auto prefix = [&](std::string_view in, std::string_view* rep) -> size_t {
    if (const size_t n = UserDefinedPrefix(in)) return *rep = in.substr(0, n), n;
    if (const size_t n = CharsMapPrefix(in, rep)) return n;
    const size_t n = std::min(in.size(), OneCharLen(in.data()));  // the input is valid UTF-8: its character
    *rep = in.substr(0, n);
    return n;
  };
  uint32_t consumed = 0;
  std::string_view rep;
  if (remove_extra_whitespaces_) {  // heading space
    while (!input.empty()) {
      const size_t n = prefix(input, &rep);
      if (rep != " ") break;
      input.remove_prefix(n), consumed += static_cast<uint32_t>(n);
    }
  }
  if (input.empty()) return;
  auto add_ws = [&]() {
    if (escape_whitespaces_) {
      out.append(kSpaceSymbol), to_orig.insert(to_orig.end(), kSpaceSymbol.size(), consumed);
    } else {
      out.push_back(' '), to_orig.push_back(consumed);
    }
  };
  if (add_dummy_prefix_) add_ws();
  bool is_prev_space = remove_extra_whitespaces_;
  while (!input.empty()) {
    const size_t n = prefix(input, &rep);
    while (is_prev_space && !rep.empty() && rep[0] == ' ') rep.remove_prefix(1);
    if (!rep.empty()) {
      for (char c : rep) {
        if (escape_whitespaces_ && c == ' ') out.append(kSpaceSymbol), to_orig.insert(to_orig.end(), kSpaceSymbol.size(), consumed);
        else out.push_back(c), to_orig.push_back(consumed);
      }
      is_prev_space = rep.back() == ' ';
    }
    consumed += static_cast<uint32_t>(n);
    input.remove_prefix(n);
    if (!remove_extra_whitespaces_) is_prev_space = false;
  }
  if (remove_extra_whitespaces_) {  // tailing space
    const std::string_view space = escape_whitespaces_ ? kSpaceSymbol : std::string_view(" ");
    while (out.size() >= space.size() && std::string_view(out).substr(out.size() - space.size()) == space) {
      const size_t length = out.size() - space.size();
      consumed = to_orig[length];
      out.resize(length), to_orig.resize(length);
    }
  }
  to_orig.push_back(consumed);
}

std::string UnigramEncoder::Normalize(std::string_view text) const {
  Scratch s;
  NormalizeInto(text, &s);
  return s.normalized;
}

void UnigramEncoder::Encode(std::string_view text, Scratch* s, std::vector<Piece>* out) const {
  out->clear();
  NormalizeInto(text, s);
  const std::string& norm = s->normalized;
  const size_t size = norm.size();
  if (size == 0) return;
  // Model::EncodeOptimized: the best path ending at each byte position.
  s->score.assign(size + 1, 0.f), s->start.assign(size + 1, -1), s->id.assign(size + 1, -1);
  float* best = s->score.data();
  int32_t* start = s->start.data();
  int32_t* id = s->id.data();
  const float unk_score = min_score_ - kUnkPenalty;
  for (size_t at = 0; at < size;) {
    const float here = best[at];
    bool has_single_node = false;
    const size_t mblen = std::min(OneCharLen(norm.data() + at), size - at);
    uint32_t node = 0;
    for (size_t key = at; key < size;) {
      node = pieces_.Child(node, static_cast<uint8_t>(norm[key]));
      if (node == 0) break;
      ++key;
      const int32_t ret = pieces_.value[node];
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
  // Backtrack, then PopulateSentencePieceText: consecutive unknown pieces merged (or byte pieces), spans.
  size_t n = 0;
  for (size_t end = size; end > 0; end = static_cast<size_t>(start[end])) ++n;
  std::vector<uint32_t>& ends = s->ends;  // each piece's end, in order
  ends.resize(n);
  for (size_t k = n, end = size; end > 0; end = static_cast<size_t>(start[end])) ends[--k] = static_cast<uint32_t>(end);
  const uint32_t* to_orig = s->norm_to_orig.data();
  bool prev_unk = false;
  for (size_t k = 0; k < n; ++k) {
    const uint32_t e = ends[k], b = static_cast<uint32_t>(start[e]);
    const bool unk = id[e] == unk_id_;
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
  }
}

}  // namespace tern
