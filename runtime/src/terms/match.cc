// Glossary matching on a sentence's text (terms/glossary_impl.h: MatchTerms).
//
// A source term matches at byte b of the text when:
//  - its text equals the text there, letter for letter (case-folded with case_insensitive; a term written
//    with a lower-case first letter also matches that letter capitalized at the start of the sentence,
//    "man" in "Man walks"), a space in the term standing for any run of spaces;
//  - a term that starts (ends) with a word character does not start (end) inside a name: the character
//    before (after) it is no word character, and no joiner ('-', '.', '@', '_', '+') with a word character
//    on its other side (term_text.h: "bash" is not found in "bash-completion" or "git@bash.org");
//  - it lies outside every URL, e-mail address and placeholder of the text (markup/protect.h);
// the longest term wins at each position, then the search goes on after it. The term's source tokens are
// those whose bytes overlap it.
#include <algorithm>

#include "markup/protect.h"
#include "terms/glossary_impl.h"
#include "terms/term_text.h"

namespace tern {
namespace {

using terms::DecodeAt;
using terms::FoldCase;
using terms::IsSpaceChar;
using terms::IsWordChar;

// The end of term `t` matched at text[b..), or npos. `fold`: letters compared case-folded; `cap_first`: the
// term's first letter may also be its capital.
size_t MatchAt(std::string_view text, size_t b, std::string_view t, bool fold, bool cap_first) {
  size_t i = b, k = 0, li = 0, lk = 0;
  bool first = true;
  while (k < t.size()) {
    if (i >= text.size()) return std::string_view::npos;
    const uint32_t tc = DecodeAt(t, k, &lk);
    if (tc == ' ') {  // one or more spaces
      if (!IsSpaceChar(DecodeAt(text, i, &li))) return std::string_view::npos;
      while (i < text.size() && IsSpaceChar(DecodeAt(text, i, &li))) i += li;
      k += lk;
      continue;
    }
    const uint32_t xc = DecodeAt(text, i, &li);
    const bool same = xc == tc || (fold && FoldCase(xc) == FoldCase(tc)) || (first && cap_first && xc == terms::UpperCase(tc));
    if (!same) return std::string_view::npos;
    i += li, k += lk, first = false;
  }
  return i;
}

bool EndsWithWordChar(std::string_view t) {
  size_t b = t.size() - 1;
  while (b > 0 && (static_cast<unsigned char>(t[b]) & 0xc0) == 0x80) --b;
  size_t len = 0;
  return IsWordChar(DecodeAt(t, b, &len));
}

}  // namespace

bool MatchTerms(const Glossary::Impl& g, const SourceText& s, const ConstraintBuffers& buf, size_t i) {
  const std::string_view text = s.text;
  uint32_t count = 0, tokens = 0;
  buf.count[i] = 0;
  size_t tk = 0;  // the first token that may overlap what comes next
  TextSpan skip = markup::NextPlaceholder(text, s.from);  // the next URL, e-mail address or placeholder
  bool sentence_start = true;  // no word yet
  for (size_t b = s.from; b < text.size();) {
    size_t len = 0;
    const uint32_t cp = DecodeAt(text, b, &len);
    if (IsSpaceChar(cp)) {
      b += len;
      continue;
    }
    if (b >= skip.begin) {
      if (b < skip.end) {
        b = skip.end, sentence_start = false;
        continue;
      }
      skip = markup::NextPlaceholder(text, b);
    }
    size_t unit_end = 0;
    const uint64_t key = terms::FoldedUnitHash(text, b, &unit_end);
    const bool word = IsWordChar(cp);
    const bool cap_first = sentence_start && word && !g.case_insensitive;
    auto lo = std::lower_bound(g.terms.begin(), g.terms.end(), key,
                               [](const Glossary::Impl::Term& t, uint64_t k) { return t.key < k; });
    const Glossary::Impl::Term* hit = nullptr;
    size_t hit_end = 0;
    const bool may_start = !word || terms::StartsName(text, b);
    for (auto it = lo; may_start && it != g.terms.end() && it->key == key; ++it) {  // longest first
      const std::string_view t(g.text.data() + it->off, it->len);
      const size_t e = MatchAt(text, b, t, g.case_insensitive, cap_first);
      if (e == std::string_view::npos || e > skip.begin) continue;
      if (EndsWithWordChar(t) && !terms::EndsName(text, e)) continue;
      hit = &*it, hit_end = e;
      break;
    }
    if (word) sentence_start = false;
    if (!hit) {
      b = unit_end;
      continue;
    }
    const uint32_t n_target = g.target_len[hit->entry];
    if (count + 1 > kMaxConstraints || tokens + n_target > kMaxConstraintTokens) {
      buf.count[i] = 0;
      return false;
    }
    // The source tokens whose bytes overlap the term (</s> and a language code have none of its bytes).
    while (tk < s.n && s.spans[tk].end <= b) ++tk;
    size_t te = tk;
    while (te < s.n && s.spans[te].begin < hit_end) ++te;
    if (te == tk && tk < s.n) ++te;
    const size_t c = i * kMaxConstraints + count;
    buf.off[c] = static_cast<uint16_t>(tokens);
    buf.len[c] = static_cast<uint16_t>(n_target);
    buf.src_begin[c] = static_cast<uint32_t>(tk);
    buf.src_end[c] = static_cast<uint32_t>(te);
    const auto from = g.target_ids.begin() + g.target_off[hit->entry];
    std::copy(from, from + n_target, buf.tokens + i * kMaxConstraintTokens + tokens);
    tokens += n_target, ++count;
    b = hit_end;
  }
  buf.count[i] = static_cast<uint8_t>(count);
  return true;
}

}  // namespace tern
