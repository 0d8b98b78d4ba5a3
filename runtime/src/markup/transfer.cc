#include "markup/transfer.h"

#include <algorithm>
#include <cctype>

#include "markup/punctuation.h"

namespace tern::markup {
namespace {

bool WordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u);
}

class Placer {
 public:
  Placer(const Parsed& p, const AlignedTranslation& t, std::vector<size_t>* ob, std::vector<size_t>* oe)
      : p_(p), t_(t), ob_(*ob), oe_(*oe), children_(p.elements.size() + 1), tb_(p.elements.size()), te_(p.elements.size()) {
    for (size_t i = 0; i < p.elements.size(); ++i) children_[static_cast<size_t>(p.elements[i].parent + 1)].push_back(i);
    while (last_word_ > 0 && !WordByte(p.text[last_word_ - 1])) --last_word_;
  }

  // From `from` on, the source holds only spaces and closing marks, a final mark among them (constant time:
  // a line may hold 100,000 elements, so nothing per element is linear in the line).
  bool OnlyFinalFrom(size_t from) const { return from >= src_tail_ && from < src_final_; }

  std::string Run() {
    const size_t n = t_.text.size();
    ob_.assign(n + 1, 0), oe_.assign(n + 1, 0);
    raw_.resize(p_.elements.size()), dropped_.assign(p_.elements.size(), 0);
    for (size_t i = 0; i < p_.elements.size(); ++i) raw_[i] = Raw(p_.elements[i], &dropped_[i]);
    PlaceChildren(0, 0, n);
    size_t cursor = 0;
    for (size_t c : children_[0]) WriteText(cursor, tb_[c]), Emit(c), cursor = te_[c];
    WriteText(cursor, n);
    ob_[n] = oe_[n] = out_.size();
    return std::move(out_);
  }

 private:
  // Where source position x goes: after the last target token aligned to source text before x.
  size_t MapPos(size_t x) const {
    if (x == 0) return 0;
    if (x >= p_.text.size()) return t_.text.size();
    size_t at = 0;
    for (size_t k = 0; k < t_.token_spans.size() && k < t_.token_sources.size(); ++k) {
      const TextSpan& ts = t_.token_spans[k];
      const int32_t s = t_.token_sources[k];
      if (ts.end <= ts.begin || s < 0 || static_cast<size_t>(s) >= t_.source_spans.size()) continue;
      if (t_.source_spans[static_cast<size_t>(s)].begin < x) at = ts.end;
    }
    return at;
  }

  // Where a point item (a verbatim span or an empty element) at source position x goes: MapPos, then
  //  - before the translation's final punctuation when it sat before the source's ("with {name}." stays
  //    "mit {name}.", never "mit. {name}", even where the final '.' aligns to an earlier word), or before
  //    words of the source (the model may end a string that had no final mark with one);
  //  - before an earlier sentence's end that it did not follow in the source ("with %@ members or less.
  //    Adding ..." is never "... auf. %@ Ein ...");
  //  - at a word boundary: a position inside a word of the translation moves to that word's end.
  size_t PointPos(size_t x) const {
    size_t at = MapPos(x);
    const std::string_view src = p_.text, out = t_.text;
    if (const size_t end = SentenceEndBefore(out, at); end != std::string_view::npos && SentenceEndBefore(src, x) == std::string_view::npos)
      at = end;
    const bool words_after = x < last_word_;  // (where the source has no final mark, the model may add one)
    const size_t from = std::max(x, src_tail_);  // (x may sit inside the tail: "Trainers: {n}!" leaves ": !")
    if (OnlyFinalFrom(from) || words_after) at = std::min(at, out_tail_);
    while (at > 0 && at < out.size() && WordByte(out[at - 1]) && WordByte(out[at])) ++at;
    return at;
  }

