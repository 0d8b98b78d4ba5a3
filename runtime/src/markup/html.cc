#include "markup/html.h"

#include "markup/protect.h"
#include "markup/references.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tern::markup {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsNameChar(char c) { return IsAlpha(c) || (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '_' || c == '.'; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool OneOf(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

bool IsVoid(const std::string& name) {
  return OneOf(name, {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                      "track", "wbr"});
}

// Tags that separate words: their element starts or ends a block of text.
bool IsBlock(const std::string& name) {
  return OneOf(name, {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "table",
                      "blockquote", "section", "article", "header", "footer", "nav", "aside", "pre", "dd", "dt", "dl",
                      "figure", "figcaption", "main", "form", "title", "caption", "address", "option"});
}

// Finds `what` (ASCII) in line from `from`, case-insensitively.
size_t FindNoCase(std::string_view line, std::string_view what, size_t from) {
  for (size_t i = from; i + what.size() <= line.size(); ++i) {
    size_t k = 0;
    while (k < what.size() && std::tolower(static_cast<unsigned char>(line[i + k])) == what[k]) ++k;
    if (k == what.size()) return i;
  }
  return std::string_view::npos;
}

// The end (one past '>') of a tag starting at line[i], honouring quoted attribute values; npos if none.
size_t TagEnd(std::string_view line, size_t i) {
  char quote = 0;
  for (size_t k = i + 1; k < line.size(); ++k) {
    const char c = line[k];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      return k + 1;
    }
  }
  return std::string_view::npos;
}

class Parser {
 public:
  Parser(std::string_view line, Mode mode, Parsed* out) : line_(line), mode_(mode), out_(*out) {}
  Status Run();

 private:
  struct Open {
    int element;
    std::string name;
  };
  Status Error(const std::string& what) const { return Status(StatusCode::kInvalidArgument, "markup: " + what); }
  void Text(std::string_view bytes, size_t from, size_t to);
  Status Push(Element e);
  Status Verbatim(size_t from, size_t to, bool separates);
  Status Start(size_t from, size_t to, size_t* next);  // *next: where the line goes on (after a raw-text element)
  Status End(size_t from, size_t to);
  void CloseTop(const std::string& close_tag);
  int top() const { return open_.empty() ? -1 : open_.back().element; }
  // An unterminated construct at `from`: the line's error, or (lenient) its '<' is text.
  Status Unterminated(const char* what, size_t from) {
    if (mode_ == Mode::kStrict) return Error(std::string(what) + " at byte " + std::to_string(from) + " is not terminated");
    Text(line_.substr(from, 1), from, from + 1);
    return Status::Ok();
  }

  std::string_view line_;
  Mode mode_;
  Parsed& out_;
  std::vector<Open> open_;
  bool separate_ = false;  // a word-separating tag since the last text
};

void Parser::Text(std::string_view bytes, size_t from, size_t to) {
  if (bytes.empty()) return;
  std::string& t = out_.text;
  if (separate_ && !t.empty() && !IsSpace(t.back()) && !IsSpace(bytes.front())) {
    // Elements opened since the text ended start after the separating space.
    for (const Open& o : open_)
      if (out_.elements[o.element].begin == t.size()) ++out_.elements[o.element].begin;
    t.push_back(' ');
    out_.origin.push_back(static_cast<uint32_t>(from));
    out_.origin_end.push_back(static_cast<uint32_t>(from));
  }
  separate_ = false;
  for (char c : bytes) {
    t.push_back(c);
    out_.origin.push_back(static_cast<uint32_t>(from));
    out_.origin_end.push_back(static_cast<uint32_t>(to));
  }
}

Status Parser::Push(Element e) {
  if (out_.elements.size() >= kMaxElements)
    return Error("more than " + std::to_string(kMaxElements) + " elements in one line");
  e.parent = top();
  out_.elements.push_back(std::move(e));
  return Status::Ok();
}

Status Parser::Verbatim(size_t from, size_t to, bool separates) {
  Element e;
  e.kind = Element::Kind::kVerbatim;
  e.open = std::string(line_.substr(from, to - from));
  e.begin = e.end = out_.text.size();
  e.source_offset = from;
  if (separates) separate_ = true;
  return Push(std::move(e));
}

void Parser::CloseTop(const std::string& close_tag) {
  Element& e = out_.elements[static_cast<size_t>(open_.back().element)];
  e.end = std::max(e.begin, out_.text.size());
  e.close = close_tag;
  open_.pop_back();
}

Status Parser::Start(size_t from, size_t to, size_t* next) {
  *next = to;
  size_t k = from + 1;
  while (k < to && IsNameChar(line_[k])) ++k;
  const std::string name = Lower(line_.substr(from + 1, k - from - 1));
  const bool self_closing = to - from >= 2 && line_[to - 2] == '/';
  const bool raw = name == "script" || name == "style" || (TranslateNo(line_.substr(from, to - from)) && !IsVoid(name));
  if (raw && !self_closing) {  // raw text (script, style, translate="no"): to its end tag, never translated
    const size_t close = FindNoCase(line_, "</" + name, to);
    const size_t end = close == std::string_view::npos ? std::string_view::npos : TagEnd(line_, close);
    if (end == std::string_view::npos) {
      if (mode_ == Mode::kStrict) return Error("<" + name + "> at byte " + std::to_string(from) + " is not closed");
      *next = line_.size();
      return Verbatim(from, line_.size(), false);  // lenient: the rest of the line is its contents
    }
    *next = end;
    TERN_RETURN_IF_ERROR(Verbatim(from, end, false));
    Element& e = out_.elements.back();  // translate="no" is text on the page: it keeps its spaces
    const bool text = name != "script" && name != "style";
    e.space_before = text && from > 0 && IsSpace(line_[from - 1]);
    e.space_after = text && end < line_.size() && IsSpace(line_[end]);
    return Status::Ok();
  }
  if (self_closing || IsVoid(name)) return Verbatim(from, to, IsVoid(name) || IsBlock(name));
  if (open_.size() >= kMaxDepth) return Error("elements nested deeper than " + std::to_string(kMaxDepth));
  if (IsBlock(name)) separate_ = true;
  Element e;
  e.kind = Element::Kind::kPair;
  e.open = std::string(line_.substr(from, to - from));
  e.begin = e.end = out_.text.size();
  e.source_offset = from;
  TERN_RETURN_IF_ERROR(Push(std::move(e)));
  open_.push_back({static_cast<int>(out_.elements.size() - 1), name});
  return Status::Ok();
}

