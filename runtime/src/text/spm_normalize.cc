// SpmEncoder's normalization: SentencePiece 0.1.97's Normalizer::Normalize and NormalizePrefix
// (normalizer.cc), with its PrefixMatcher for user-defined symbols and darts-clone's commonPrefixSearch over the
// precompiled charsmap read in place (every step bounds-checked).
#include <algorithm>
#include <cstring>

#include "text/spm_encoder.h"

namespace tern {
namespace {

// darts-clone's unit accessors (darts.h).
bool HasLeaf(uint32_t u) { return ((u >> 8) & 1) == 1; }
uint32_t Value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t Label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t Offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

}  // namespace

size_t SpmEncoder::UserDefinedPrefix(std::string_view w) const {
  // PrefixMatcher::PrefixMatch: the longest user-defined symbol w starts with.
  uint32_t node = 0;
  size_t longest = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    node = user_defined_.Child(node, static_cast<uint8_t>(w[i]));
    if (node == 0) break;
    if (user_defined_.value(node) >= 0) longest = i + 1;
  }
  return longest;
}

size_t SpmEncoder::CharsMapPrefix(std::string_view w, std::string_view* replacement) const {
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

void SpmEncoder::NormalizeInto(std::string_view input, Scratch* s) const {
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
    const size_t n = std::min(in.size(), Utf8CharLen(in.data()));  // the input is valid UTF-8: its character
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

std::string SpmEncoder::Normalize(std::string_view text) const {
  Scratch s;
  NormalizeInto(text, &s);
  return s.normalized;
}


}  // namespace tern