  std::pair<size_t, size_t> Raw(const Element& e, char* dropped) const {  // its range before the tree's rules
    if (e.kind == Element::Kind::kVerbatim || e.end <= e.begin) {
      const size_t at = PointPos(e.begin);
      return {at, at};
    }
    // The target tokens aligned into the element form runs (a gap of at most one other token inside a
    // run); the run with the most word tokens (then the most tokens, then the first) is the element's, so
    // a stray token aligned far away (often the final '.') does not stretch it over the sentence.
    size_t lo = 0, hi = 0, best_words = 0, best_tokens = 0;
    size_t run_lo = 0, run_hi = 0, run_words = 0, run_tokens = 0, last_k = 0;
    bool in_run = false, found = false;
    auto close_run = [&]() {
      if (in_run && (!found || run_words > best_words || (run_words == best_words && run_tokens > best_tokens))) {
        lo = run_lo, hi = run_hi, best_words = run_words, best_tokens = run_tokens, found = true;
      }
      in_run = false;
    };
    for (size_t k = 0; k < t_.token_spans.size() && k < t_.token_sources.size(); ++k) {
      const TextSpan& ts = t_.token_spans[k];
      const int32_t s = t_.token_sources[k];
      if (ts.end <= ts.begin || s < 0 || static_cast<size_t>(s) >= t_.source_spans.size()) continue;
      const TextSpan& ss = t_.source_spans[static_cast<size_t>(s)];
      if (!(ss.begin < e.end && ss.end > e.begin)) continue;
      if (in_run && k > last_k + 2) close_run();
      if (!in_run) in_run = true, run_lo = ts.begin, run_words = run_tokens = 0;
      run_hi = ts.end, last_k = k, ++run_tokens;
      for (size_t j = ts.begin; j < ts.end; ++j) {
        if (WordByte(t_.text[j])) { ++run_words; break; }
      }
    }
    close_run();
    if (!found) return *dropped = 1, Unplaced(e);
    const std::string& src = p_.text;
    const bool whole_words = (e.begin == 0 || !WordByte(src[e.begin - 1])) && (e.end >= src.size() || !WordByte(src[e.end]));
    if (whole_words) {
      while (lo > 0 && WordByte(t_.text[lo - 1])) --lo;
      while (hi < t_.text.size() && WordByte(t_.text[hi])) ++hi;
    }
    // Ending before the source's final marks, it ends before the translation's (PointPos: "...</0> error.").
    if (e.end <= src_tail_ && OnlyFinalFrom(src_tail_) && out_tail_ > lo && hi > out_tail_) hi = out_tail_;
    return {lo, hi};
  }

  // An element with source text that no target token aligns into (the model dropped, merged or moved its
  // words): it is not left empty when that text held a word; it wraps the translation's word where its
  // source position maps (the word after that point; at the end, the word before it).
  std::pair<size_t, size_t> Unplaced(const Element& e) const {
    const size_t at = PointPos(e.begin);
    const std::string_view out = t_.text;
    if (!HeldWord(e)) return {at, at};
    size_t b = at;
    while (b < out.size() && !WordByte(out[b])) ++b;
    size_t end = b;
    while (end < out.size() && WordByte(out[end])) ++end;
    if (b < out.size()) return {b, end};
    end = at;  // none after it: the word before
    while (end > 0 && !WordByte(out[end - 1])) --end;
    for (b = end; b > 0 && WordByte(out[b - 1]);) --b;
    return b < end ? std::pair<size_t, size_t>{b, end} : std::pair<size_t, size_t>{at, at};
  }

  // Fixes element i's range within [lo, hi], then its children's within it, in order.
  void Place(size_t i, size_t lo, size_t hi) {
    auto [b, e] = raw_[i];
    b = std::clamp(b, lo, hi);
    e = std::clamp(e, b, hi);
    tb_[i] = b, te_[i] = e;
    PlaceChildren(i + 1, b, e);
  }

  // The children of children_[slot] (0: the top) in order within [lo, hi]: each from where the one before
  // it ended; one that its siblings left without text although its source held a word is given the next.
  void PlaceChildren(size_t slot, size_t lo, size_t hi) {
    const std::vector<size_t>& kids = children_[slot];
    size_t cursor = lo;
    for (size_t k = 0; k < kids.size(); ++k) {
      Place(kids[k], cursor, hi);
      if (tb_[kids[k]] == te_[kids[k]]) TakeFreeWord(kids, k, hi);
      cursor = te_[kids[k]];
    }
  }

  // Element kids[k] (no children) held a word in the source but was left empty: its words were aligned
  // where a sibling before it stands, or the model dropped them. It wraps the translation's next whole word
  // after it, unless that word lies at or past where a later sibling's own aligned words begin (the first
  // sibling whose words begin after it; none of the next 64: no word is taken) or past `hi`. So an element
  // is left empty only when no free word follows it inside its parent; later siblings left empty in turn
  // take the words after it.
  void TakeFreeWord(const std::vector<size_t>& kids, size_t k, size_t hi) {
    const size_t c = kids[k], at = tb_[c];
    const Element& el = p_.elements[c];
    if (el.kind == Element::Kind::kVerbatim || !children_[c + 1].empty() || !HeldWord(el)) return;
    size_t limit = hi;
    for (size_t j = k + 1; j < kids.size(); ++j) {
      if (j > k + 64) {  // (a bound on the look-ahead: linear time on any line)
        limit = at;
        break;
      }
      const auto [rb, re] = raw_[kids[j]];
      if (re > rb && rb > at) {
        limit = std::min(rb, hi);
        break;
      }
    }
    const std::string_view out = t_.text;
    size_t w = at;
    while (w < limit && w > 0 && WordByte(out[w - 1]) && WordByte(out[w])) ++w;  // never from inside a word
    while (w < limit && !WordByte(out[w])) ++w;
    size_t end = w;
    while (end < limit && WordByte(out[end])) ++end;
    if (end > w && (end >= out.size() || !WordByte(out[end]))) tb_[c] = w, te_[c] = end;
  }

