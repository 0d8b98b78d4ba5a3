#include "markup/scan.h"

#include <algorithm>
#include <cctype>

namespace tern::markup {

size_t TagEnds::At(size_t i) {
  const size_t n = line_.size();
  if (end_from_.empty()) {
    // Right to left: outside quotes at p, a tag ends at the first '>', or jumps over a quoted value to the
    // byte after its closing quote (an unclosed quote: the line ends first).
    end_from_.assign(n + 1, 0);
    size_t next_dq = n, next_sq = n;  // the next '"' / '\'' after p
    for (size_t p = n; p-- > 0;) {
      const char c = line_[p];
      if (c == '>') end_from_[p] = static_cast<uint32_t>(p + 2);
      else if (c == '"') end_from_[p] = next_dq < n ? end_from_[next_dq + 1] : 0;
      else if (c == '\'') end_from_[p] = next_sq < n ? end_from_[next_sq + 1] : 0;
      else end_from_[p] = end_from_[p + 1];
      if (c == '"') next_dq = p;
      if (c == '\'') next_sq = p;
    }
  }
  if (i + 1 > n) return std::string_view::npos;
  const uint32_t e = end_from_[i + 1];
  return e == 0 ? std::string_view::npos : e - 1;
}

size_t ForwardFind::From(size_t from) {
  if (!searched_ || (found_ != std::string_view::npos && found_ < from)) {
    found_ = no_case_ ? FindNoCase(line_, what_, from) : line_.find(what_, from);
    searched_ = true;
  }
  return found_;
}

std::string TagName(std::string_view line, size_t from, size_t to) {
  size_t k = from + 1;
  if (k < to && line[k] == '/') ++k;
  std::string name;
  while (k < to) {
    const char c = line[k];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>') break;
    name.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    ++k;
  }
  return name;
}

size_t FindNoCase(std::string_view line, std::string_view what, size_t from) {
  if (what.empty()) return from;
  for (size_t i = from; i + what.size() <= line.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) != what[0]) continue;
    size_t k = 1;
    while (k < what.size() && std::tolower(static_cast<unsigned char>(line[i + k])) == what[k]) ++k;
    if (k == what.size()) return i;
  }
  return std::string_view::npos;
}

static bool OneOf(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

// Tags that separate words: their element starts or ends a block of text.
bool IsBlock(const std::string& name) {
  return OneOf(name, {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "table",
                      "blockquote", "section", "article", "header", "footer", "nav", "aside", "pre", "dd", "dt", "dl",
                      "figure", "figcaption", "main", "form", "title", "caption", "address", "option"});
}

bool IsVoid(const std::string& name) {
  static const char* const kVoid[] = {"area", "base",  "br",    "col",    "embed", "hr",    "img",
                                      "input", "link", "meta", "param", "source", "track", "wbr"};
  return std::any_of(std::begin(kVoid), std::end(kVoid), [&](const char* v) { return name == v; });
}

size_t NestedElementEnd(std::string_view line, const std::string& name, size_t from, TagEnds& ends,
                        const std::vector<std::string>& stop_at_close_of, size_t* close_at, std::string* unclosed) {
  size_t depth = 1;
  std::vector<std::string> inner;  // elements open inside the contents (other names)
  auto finish = [&](size_t at, size_t result) {
    *close_at = at;
    unclosed->clear();
    for (size_t k = inner.size(); k-- > 0;) *unclosed += "</" + inner[k] + ">";
    return result;
  };
  for (size_t i = from; i < line.size();) {
    const size_t lt = line.find('<', i);
    if (lt == std::string_view::npos || lt + 1 >= line.size()) break;
    if (line.compare(lt, 4, "<!--") == 0) {  // a comment: its '<' and '>' are not tags
      const size_t end = line.find("-->", lt + 4);
      if (end == std::string_view::npos) break;
      i = end + 3;
      continue;
    }
    const bool is_end = line[lt + 1] == '/';
    const char first = is_end ? (lt + 2 < line.size() ? line[lt + 2] : 0) : line[lt + 1];
    if (!std::isalpha(static_cast<unsigned char>(first))) {
      i = lt + 1;
      continue;
    }
    const size_t end = ends.At(lt);
    if (end == std::string_view::npos) break;
    const std::string tag = TagName(line, lt, end);
    const bool self_closing = end - lt >= 2 && line[end - 2] == '/';
    if (tag == name) {
      if (is_end && --depth == 0) return finish(lt, end);
      if (!is_end && !self_closing) ++depth;
    } else if (is_end) {
      const auto open = std::find(inner.rbegin(), inner.rend(), tag);
      if (open != inner.rend()) {
        inner.erase(std::next(open).base(), inner.end());  // closes it and what is open inside it
      } else if (std::find(stop_at_close_of.begin(), stop_at_close_of.end(), tag) != stop_at_close_of.end()) {
        return finish(lt, std::string_view::npos);  // an enclosing element ends here: so do the contents
      }
    } else if (!self_closing && !IsVoid(tag) && inner.size() < 1000) {
      inner.push_back(tag);
    }
    i = end;
  }
  return finish(line.size(), std::string_view::npos);
}

}  // namespace tern::markup
