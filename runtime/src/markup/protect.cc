#include "markup/protect.h"

#include "markup/placeholder_syntax.h"

#include <cctype>
#include <cstring>

namespace tern::markup {
namespace {

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
// A byte that may be part of a word (letters of any script: every non-ASCII byte).
bool WordByte(char c) { return Alnum(c) || (static_cast<unsigned char>(c) & 0x80); }

bool StartsWithNoCase(std::string_view s, size_t i, const char* p) {
  const size_t n = std::strlen(p);
  if (i + n > s.size()) return false;
  for (size_t k = 0; k < n; ++k)
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != p[k]) return false;
  return true;
}

size_t Url(std::string_view t, size_t i) {
  if (i > 0 && WordByte(t[i - 1])) return 0;
  if (!StartsWithNoCase(t, i, "http://") && !StartsWithNoCase(t, i, "https://") && !StartsWithNoCase(t, i, "ftp://") &&
      !StartsWithNoCase(t, i, "www."))
    return 0;
  size_t k = i;
  while (k < t.size() && !Space(t[k]) && t[k] != '<' && t[k] != '"') ++k;
  while (k > i && std::strchr(".,;:!?)'", t[k - 1])) --k;
  return k > i + 4 ? k : 0;
}

size_t Email(std::string_view t, size_t at, size_t* begin) {  // around the '@' at `at`
  size_t b = at;
  while (b > 0 && (Alnum(t[b - 1]) || std::strchr("._%+-", t[b - 1]))) --b;
  if (b == at || (b > 0 && WordByte(t[b - 1]))) return 0;
  size_t k = at + 1, dots = 0, label = 0;
  while (k < t.size() && (Alnum(t[k]) || t[k] == '-' || t[k] == '.')) {
    if (t[k] == '.') {
      if (label == 0) break;
      ++dots, label = 0;
    } else {
      ++label;
    }
    ++k;
  }
  if (label == 0 && k > at + 1 && t[k - 1] == '.') --k, --dots;
  if (dots == 0 || k <= at + 1 || !Alnum(t[k - 1])) return 0;
  *begin = b;
  return k;
}

size_t NumberUnit(std::string_view t, size_t i) {
  if (i > 0 && (WordByte(t[i - 1]) || t[i - 1] == '.' || t[i - 1] == ',')) return 0;
  size_t k = i;
  while (k < t.size() && (std::isdigit(static_cast<unsigned char>(t[k])) ||
                          ((t[k] == '.' || t[k] == ',') && k + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[k + 1])))))
    ++k;
  if (k == i) return 0;
  size_t u = k < t.size() && t[k] == ' ' ? k + 1 : k;
  static const char* const kUnits[] = {"km/h", "mph", "MHz", "GHz", "KB", "MB", "GB", "TB", "km", "cm", "mm", "kg", "mg",
                                       "ml", "min", "ms", "px", "pt", "\xc2\xb0" "C", "\xc2\xb0" "F", "%%", "%", "m", "g", "l", "h", "s"};
  for (const char* unit : kUnits) {
    const size_t n = std::strlen(unit);
    if (t.compare(u, n, unit) != 0) continue;
    if (u + n < t.size() && WordByte(t[u + n])) continue;
    return u + n;
  }
  return 0;
}

}  // namespace

TextSpan NextPlaceholder(std::string_view t, size_t from, uint32_t syntaxes) {
  namespace ps = placeholder_syntax;
  auto on = [syntaxes](uint32_t bit) { return (syntaxes & bit) != 0; };
  for (size_t i = from; i < t.size(); ++i) {
    size_t b = i, e = 0;
    const char c = t[i];
    if (c == '{') {
      if (on(ps::kFluent)) e = syntax::Fluent(t, i);
      if (!e && on(ps::kBrace)) e = syntax::Brace(t, i);
    } else if (c == '%') {  // one parser per '%', chosen by the next byte (a 1 MiB line of "%1$" stays cheap)
      const char n = i + 1 < t.size() ? t[i + 1] : 0;
      if (n == '(') e = on(ps::kPythonNamed) ? syntax::PythonNamed(t, i) : 0;
      else if (n == '{') e = on(ps::kRubyNamed) ? syntax::RubyNamed(t, i) : 0;
      // "%(" and "%{" that are not those: printf's (say "%(" is no conversion: 0).
      if (!e && on(ps::kPrintf)) e = syntax::Printf(t, i, on(kPrintfBeforeWords));
    } else if (c == '$') {
      if (on(ps::kI18nextNesting)) e = syntax::I18nextNesting(t, i);
      if (!e && on(ps::kShell)) e = syntax::Shell(t, i);
    } else if (c == '@') {
      if (on(ps::kEmail)) e = Email(t, i, &b);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (on(ps::kNumberUnit)) e = NumberUnit(t, i);
    }
    // A placeholder glued to letters takes them along ("%sK", "{n}px", "x%d"): a piece of a word is not
    // something the model can translate, and the word stays as written.
    if (e && c != '@' && !std::isdigit(static_cast<unsigned char>(c))) {
      while (e < t.size() && std::isalpha(static_cast<unsigned char>(t[e]))) ++e;
      size_t w = b;
      while (w > from && std::isalpha(static_cast<unsigned char>(t[w - 1]))) --w;
      if (w == 0 || t[w - 1] != '\\') b = w;  // not the letter of an escape such as "\n"
      // A mention's or a hashtag's sigil right before it goes along ("@{username}", "#{tag}"), unless a word
      // is glued to the sigil (an e-mail address's "user@{domain}" is prose around a placeholder).
      if (b > from && (t[b - 1] == '@' || t[b - 1] == '#') && (b < from + 2 || !WordByte(t[b - 2]))) --b;
    }
    if (!e && on(ps::kUrl)) e = Url(t, i), b = i;
    // An e-mail address starts before its '@': one that begins before `from` overlaps what came before.
    if (e && b >= from) return {b, e};
  }
  return {t.size(), t.size()};
}

