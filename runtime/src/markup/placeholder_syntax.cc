#include "markup/placeholder_syntax.h"

#include <algorithm>
#include <string>

#include "tern/options.h"

#include <cctype>
#include <cstring>

namespace tern::markup::syntax {
namespace {

bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IdentByte(char c) { return Alnum(c) || c == '_' || c == '-'; }

size_t Digits(std::string_view t, size_t k) {
  while (k < t.size() && Digit(t[k])) ++k;
  return k;
}

// "*" or "*m$" at k (a width or precision from an argument): the byte after it, or k.
size_t Star(std::string_view t, size_t k) {
  if (k >= t.size() || t[k] != '*') return k;
  const size_t d = Digits(t, k + 1);
  return d > k + 1 && d < t.size() && t[d] == '$' ? d + 1 : k + 1;
}

// Length modifier at k: the byte after it.
size_t Length(std::string_view t, size_t k) {
  if (k + 1 < t.size() && ((t[k] == 'h' && t[k + 1] == 'h') || (t[k] == 'l' && t[k + 1] == 'l'))) return k + 2;
  if (k < t.size() && std::strchr("hlLqjzZt", t[k]) && t[k] != '\0') return k + 1;
  return k;
}

}  // namespace

size_t Printf(std::string_view t, size_t i, bool before_words) {
  if (i + 1 >= t.size()) return 0;
  if (t[i + 1] == '%') return i + 2;
  size_t k = i + 1;
  bool specific = false;  // a position, width or precision: then a letter may follow
  const size_t d = Digits(t, k);
  if (d > k && d < t.size() && t[d] == '$') k = d + 1, specific = true;
  while (k < t.size() && std::strchr("-+#0'", t[k]) && t[k] != '\0') ++k;
  size_t w = Star(t, k);
  if (w == k) w = Digits(t, k);
  specific |= w > k;
  k = w;
  if (k < t.size() && t[k] == '.') {
    size_t p = Star(t, k + 1);
    if (p == k + 1) p = Digits(t, k + 1);
    k = p, specific = true;
  }
  k = Length(t, k);
  if (k >= t.size() || !std::strchr("diouxXeEfFgGaAcCsSpn@", t[k]) || t[k] == '\0') return 0;
  // A bare conversion that a lower-case word goes on from is prose ("%sure", "%done", "%last"); one
  // followed by a unit or a single letter is a placeholder ("%sK", "%dMB", "%dx").
  if (!specific && !before_words && k + 2 < t.size() && std::islower(static_cast<unsigned char>(t[k + 1])) &&
      std::isalpha(static_cast<unsigned char>(t[k + 2])))
    return 0;
  return k + 1;
}

size_t PythonNamed(std::string_view t, size_t i) {
  if (i + 2 >= t.size() || t[i + 1] != '(' || !IdentStart(t[i + 2])) return 0;
  size_t k = i + 3;
  while (k < t.size() && k - i <= 64 && (IdentByte(t[k]) || t[k] == '.')) ++k;
  if (k >= t.size() || t[k] != ')') return 0;
  ++k;
  while (k < t.size() && std::strchr("-+#0", t[k]) && t[k] != '\0') ++k;  // (no space flag: "%(n) files")
  k = Digits(t, k);
  if (k < t.size() && t[k] == '.') k = Digits(t, k + 1);
  if (k >= t.size() || !std::strchr("diouxXeEfFgGcrsa", t[k]) || t[k] == '\0') return 0;
  return k + 1;
}

size_t RubyNamed(std::string_view t, size_t i) {
  if (i + 2 >= t.size() || t[i + 1] != '{' || !IdentStart(t[i + 2])) return 0;
  size_t k = i + 3;
  while (k < t.size() && k - i <= 64 && (Alnum(t[k]) || t[k] == '_')) ++k;
  return k < t.size() && t[k] == '}' ? k + 1 : 0;
}

namespace {

// ICU MessageFormat's simple arguments at '{' with spaces (react-intl, Lingui): {name, number},
// {d, date, full}, {t, time, short}, {n, spellout | ordinal | duration}, a style of at most 64 bytes without
// braces. (plural, select and selectordinal hold messages: tern's ICU path, icu_message.h.)
size_t IcuSimpleArgument(std::string_view t, size_t i) {
  size_t k = i + 1;
  auto spaces = [&] {
    while (k < t.size() && Space(t[k])) ++k;
  };
  spaces();
  const size_t name = k;
  while (k < t.size() && k - name < 64 && (IdentByte(t[k]))) ++k;
  if (k == name) return 0;
  spaces();
  if (k >= t.size() || t[k] != ',') return 0;
  ++k;
  spaces();
  const size_t type = k;
  while (k < t.size() && std::isalpha(static_cast<unsigned char>(t[k]))) ++k;
  const std::string_view word = t.substr(type, k - type);
  if (word != "number" && word != "date" && word != "time" && word != "spellout" && word != "ordinal" &&
      word != "duration")
    return 0;
  spaces();
  if (k < t.size() && t[k] == ',') {
    const size_t style = ++k;
    while (k < t.size() && k - style <= 64 && t[k] != '}' && t[k] != '{') ++k;
  }
  return k < t.size() && t[k] == '}' ? k + 1 : 0;
}

}  // namespace

size_t Brace(std::string_view t, size_t i) {
  const bool twice = i + 1 < t.size() && t[i + 1] == '{';
  size_t k = i + (twice ? 2 : 1);
  const size_t start = k;
  while (k < t.size() && k - i <= 64 && t[k] != '}' && t[k] != '{' && !Space(t[k])) ++k;
  if (!twice && (k >= t.size() || t[k] != '}')) return IcuSimpleArgument(t, i);
  if (k == start || k >= t.size() || t[k] != '}') return 0;
  if (twice) return k + 1 < t.size() && t[k + 1] == '}' ? k + 2 : 0;
  return k + 1;
}

namespace {

// Fluent call arguments at k (just after "("): the byte after the closing ")", or 0. Quoted strings may hold
// any byte but a newline; no braces or nested calls; at most 256 bytes.
size_t FluentArguments(std::string_view t, size_t k) {
  const size_t start = k;
  while (k < t.size() && k - start <= 256) {
    const char c = t[k];
    if (c == ')') return k + 1;
    if (c == '{' || c == '}' || c == '(' || c == '\n') return 0;
    if (c == '"') {
      for (++k; k < t.size() && k - start <= 256 && t[k] != '"' && t[k] != '\n'; k += t[k] == '\\' ? 2 : 1) {
      }
      if (k >= t.size() || t[k] != '"') return 0;
    }
    ++k;
  }
  return 0;
}

}  // namespace

size_t FluentExpression(std::string_view t, size_t k) {
  const size_t i = k;
  if (k + 1 >= t.size()) return 0;
  if (t[k] == '$' || t[k] == '-') {  // { $var }, { -term }, { -term.attr }, { -term(case: "x") }
    if (!IdentStart(t[k + 1])) return 0;
    const bool term = t[k] == '-';
    k += 2;
    while (k < t.size() && k - i <= 64 && (IdentByte(t[k]) || (term && t[k] == '.'))) ++k;
    if (term && k < t.size() && t[k] == '(' && !(k = FluentArguments(t, k + 1))) return 0;
  } else if (std::isupper(static_cast<unsigned char>(t[k]))) {  // { NUMBER($n) }, { DATETIME($d, dateStyle: "long") }
    const size_t name = k;
    auto name_byte = [](char c) { return std::isupper(static_cast<unsigned char>(c)) || Digit(c) || c == '_' || c == '-'; };
    while (k < t.size() && k - name <= 64 && name_byte(t[k])) ++k;
    if (k >= t.size() || t[k] != '(' || !(k = FluentArguments(t, k + 1))) return 0;
  } else {
    return 0;
  }
  return k;
}

size_t FluentVariantKey(std::string_view t, size_t k) {
  auto blanks = [&]() {
    while (k < t.size() && Space(t[k])) ++k;
  };
  if (k < t.size() && t[k] == '*') ++k;
  if (k >= t.size() || t[k] != '[') return 0;
  ++k, blanks();
  const size_t b = k;
  while (k < t.size() && k - b <= 64 && (Alnum(t[k]) || t[k] == '_' || t[k] == '-' || t[k] == '.')) ++k;
  if (k == b || k - b > 64) return 0;
  blanks();
  return k < t.size() && t[k] == ']' ? k + 1 : 0;
}

size_t Fluent(std::string_view t, size_t i) {
  size_t k = i + 1;
  while (k < t.size() && t[k] == ' ') ++k;
  if (!(k = FluentExpression(t, k))) return 0;
  while (k < t.size() && t[k] == ' ') ++k;
  return k < t.size() && t[k] == '}' ? k + 1 : 0;
}

size_t I18nextNesting(std::string_view t, size_t i) {
  if (i + 3 >= t.size() || t[i + 1] != 't' || t[i + 2] != '(' || (i > 0 && (Alnum(t[i - 1]) || t[i - 1] == '_')))
    return 0;
  size_t k = i + 3;
  const size_t start = k;
  while (k < t.size() && k - i <= 64 && t[k] != ')' && t[k] != '(' && !Space(t[k])) ++k;
  return k > start && k < t.size() && t[k] == ')' ? k + 1 : 0;
}

size_t Shell(std::string_view t, size_t i) {
  if (i + 1 >= t.size() || (i > 0 && (Alnum(t[i - 1]) || t[i - 1] == '_'))) return 0;
  const bool braced = t[i + 1] == '{';
  size_t k = i + (braced ? 2 : 1);
  const size_t start = k;
  auto name_byte = [&](size_t at) { return Alnum(t[at]) || t[at] == '_'; };
  if (k >= t.size() || !(std::isalpha(static_cast<unsigned char>(t[k])) || t[k] == '_')) return 0;
  while (k < t.size() && k - start < 64 && name_byte(k)) ++k;
  if (!braced) return k < t.size() && name_byte(k) ? 0 : k;  // longer than 64 bytes: not one
  return k < t.size() && t[k] == '}' ? k + 1 : 0;
}

}  // namespace tern::markup::syntax

