#include "markup/icu_message.h"

#include <algorithm>
#include <cctype>

#include "markup/placeholder_syntax.h"

namespace tern::markup {
namespace {

constexpr int kMaxDepth = 32;

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// What ends a text: the end of the message, its case's '}', or (a Fluent variant's pattern) the select
// expression's '}' or the next variant's key, on a line of its own when the variants are written on lines.
enum class Ends : uint8_t { kMessage, kCase, kVariant, kVariantLine };

class Parser {
 public:
  Parser(std::string_view s, IcuMessage* m, bool fluent) : s_(s), m_(m), fluent_(fluent) {}

  Status Run() {
    size_t end = 0, index = 0;
    return Message(0, false, Ends::kMessage, 0, &end, &index);
  }

 private:
  Status Error(const std::string& what) const { return Status(StatusCode::kInvalidArgument, "ICU MessageFormat: " + what); }
  Status FluentError(const std::string& what) const { return Status(StatusCode::kInvalidArgument, "Fluent: " + what); }
  static std::string At(size_t k) { return " at byte " + std::to_string(k); }

  void SkipSpace(size_t* k) const {
    while (*k < s_.size() && Space(s_[*k])) ++*k;
  }

  // A name, type, keyword or selector: up to a space, brace, comma or apostrophe.
  std::string_view Word(size_t* k) const {
    const size_t b = *k;
    while (*k < s_.size() && !Space(s_[*k]) && s_[*k] != '{' && s_[*k] != '}' && s_[*k] != ',' && s_[*k] != '\'') ++*k;
    return s_.substr(b, *k - b);
  }

  // The text from `begin` to what ends it (`ends`); *end is the byte after its '}' (a case), or where the
  // next variant key or the select expression's '}' stands (a variant).
  Status Message(size_t begin, bool plural, Ends ends, int depth, size_t* end, size_t* index) {
    if (depth > kMaxDepth) return Error("nested deeper than " + std::to_string(kMaxDepth) + " levels" + At(begin));
    *index = m_->texts.size();
    m_->texts.push_back({});
    size_t k = begin;
    const size_t n = s_.size();
    const bool variant = ends == Ends::kVariant || ends == Ends::kVariantLine;
    while (k < n) {
      const char c = s_[k];
      if (variant && (c == '}' || ((c == '[' || c == '*') && syntax::FluentVariantKey(s_, k) && KeyStarts(begin, k, ends)))) {
        m_->texts[*index].span = {begin, k};
        *end = k;
        return Status::Ok();
      }
      if (c == '\'' && !variant) {  // (Fluent has no quoting)
        if (k + 1 < n && s_[k + 1] == '\'') {  // '' : one apostrophe
          k += 2;
          continue;
        }
        const char q = k + 1 < n ? s_[k + 1] : 0;
        if (q == '{' || q == '}' || q == '|' || (plural && q == '#')) {  // quoted literal text up to the next single '
          size_t j = k + 1;
          while (j < n && !(s_[j] == '\'' && !(j + 1 < n && s_[j + 1] == '\''))) j += s_[j] == '\'' ? 2 : 1;
          k = j < n ? j + 1 : n;
          continue;
        }
        ++k;
        continue;
      }
      if (c == '{') {
        size_t a = 0;
        TERN_RETURN_IF_ERROR(Argument(k, depth, &k, &a));
        m_->texts[*index].arguments.push_back(a);
        continue;
      }
      if (c == '}') {
        if (ends == Ends::kMessage) return Error("'}'" + At(k) + " closes nothing");
        m_->texts[*index].span = {begin, k};
        *end = k + 1;
        return Status::Ok();
      }
      if (plural && c == '#') m_->texts[*index].numbers.push_back({k, k + 1});
      ++k;
    }
    if (variant) return FluentError("the select expression's '{' is not closed (its variant" + At(begin) + ")");
    if (ends == Ends::kCase) return Error("'{'" + At(begin - 1) + " is not closed");
    m_->texts[*index].span = {begin, n};
    *end = n;
    return Status::Ok();
  }