Status Parser::End(size_t from, size_t to) {
  size_t k = from + 2;
  while (k < to && IsNameChar(line_[k])) ++k;
  const std::string name = Lower(line_.substr(from + 2, k - from - 2));
  const std::string tag(line_.substr(from, to - from));
  if (IsBlock(name)) separate_ = true;
  size_t depth = open_.size();
  while (depth > 0 && open_[depth - 1].name != name) --depth;
  if (depth == 0) {  // no such element is open
    if (mode_ == Mode::kStrict) return Error(tag + " at byte " + std::to_string(from) + " has no open <" + name + ">");
    return Status::Ok();  // lenient: dropped
  }
  if (depth != open_.size()) {
    if (mode_ == Mode::kStrict) {
      const Element& t = out_.elements[static_cast<size_t>(open_.back().element)];
      return Error(tag + " at byte " + std::to_string(from) + " does not close <" + open_.back().name + "> (byte " +
                   std::to_string(t.source_offset) + ")");
    }
    while (open_.size() > depth) CloseTop("</" + open_.back().name + ">");  // lenient: closed here
  }
  CloseTop(tag);
  return Status::Ok();
}

Status Parser::Run() {
  const size_t n = line_.size();
  std::string decoded;
  size_t i = 0;
  while (i < n) {
    const char c = line_[i];
    if (c == '&') {
      const size_t len = ReadReference(line_, i, &decoded);
      if (len > 0) {
        Text(decoded, i, i + len);
        auto& refs = out_.references;
        if (std::none_of(refs.begin(), refs.end(), [&](const auto& r) { return r.first == decoded; }))
          refs.emplace_back(decoded, std::string(line_.substr(i, len)));
        i += len;
        continue;
      }
    } else if (c == '<' && i + 1 < n) {
      const std::string_view rest = line_.substr(i);
      size_t end = std::string_view::npos;
      const char* what = nullptr;
      if (rest.compare(0, 4, "<!--") == 0) {
        const size_t close = line_.find("-->", i + 4);
        end = close == std::string_view::npos ? close : close + 3, what = "comment";
      } else if (rest.compare(0, 9, "<![CDATA[") == 0) {
        const size_t close = line_.find("]]>", i + 9);
        end = close == std::string_view::npos ? close : close + 3, what = "CDATA section";
      } else if (rest[1] == '!' || rest[1] == '?') {
        end = TagEnd(line_, i), what = rest[1] == '!' ? "declaration" : "processing instruction";
      }
      if (what) {
        if (end == std::string_view::npos) {
          TERN_RETURN_IF_ERROR(Unterminated(what, i));
          ++i;
        } else {
          TERN_RETURN_IF_ERROR(Verbatim(i, end, false));
          i = end;
        }
        continue;
      }
      const bool is_end = rest[1] == '/' && rest.size() > 2 && IsAlpha(rest[2]);
      if (is_end || IsAlpha(rest[1])) {
        end = TagEnd(line_, i);
        if (end == std::string_view::npos) {
          TERN_RETURN_IF_ERROR(Unterminated("tag", i));
          ++i;
          continue;
        }
        size_t next = end;
        TERN_RETURN_IF_ERROR(is_end ? End(i, end) : Start(i, end, &next));
        i = next;
        continue;
      }
    }
    Text(line_.substr(i, 1), i, i + 1);
    ++i;
  }
  if (!open_.empty()) {
    if (mode_ == Mode::kStrict) {
      const Element& e = out_.elements[static_cast<size_t>(open_.back().element)];
      return Error("<" + open_.back().name + "> at byte " + std::to_string(e.source_offset) + " is not closed");
    }
    while (!open_.empty()) CloseTop("</" + open_.back().name + ">");
  }
  return Status::Ok();
}

}  // namespace

Status Parse(std::string_view line, Mode mode, Parsed* out) {
  *out = Parsed();
  out->text.reserve(line.size());
  Parser parser(line, mode, out);
  return parser.Run();
}

void AppendEscaped(std::string_view text, const Parsed& p, std::string* out) {
  if (p.plain) return void(out->append(text));
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    const std::string_view ch = text.substr(i, std::min(len, text.size() - i));
    const auto ref = std::find_if(p.references.begin(), p.references.end(), [&](const auto& r) { return r.first == ch; });
    if (ref != p.references.end()) out->append(ref->second);
    else if (ch == "&") out->append("&amp;");
    else if (ch == "<") out->append("&lt;");
    else if (ch == ">") out->append("&gt;");
    else out->append(ch);
    i += ch.size();
  }
}

}  // namespace tern::markup