namespace tern {

Result<uint32_t> PlaceholderSyntaxesFromNames(std::string_view names) {
  static const struct {
    const char* name;
    uint32_t bits;
  } kNames[] = {{"printf", placeholder_syntax::kPrintf},   {"python-named", placeholder_syntax::kPythonNamed},
                {"ruby-named", placeholder_syntax::kRubyNamed}, {"brace", placeholder_syntax::kBrace},
                {"fluent", placeholder_syntax::kFluent},   {"i18next", placeholder_syntax::kI18nextNesting},
                {"shell", placeholder_syntax::kShell},     {"url", placeholder_syntax::kUrl},
                {"email", placeholder_syntax::kEmail},     {"number-unit", placeholder_syntax::kNumberUnit},
                {"default", placeholder_syntax::kDefault}, {"all", placeholder_syntax::kAll},
                {"none", 0}};
  uint32_t bits = 0;
  size_t at = 0;
  while (true) {
    const size_t comma = std::min(names.find(',', at), names.size());
    std::string_view name = names.substr(at, comma - at);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    bool known = false;
    for (const auto& n : kNames)
      if (name == n.name) bits |= n.bits, known = true;
    if (!known)
      return Status(StatusCode::kInvalidArgument,
                    "placeholder syntax '" + std::string(name) +
                        "' (printf, python-named, ruby-named, brace, fluent, i18next, shell, url, email, number-unit, "
                        "default, all, none)");
    if (comma == names.size()) return bits;
    at = comma + 1;
  }
}

}  // namespace tern
