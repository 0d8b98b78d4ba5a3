#include "markup/html.h"

#include "markup/protect.h"
#include "markup/references.h"
#include "markup/scan.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tern::markup {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
class Parser {
 public:
  Parser(std::string_view line, Mode mode, bool translate_code, Span<const TextSpan> keep, Parsed* out)
      : line_(line), mode_(mode), translate_code_(translate_code), keep_(keep), out_(*out), ends_(line), comment_end_(line, "-->"), cdata_end_(line, "]]>"),
        script_end_(line, "</script", true), style_end_(line, "</style", true) {}
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
    if (mode_ != Mode::kLenient) return Error(std::string(what) + " at byte " + std::to_string(from) + " is not terminated");
    Text(line_.substr(from, 1), from, from + 1);
    return Status::Ok();
  }

  std::string_view line_;
  Mode mode_;
  bool translate_code_;
  Span<const TextSpan> keep_;  // do-not-translate spans of the line (placeholders), in order
  size_t next_keep_ = 0;
  // XML (Mode::kXml): no void elements, no raw-text script/style, no HTML block elements or defaults.
  bool xml() const { return mode_ == Mode::kXml; }
  bool Void(const std::string& name) const { return !xml() && IsVoid(name); }
  bool Block(const std::string& name) const { return !xml() && IsBlock(name); }
  // A tag name's first byte: a letter (xml: or a digit, react-intl / Lingui's <0>).
  bool NameStart(char c) const { return IsAlpha(c) || (xml() && c >= '0' && c <= '9'); }
  Parsed& out_;
  std::vector<Open> open_;
  bool separate_ = false;  // a word-separating tag since the last text
  TagEnds ends_;
  ForwardFind comment_end_, cdata_end_, script_end_, style_end_;  // each passes over the line once
};