  // The argument whose '{' is at `open`; *end is the byte after its '}'.
  Status Argument(size_t open, int depth, size_t* end, size_t* index) {
    *index = m_->arguments.size();
    m_->arguments.push_back({});
    size_t k = open + 1;
    SkipSpace(&k);
    auto close = [&](size_t at) {
      m_->arguments[*index].span = {open, at + 1};
      *end = at + 1;
      return Status::Ok();
    };
    if (const size_t e = fluent_ ? syntax::FluentExpression(s_, k) : 0) {  // { $n }, { -term }, { $n -> ... }
      SkipSpace(&(k = e));
      if (k < s_.size() && s_[k] == '}') return close(k);
      if (k + 1 >= s_.size() || s_[k] != '-' || s_[k + 1] != '>') return FluentError("'{'" + At(open) + " is not closed");
      return Variants(open, k + 2, depth, *index, end);
    }
    if (fluent_ && k < s_.size() && s_[k] == '"') {  // a string literal, Fluent's escape: {"{"}, {"\u00A0"}
      for (++k; k < s_.size() && s_[k] != '"' && s_[k] != '\n'; k += s_[k] == '\\' ? 2 : 1) {
      }
      if (k < s_.size() && s_[k] == '"') SkipSpace(&++k);
      if (k < s_.size() && s_[k] == '}') return close(k);
      return FluentError("the string literal in '{'" + At(open) + " is not closed");
    }
    if (Word(&k).empty()) return Error("an argument without a name" + At(open));
    SkipSpace(&k);
    if (k >= s_.size()) return Error("'{'" + At(open) + " is not closed");
    if (s_[k] == '}') return close(k);
    if (s_[k] != ',') return Error(std::string("'") + s_[k] + "'" + At(k) + " in the argument" + At(open));
    ++k;
    SkipSpace(&k);
    const std::string_view type = Word(&k);
    SkipSpace(&k);
    if (type.empty()) return Error("an argument without a type" + At(open));
    const bool plural = type == "plural" || type == "selectordinal";
    if (plural || type == "select") {
      if (k >= s_.size() || s_[k] != ',') return Error("'" + std::string(type) + "' without its cases" + At(open));
      ++k;
      size_t cases = 0;
      while (true) {
        SkipSpace(&k);
        if (k >= s_.size()) return Error("'{'" + At(open) + " is not closed");
        if (s_[k] == '}') {
          if (cases == 0) return Error("'" + std::string(type) + "' without its cases" + At(open));
          return close(k);
        }
        const size_t sel_at = k;
        const std::string_view selector = Word(&k);
        if (selector.empty()) return Error(std::string("'") + s_[k] + "'" + At(k) + " where a selector belongs");
        if (plural && selector.substr(0, 7) == "offset:") {  // "offset:1", or "offset:" then the number
          if (selector.size() == 7) {
            SkipSpace(&k);
            if (Word(&k).empty()) return Error("offset without a number" + At(sel_at));
          }
          continue;
        }
        SkipSpace(&k);
        if (k >= s_.size() || s_[k] != '{') return Error("case '" + std::string(selector) + "'" + At(sel_at) + " without its message");
        size_t sub = 0;
        TERN_RETURN_IF_ERROR(Message(k + 1, plural, Ends::kCase, depth + 1, &k, &sub));
        m_->arguments[*index].messages.push_back(sub);
        ++cases;
      }
    }
    // A simple argument ({n, number}, {d, date, short}, a choice): its style kept whole, braces balanced.
    if (k < s_.size() && s_[k] == '}') return close(k);
    if (k >= s_.size() || s_[k] != ',') return Error("'{'" + At(open) + " is not closed");
    int level = 0;
    for (++k; k < s_.size(); ++k) {
      if (s_[k] == '\'') {  // quoted style text
        const size_t q = s_.find('\'', k + 1);
        if (q == std::string_view::npos) break;
        k = q;
      } else if (s_[k] == '{') {
        ++level;
      } else if (s_[k] == '}') {
        if (level == 0) return close(k);
        --level;
      }
    }
    return Error("'{'" + At(open) + " is not closed");
  }

  // A key starts the next variant where it stands after a space (one line), or first on its line.
  bool KeyStarts(size_t begin, size_t k, Ends ends) const {
    if (ends == Ends::kVariant) return k == begin || Space(s_[k - 1]);
    size_t j = k;
    while (j > begin && (s_[j - 1] == ' ' || s_[j - 1] == '\t')) --j;
    return j == begin || s_[j - 1] == '\n' || s_[j - 1] == '\r';
  }