void FindPlaceholders(std::string_view t, std::vector<TextSpan>* out, uint32_t syntaxes) {
  for (TextSpan s = NextPlaceholder(t, 0, syntaxes); s.begin < t.size(); s = NextPlaceholder(t, s.end, syntaxes))
    out->push_back(s);
}

uint32_t AutoProtectSyntaxes(const TranslateOptions& o, std::string_view text) {
  if (!o.auto_protect || o.keep_placeholders || o.markup != Markup::kNone || !o.keep_spans.empty() || o.on_token ||
      !o.target_prefix.empty() || !o.target_prefix_ids.empty() || o.alternatives)
    return 0;
  const uint32_t syntaxes = o.placeholder_syntaxes & placeholder_syntax::kAutoProtect;
  return syntaxes && NextPlaceholder(text, 0, syntaxes).begin < text.size() ? syntaxes : 0;
}

Status Protect(std::string_view text, const std::vector<TextSpan>& spans, Parsed* out) {
  *out = Parsed();
  out->plain = true;
  size_t at = 0;
  for (const TextSpan& s : spans) {
    if (s.begin < at || s.end <= s.begin || s.end > text.size())
      return Status(StatusCode::kInvalidArgument, "do-not-translate span [" + std::to_string(s.begin) + ", " + std::to_string(s.end) +
                                                      ") overlaps another, is out of order or leaves the text");
    for (size_t x : {s.begin, s.end})
      if (x < text.size() && (static_cast<unsigned char>(text[x]) & 0xc0) == 0x80)
        return Status(StatusCode::kInvalidArgument, "do-not-translate span [" + std::to_string(s.begin) + ", " +
                                                        std::to_string(s.end) + ") cuts a UTF-8 character");
    size_t keep_to = s.begin;
    const bool before = s.begin > 0 && Space(text[s.begin - 1]);
    const bool after = s.end < text.size() && Space(text[s.end]);
    if (before && after) --keep_to;  // "a {0} b" -> "a b": one of the two spaces goes with the span
    for (size_t k = at; k < keep_to; ++k) {
      out->text.push_back(text[k]);
      out->origin.push_back(static_cast<uint32_t>(k));
      out->origin_end.push_back(static_cast<uint32_t>(k + 1));
    }
    Element e;
    e.kind = Element::Kind::kVerbatim;
    e.open = std::string(text.substr(s.begin, s.end - s.begin));
    e.begin = e.end = out->text.size();
    e.source_offset = s.begin;
    e.space_before = before;
    e.space_after = after;
    MarkApart(&e, text, s.begin, s.end);
    out->elements.push_back(std::move(e));
    at = s.end;
  }
  for (size_t k = at; k < text.size(); ++k) {
    out->text.push_back(text[k]);
    out->origin.push_back(static_cast<uint32_t>(k));
    out->origin_end.push_back(static_cast<uint32_t>(k + 1));
  }
  return Status::Ok();
}

std::optional<std::string_view> AttributeValue(std::string_view tag, const char* name) {
  const size_t n = std::strlen(name);
  for (size_t i = 1; i + n < tag.size(); ++i) {
    if (!Space(tag[i - 1]) || !StartsWithNoCase(tag, i, name)) continue;
    size_t k = i + n;
    while (k < tag.size() && Space(tag[k])) ++k;
    if (k >= tag.size() || tag[k] != '=') continue;
    ++k;
    while (k < tag.size() && Space(tag[k])) ++k;
    const char q = k < tag.size() ? tag[k] : 0;
    if (q == '"' || q == '\'') {
      const size_t close = tag.find(q, k + 1);
      if (close == std::string_view::npos) return std::nullopt;
      return tag.substr(k + 1, close - k - 1);
    }
    size_t e = k;
    while (e < tag.size() && !Space(tag[e]) && tag[e] != '>' && tag[e] != '/') ++e;
    return tag.substr(k, e - k);
  }
  return std::nullopt;
}

bool TranslateNo(std::string_view tag) {
  const std::optional<std::string_view> v = AttributeValue(tag, "translate");
  return v && v->size() == 2 && StartsWithNoCase(*v, 0, "no");
}

bool KeptByDefault(const std::string& name, std::string_view tag) {
  const std::optional<std::string_view> translate = AttributeValue(tag, "translate");
  if (translate && translate->size() == 3 && StartsWithNoCase(*translate, 0, "yes")) return false;
  if (name == "code" || name == "kbd" || name == "samp" || name == "var" || name == "pre") return true;
  const std::optional<std::string_view> cls = AttributeValue(tag, "class");
  if (!cls) return false;
  for (size_t i = 0; i < cls->size();) {  // a space-separated token "notranslate" (Google's convention)
    while (i < cls->size() && Space((*cls)[i])) ++i;
    size_t e = i;
    while (e < cls->size() && !Space((*cls)[e])) ++e;
    if (e - i == 11 && StartsWithNoCase(*cls, i, "notranslate")) return true;
    i = e;
  }
  return false;
}

}  // namespace tern::markup