void Parser::Text(std::string_view bytes, size_t from, size_t to) {
  if (bytes.empty()) return;
  std::string& t = out_.text;
  if (separate_ && !t.empty() && !IsSpace(t.back()) && !IsSpace(bytes.front())) {
    // Elements opened since the text ended start after the separating space (they are the top of the
    // stack: begins do not decrease towards it).
    for (size_t k = open_.size(); k-- > 0 && out_.elements[open_[k].element].begin == t.size();)
      ++out_.elements[open_[k].element].begin;
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
  const std::string name = TagName(line_, from, to);
  const bool self_closing = to - from >= 2 && line_[to - 2] == '/';
  const bool script = !xml() && (name == "script" || name == "style");
  const std::string_view tag = line_.substr(from, to - from);
  const bool raw = script || ((TranslateNo(tag) || (!translate_code_ && KeptByDefault(name, tag))) && !Void(name));
  if (raw && !self_closing) {  // kept verbatim, never translated: script/style to its first end tag (raw
    // text), a translate="no" element to its matching end tag (its own start and end tags nest)
    size_t close = std::string_view::npos, end = std::string_view::npos;
    std::string unclosed;  // lenient: end tags of elements the contents leave open
    std::vector<std::string> enclosing;
    if (mode_ == Mode::kLenient)
      for (const Open& o : open_) enclosing.push_back(o.name);
    if (script) {
      close = (name == "script" ? script_end_ : style_end_).From(to);
      end = close == std::string_view::npos ? close : ends_.At(close);
      if (end == std::string_view::npos) close = line_.size();
    } else {
      end = NestedElementEnd(line_, name, to, ends_, enclosing, &close, &unclosed);
      if (mode_ != Mode::kLenient && !unclosed.empty() && end != std::string_view::npos)
        return Error("<" + name + "> at byte " + std::to_string(from) + " holds elements that are not closed (" + unclosed + ")");
    }
    if (end == std::string_view::npos) {
      if (mode_ != Mode::kLenient) return Error("<" + name + "> at byte " + std::to_string(from) + " is not closed");
      // Lenient: the contents run to the end of the line (script, style) or of the enclosing element, and
      // the element is closed there, so the output stays well-formed.
      *next = close;
      TERN_RETURN_IF_ERROR(Verbatim(from, close, false));
      out_.elements.back().open += unclosed + "</" + name + ">";
    } else {
      *next = end;
      TERN_RETURN_IF_ERROR(Verbatim(from, end, false));
      if (!unclosed.empty()) out_.elements.back().open.insert(close - from, unclosed);  // lenient: closed inside
    }
    const size_t stop = *next;
    Element& e = out_.elements.back();  // translate="no" is text on the page: it keeps its spaces
    e.space_before = !script && from > 0 && IsSpace(line_[from - 1]);
    e.space_after = !script && stop < line_.size() && IsSpace(line_[stop]);
    if (!script) MarkApart(&e, line_, from, stop);
    return Status::Ok();
  }
  if (self_closing || Void(name)) return Verbatim(from, to, Void(name) || Block(name));
  if (open_.size() >= kMaxDepth) return Error("elements nested deeper than " + std::to_string(kMaxDepth));
  if (Block(name)) separate_ = true;
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
  const std::string name = TagName(line_, from, to);
  const std::string tag(line_.substr(from, to - from));
  if (Block(name)) separate_ = true;
  size_t depth = open_.size();
  while (depth > 0 && open_[depth - 1].name != name) --depth;
  if (depth == 0) {  // no such element is open
    if (mode_ != Mode::kLenient) return Error(tag + " at byte " + std::to_string(from) + " has no open <" + name + ">");
    return Status::Ok();  // lenient: dropped
  }
  if (depth != open_.size()) {
    if (mode_ != Mode::kLenient) {
      const Element& t = out_.elements[static_cast<size_t>(open_.back().element)];
      return Error(tag + " at byte " + std::to_string(from) + " does not close <" + open_.back().name + "> (byte " +
                   std::to_string(t.source_offset) + ")");
    }
    while (open_.size() > depth) CloseTop("</" + open_.back().name + ">");  // lenient: closed here
  }
  Element& e = out_.elements[static_cast<size_t>(open_.back().element)];
  CloseTop(tag);
  // An element with no text of its own ("Unmute <0>{user}</0> now", "<0>#</0> files"): its spaces come back
  // around it, and like kept text it is never glued to a word it was not ("“<0>{query}</0>”", not "Boden<0>").
  if (e.begin == out_.text.size()) {
    e.space_before = !out_.text.empty() && IsSpace(out_.text.back()), e.space_after = to < line_.size() && IsSpace(line_[to]);
    MarkApart(&e, line_, e.source_offset, to);
  }
  return Status::Ok();
}

Status Parser::Run() {
  const size_t n = line_.size();
  std::string decoded;
  size_t i = 0;
  while (i < n) {
    // A do-not-translate span starting here, in text (one starting inside a tag or a kept element was
    // passed over): a verbatim item, cut at the first '<' so that it never swallows a tag.
    while (next_keep_ < keep_.size() && keep_[next_keep_].begin < i) ++next_keep_;
    if (next_keep_ < keep_.size() && keep_[next_keep_].begin == i) {
      size_t end = std::min(keep_[next_keep_].end, n);
      const size_t lt = line_.find('<', i);
      if (lt < end) end = lt;
      ++next_keep_;
      if (end > i) {
        TERN_RETURN_IF_ERROR(Verbatim(i, end, false));
        Element& e = out_.elements.back();  // its spaces come back around it (transfer.h)
        e.space_before = i > 0 && IsSpace(line_[i - 1]);
        e.space_after = end < n && IsSpace(line_[end]);
        MarkApart(&e, line_, i, end);
        i = end;
        continue;
      }
    }
    const char c = line_[i];
    if (c == '&') {
      const size_t len = ReadReference(line_, i, &decoded);
      if (len > 0) {
        Text(decoded, i, i + len);
        out_.references.emplace(decoded, std::string(line_.substr(i, len)));  // the first spelling stays
        i += len;
        continue;
      }
    } else if (c == '<' && i + 1 < n) {
      const std::string_view rest = line_.substr(i);
      size_t end = std::string_view::npos;
      const char* what = nullptr;
      if (rest.compare(0, 4, "<!--") == 0) {
        const size_t close = comment_end_.From(i + 4);
        end = close == std::string_view::npos ? close : close + 3, what = "comment";
      } else if (rest.compare(0, 9, "<![CDATA[") == 0) {
        const size_t close = cdata_end_.From(i + 9);
        end = close == std::string_view::npos ? close : close + 3, what = "CDATA section";
      } else if (rest[1] == '!' || rest[1] == '?') {
        end = ends_.At(i), what = rest[1] == '!' ? "declaration" : "processing instruction";
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
      const bool is_end = rest[1] == '/' && rest.size() > 2 && NameStart(rest[2]);
      if (is_end || NameStart(rest[1])) {
        end = ends_.At(i);
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
    if (mode_ != Mode::kLenient) {
      const Element& e = out_.elements[static_cast<size_t>(open_.back().element)];
      return Error("<" + open_.back().name + "> at byte " + std::to_string(e.source_offset) + " is not closed");
    }
    while (!open_.empty()) CloseTop("</" + open_.back().name + ">");
  }
  return Status::Ok();
}

}  // namespace

Status Parse(std::string_view line, Mode mode, Parsed* out, bool translate_code, Span<const TextSpan> keep) {
  *out = Parsed();
  if (line.size() >= (size_t{1} << 32) - 2)
    return Status(StatusCode::kInvalidArgument, "markup: a line of " + std::to_string(line.size()) + " bytes (at most 4 GiB)");
  out->text.reserve(line.size());
  Parser parser(line, mode, translate_code, keep, out);
  return parser.Run();
}

void AppendEscaped(std::string_view text, const Parsed& p, std::string* out) {
  if (p.plain) return void(out->append(text));
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t len = c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    const std::string_view ch = text.substr(i, std::min(len, text.size() - i));
    const auto ref = p.references.empty() ? p.references.end() : p.references.find(std::string(ch));
    if (ref != p.references.end()) out->append(ref->second);
    else if (ch == "&") out->append("&amp;");
    else if (ch == "<") out->append("&lt;");
    else if (ch == ">") out->append("&gt;");
    else out->append(ch);
    i += ch.size();
  }
}

}  // namespace tern::markup