  // A Fluent select expression's variants, from k (after "->") to its '}' (Fluent's syntax guide, "Selectors":
  // "[key] pattern" per variant, exactly one default "*[key]").
  Status Variants(size_t open, size_t k, int depth, size_t index, size_t* end) {
    size_t defaults = 0;
    const size_t first = k;
    SkipSpace(&k);
    const Ends ends = s_.substr(first, k - first).find('\n') != std::string_view::npos ? Ends::kVariantLine : Ends::kVariant;
    while (true) {
      SkipSpace(&k);
      if (k >= s_.size()) return FluentError("the select expression's '{'" + At(open) + " is not closed");
      if (s_[k] == '}') {
        if (defaults != 1) return FluentError("the select expression" + At(open) + " needs one default variant (*[key])");
        m_->arguments[index].span = {open, k + 1};
        *end = k + 1;
        return Status::Ok();
      }
      const size_t after = syntax::FluentVariantKey(s_, k);
      if (!after) return FluentError(std::string("'") + s_[k] + "'" + At(k) + " where a variant key ([one], *[other]) belongs");
      defaults += s_[k] == '*';
      size_t sub = 0;
      TERN_RETURN_IF_ERROR(Message(after, false, ends, depth + 1, &k, &sub));
      m_->arguments[index].messages.push_back(sub);
    }
  }

  std::string_view s_;
  IcuMessage* m_;
  bool fluent_ = false;
};

bool WordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalpha(u);
}

}  // namespace

Status ParseIcuMessage(std::string_view message, IcuMessage* out, bool fluent) {
  *out = IcuMessage();
  return Parser(message, out, fluent).Run();
}

bool IcuPiece(std::string_view message, const IcuMessage& m, size_t t, std::string* text, std::vector<TextSpan>* keep) {
  const IcuText& x = m.texts[t];
  *text = std::string(message.substr(x.span.begin, x.span.end - x.span.begin));
  keep->clear();
  for (size_t a : x.arguments) keep->push_back({m.arguments[a].span.begin - x.span.begin, m.arguments[a].span.end - x.span.begin});
  for (const TextSpan& s : x.numbers) keep->push_back({s.begin - x.span.begin, s.end - x.span.begin});
  std::sort(keep->begin(), keep->end(), [](const TextSpan& a, const TextSpan& b) { return a.begin < b.begin; });
  size_t at = 0;
  bool letters = false;
  for (const TextSpan& s : *keep) {
    for (size_t k = at; k < s.begin && !letters; ++k) letters = WordByte((*text)[k]);
    at = s.end;
  }
  for (size_t k = at; k < text->size() && !letters; ++k) letters = WordByte((*text)[k]);
  return letters;
}

namespace {

Status Build(std::string_view message, const IcuMessage& m, const std::vector<std::string>& tr, size_t t, int depth,
             std::string* out) {
  if (depth > kMaxDepth + 1) return Status(StatusCode::kInvalidArgument, "ICU MessageFormat: nested too deep");
  std::string s = tr[t];
  // Where each argument with cases stands in the translation (verbatim, found before any is replaced).
  std::vector<std::pair<size_t, size_t>> at;  // (position, argument)
  for (size_t a : m.texts[t].arguments) {
    const IcuArgument& arg = m.arguments[a];
    if (arg.messages.empty()) continue;
    const std::string_view orig = message.substr(arg.span.begin, arg.span.end - arg.span.begin);
    size_t p = s.find(orig);
    while (p != std::string::npos && std::any_of(at.begin(), at.end(), [&](const auto& x) { return x.first == p; }))
      p = s.find(orig, p + 1);
    if (p == std::string::npos)
      return Status(StatusCode::kInvalidArgument, "ICU MessageFormat: the translation lost the argument at byte " +
                                                      std::to_string(arg.span.begin));
    at.push_back({p, a});
  }
  std::sort(at.begin(), at.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (const auto& [p, a] : at) {
    const IcuArgument& arg = m.arguments[a];
    std::string rebuilt(message.substr(arg.span.begin, arg.span.end - arg.span.begin));
    for (size_t j = arg.messages.size(); j-- > 0;) {  // back to front: earlier offsets stay valid
      const TextSpan& sub = m.texts[arg.messages[j]].span;
      std::string inner;
      TERN_RETURN_IF_ERROR(Build(message, m, tr, arg.messages[j], depth + 1, &inner));
      rebuilt.replace(sub.begin - arg.span.begin, sub.end - sub.begin, inner);
    }
    s.replace(p, arg.span.end - arg.span.begin, rebuilt);
  }
  *out = std::move(s);
  return Status::Ok();
}

}  // namespace

Status RebuildIcuMessage(std::string_view message, const IcuMessage& m, const std::vector<std::string>& translations,
                         std::string* out) {
  if (translations.size() != m.texts.size())
    return Status(StatusCode::kInternal, "RebuildIcuMessage: a translation per text is needed");
  return Build(message, m, translations, 0, 0, out);
}

}  // namespace tern::markup
