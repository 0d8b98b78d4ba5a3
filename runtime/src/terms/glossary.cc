// Glossary: entries checked and tokenized for a model (tern/glossary.h).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <sstream>
#include <string>
#include <unordered_map>

#include "base/utf8.h"
#include "model/model_impl.h"
#include "regular_file.h"
#include "terms/glossary_impl.h"
#include "terms/term_text.h"
#include "text/tokenizer.h"

namespace tern {
namespace {

constexpr uint64_t kMaxGlossaryFileBytes = 256ull << 20;

// SentencePiece's word boundary (U+2581) starts the piece.
bool WordInitial(std::string_view p) { return p.size() >= 3 && p.substr(0, 3) == "\xe2\x96\x81"; }

// The target piece continues the word before it: no word boundary, a letter, digit or '-' first (a term
// glued to more letters, or made part of a compound); special pieces such as <unk> do not.
bool GoesOnWord(std::string_view p) {
  if (p.empty() || WordInitial(p) || (p.size() > 1 && p[0] == '<')) return false;
  const auto c = static_cast<unsigned char>(p[0]);
  return c >= 0x80 || std::isalnum(c) || c == '-';
}

std::string Where(std::string_view where, size_t number) {
  return where.empty() ? "entry " + std::to_string(number) : std::string(where) + ":" + std::to_string(number);
}

Status CheckTerm(std::string_view term, const char* side, const std::string& at) {
  if (term.find_first_not_of(" \t") == std::string_view::npos)
    return Status(StatusCode::kInvalidArgument, at + ": empty " + side + " term");
  if (term.size() > kMaxTermBytes)
    return Status(StatusCode::kInvalidArgument, at + ": " + side + " term of " + std::to_string(term.size()) + " bytes (at most " +
                                                    std::to_string(kMaxTermBytes) + ")");
  for (size_t i = 0; i < term.size(); ++i)
    if (static_cast<unsigned char>(term[i]) < 0x20)
      return Status(StatusCode::kInvalidArgument, at + ": control character in the " + side + " term at byte " + std::to_string(i));
  return Status::Ok();
}

// Ids of `term` without the </s> the tokenizer appends.
Status Ids(const Tokenizer& tok, std::string_view term, const char* side, const std::string& at, std::vector<uint32_t>* ids) {
  uint32_t buf[kMaxTermBytes + 2];
  size_t n = 0;
  const Status s = tok.Encode(term, {}, buf, kMaxTermBytes + 2, &n);
  if (!s.ok()) return Status(StatusCode::kInvalidArgument, at + ": " + side + " term: " + s.message());
  ids->assign(buf, buf + (n ? n - 1 : 0));
  return Status::Ok();
}

}  // namespace

struct GlossaryBuilder {
  static Result<std::shared_ptr<const Glossary>> Build(const Model& model, Span<const GlossaryEntry> entries,
                                                       const std::vector<size_t>& numbers, std::string_view where,
                                                       const GlossaryOptions& options);
};

Glossary::Glossary() : impl_(std::make_unique<Impl>()) {}
Glossary::~Glossary() = default;
size_t Glossary::size() const { return impl_->target_off.size(); }
size_t Glossary::bytes() const {
  const Impl& g = *impl_;
  return g.text.capacity() + g.terms.capacity() * sizeof(Impl::Term) + g.target_ids.capacity() * 4 +
         g.target_off.capacity() * 8 + g.target_inside.capacity();
}

uint64_t VocabFingerprint(const Model& model) {
  uint64_t h = 1469598103934665603ull;
  // The pieces as the model stores them (Model::source_vocab() would allocate: this runs inside a call).
  for (const PieceList* vocab : {&model.impl().c.source_pieces, &model.impl().c.target_pieces}) {
    for (size_t id = 0; id < vocab->size(); ++id) {
      const std::string_view p = (*vocab)[id];
      for (char c : p) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
      h = (h ^ 0xffu) * 1099511628211ull;  // a piece's end (pieces hold no 0xff byte: UTF-8)
    }
    h = (h ^ 0xfeu) * 1099511628211ull;
  }
  return h;
}

Result<std::shared_ptr<const Glossary>> Glossary::Create(const Model& model, Span<const GlossaryEntry> entries,
                                                         const GlossaryOptions& options) {
  std::vector<size_t> numbers(entries.size());
  for (size_t i = 0; i < numbers.size(); ++i) numbers[i] = i + 1;
  return GlossaryBuilder::Build(model, entries, numbers, {}, options);
}

Result<std::shared_ptr<const Glossary>> Glossary::Parse(const Model& model, std::string_view tsv, std::string_view where,
                                                        const GlossaryOptions& options) {
  std::vector<GlossaryEntry> entries;
  std::vector<size_t> numbers;
  size_t line = 0;
  for (size_t at = 0; at < tsv.size();) {
    size_t end = tsv.find('\n', at);
    if (end == std::string_view::npos) end = tsv.size();
    std::string_view l = tsv.substr(at, end - at);
    at = end + 1, ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (l.empty() || l[0] == '#') continue;
    const size_t tab = l.find('\t');
    if (tab == std::string_view::npos)
      return Status(StatusCode::kInvalidArgument, Where(where, line) + ": no tab (a line is: source term, tab, target term)");
    if (l.find('\t', tab + 1) != std::string_view::npos)
      return Status(StatusCode::kInvalidArgument, Where(where, line) + ": more than two fields");
    if (entries.size() >= kMaxGlossaryEntries)
      return Status(StatusCode::kInvalidArgument, Where(where, line) + ": more than " + std::to_string(kMaxGlossaryEntries) + " entries");
    entries.push_back({l.substr(0, tab), l.substr(tab + 1)});
    numbers.push_back(line);
  }
  return GlossaryBuilder::Build(model, Span<const GlossaryEntry>(entries.data(), entries.size()), numbers, where, options);
}

Result<std::shared_ptr<const Glossary>> Glossary::Load(const Model& model, const std::string& path, const GlossaryOptions& options) {
  struct stat st {};
  Result<int> fd = format::OpenForReading(path, &st);  // a FIFO or a device: refused at once, never waited on
  if (!fd.ok()) return Status(fd.status().code() == StatusCode::kIoError ? StatusCode::kInvalidArgument : fd.status().code(),
                              fd.status().message());
  std::string text;
  Status read = Status::Ok();
  if (static_cast<uint64_t>(st.st_size) > kMaxGlossaryFileBytes) {
    read = Status(StatusCode::kInvalidArgument, path + ": " + std::to_string(st.st_size) + " bytes (a glossary is at most 256 MiB)");
  } else {
    text.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd.value(), &text[got], text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    if (got != text.size()) read = Status(StatusCode::kIoError, path + ": read " + std::to_string(got) + " of " + std::to_string(text.size()) + " bytes");
  }
  ::close(fd.value());
  TERN_RETURN_IF_ERROR(read);
  return Parse(model, text, path, options);
}

Result<std::shared_ptr<const Glossary>> GlossaryBuilder::Build(const Model& model, Span<const GlossaryEntry> entries,
                                                               const std::vector<size_t>& numbers, std::string_view where,
                                                               const GlossaryOptions& options) {
  if (entries.size() > kMaxGlossaryEntries)
    return Status(StatusCode::kInvalidArgument, "more than " + std::to_string(kMaxGlossaryEntries) + " glossary entries");
  TERN_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tgt_tok, Tokenizer::Create(model, Tokenizer::Side::kTarget));
  std::shared_ptr<Glossary> g(new Glossary());
  Glossary::Impl& G = const_cast<Glossary::Impl&>(g->impl());
  G.case_insensitive = options.case_insensitive;
  G.source_vocab_size = model.hparams().source_vocab_size;
  G.target_vocab_size = model.hparams().target_vocab_size;
  G.vocab_fingerprint = VocabFingerprint(model);
  const PieceList& tvocab = model.impl().c.target_pieces;
  for (size_t id = 0; id < tvocab.size(); ++id) G.target_inside.push_back(GoesOnWord(tvocab[id]));
  const uint32_t unk = model.hparams().unk_id;
  std::unordered_map<std::string, size_t> seen;  // source term (normalized; case-folded with the option) -> entry
  std::vector<uint32_t> ids;
  for (size_t e = 0; e < entries.size(); ++e) {
    const std::string at = Where(where, numbers[e]);
    TERN_RETURN_IF_ERROR(CheckTerm(entries[e].source, "source", at));
    TERN_RETURN_IF_ERROR(CheckTerm(entries[e].target, "target", at));
    for (const auto& [term, side] : {std::pair{entries[e].source, "source"}, std::pair{entries[e].target, "target"}}) {
      const size_t bad = FindInvalidUtf8(term);
      if (bad != term.size())
        return Status(StatusCode::kInvalidArgument, at + ": " + side + " term: invalid UTF-8 at byte " + std::to_string(bad));
    }
    const std::string source = terms::NormalizeTerm(entries[e].source);
    std::string key = source;
    if (options.case_insensitive) {
      key.clear();
      for (size_t i = 0, len = 0; i < source.size(); i += len) AppendUtf8(terms::FoldCase(terms::DecodeAt(source, i, &len)), &key);
    }
    auto [it, fresh] = seen.emplace(key, e);
    if (!fresh) {
      if (entries[it->second].target == entries[e].target) continue;  // the same entry twice
      return Status(StatusCode::kInvalidArgument, at + ": source term '" + std::string(entries[e].source) + "' is also " +
                                                      Where(where, numbers[it->second]) + " with another target ('" +
                                                      std::string(entries[it->second].target) + "' and '" +
                                                      std::string(entries[e].target) + "')");
    }
    TERN_RETURN_IF_ERROR(Ids(*tgt_tok, entries[e].target, "target", at, &ids));
    for (uint32_t id : ids)
      if (id == unk || id >= tvocab.size())
        return Status(StatusCode::kInvalidArgument, at + ": the target vocabulary cannot spell '" + std::string(entries[e].target) +
                                                        "' (a piece it lacks)");
    if (ids.empty() || ids.size() > kMaxTermTokens)
      return Status(StatusCode::kInvalidArgument, at + ": target term of " + std::to_string(ids.size()) + " tokens (1 to " +
                                                      std::to_string(kMaxTermTokens) + ")");
    const uint32_t entry = static_cast<uint32_t>(G.target_off.size());
    G.target_off.push_back(static_cast<uint32_t>(G.target_ids.size()));
    G.target_len.push_back(static_cast<uint32_t>(ids.size()));
    G.target_ids.insert(G.target_ids.end(), ids.begin(), ids.end());
    size_t unit_end = 0;
    const uint64_t first = terms::FoldedUnitHash(source, 0, &unit_end);
    G.terms.push_back({first, entry, static_cast<uint32_t>(G.text.size()), static_cast<uint32_t>(source.size())});
    G.text += source;
  }
  std::stable_sort(G.terms.begin(), G.terms.end(), [](const Glossary::Impl::Term& a, const Glossary::Impl::Term& b) {
    return a.key != b.key ? a.key < b.key : a.len > b.len;
  });
  return std::shared_ptr<const Glossary>(std::move(g));
}

}  // namespace tern