  bool HeldWord(const Element& e) const {  // its source text held a letter or digit
    const std::string_view t = std::string_view(p_.text).substr(std::min(e.begin, p_.text.size()));
    return std::any_of(t.begin(), t.begin() + std::min(e.end - std::min(e.end, e.begin), t.size()), WordByte);
  }

  void WriteText(size_t from, size_t to) {
    size_t k = from;
    if (space_ && k < to) {  // after a do-not-translate span that had a space after it
      const char c = t_.text[k];
      if (c != ' ' && !std::ispunct(static_cast<unsigned char>(c))) out_.push_back(' ');
    } else if (unglue_ && k < to && WordCharAt(t_.text, k)) {
      out_.push_back(' ');  // after a do-not-translate span: never glued to a word it was not glued to
    }
    if (k < to) space_ = unglue_ = false;
    while (k < to) {
      const auto c = static_cast<unsigned char>(t_.text[k]);
      const size_t len = std::min<size_t>(c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4, to - k);
      const size_t start = out_.size();
      AppendEscaped(t_.text.substr(k, len), p_, &out_);
      for (size_t j = k; j < k + len; ++j) ob_[j] = start, oe_[j] = out_.size();
      k += len;
    }
  }

  void Emit(size_t i) {
    const Element& e = p_.elements[i];
    // (Not right after a start tag: "<0>{count}" stays so.) A space still owed goes before a start tag.
    const bool owed = space_ && e.kind == Element::Kind::kPair;
    // An element whose words the model dropped (no target token aligns into it) and that no word was left
    // for keeps its source text, and the spaces around it.
    const bool as_is = dropped_[i] && tb_[i] == te_[i] && children_[i + 1].empty() && HeldWord(e);
    const std::string& src = p_.text;
    if ((e.space_before || owed || (as_is && e.begin > 0 && src[e.begin - 1] == ' ')) && !out_.empty() && out_.back() != ' ' && out_.size() != after_open_) out_.push_back(' ');
    // Kept text (a do-not-translate span, which took along any letters glued to it; a <code> element) that
    // no word touched in the source is never glued to one: a word the translation puts next to it gets a
    // space between.
    if (e.apart_before && !out_.empty() && out_.size() != after_open_ && WordCharAt(out_, out_.size(), true))
      out_.push_back(' ');
    out_.append(e.open);
    if (e.kind == Element::Kind::kVerbatim) {
      space_ = e.space_after;
      unglue_ = e.apart_after;
      return;
    }
    space_ = unglue_ = false;
    after_open_ = out_.size();
    size_t cursor = tb_[i];
    if (as_is) AppendEscaped(std::string_view(src).substr(e.begin, e.end - e.begin), p_, &out_);
    for (size_t c : children_[i + 1]) WriteText(cursor, tb_[c]), Emit(c), cursor = te_[c];
    WriteText(cursor, te_[i]);
    out_.append(e.close);
    space_ = e.space_after || (as_is && e.end < src.size() && src[e.end] == ' ');
    unglue_ = unglue_ || e.apart_after;  // (apart_after: only an element with no text of its own, html.cc)
  }

  const Parsed& p_;
  const AlignedTranslation& t_;
  std::vector<size_t>& ob_;
  std::vector<size_t>& oe_;
  std::vector<std::vector<size_t>> children_;  // [element + 1]: 0 is the top
  std::vector<size_t> tb_, te_;
  std::vector<std::pair<size_t, size_t>> raw_;  // [element] Raw: its target range before the tree's constraints
  std::vector<char> dropped_;  // [element] no target token aligns into its text (Raw)
  std::string out_;
  bool space_ = false;  // a space is owed before the next text
  bool unglue_ = false;  // a space is owed before the next text if it starts with a letter or digit
  size_t after_open_ = std::string::npos;  // where the output stood after the last start tag
  size_t last_word_ = p_.text.size();       // the source's plain text: one past its last letter or digit
  const size_t src_tail_ = FinalPunctuationStart(p_.text), out_tail_ = FinalPunctuationStart(t_.text);
  const size_t src_final_ = FinalMarkEnd(p_.text, src_tail_);  // one past the source's last final mark
};

}  // namespace

std::string Transfer(const Parsed& p, const AlignedTranslation& t, std::vector<size_t>* out_begin,
                     std::vector<size_t>* out_end) {
  Placer placer(p, t, out_begin, out_end);
  return placer.Run();
}

}  // namespace tern::markup
