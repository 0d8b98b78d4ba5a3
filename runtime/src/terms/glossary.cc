// Glossary: entries checked and tokenized for a model (tern/glossary.h).
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>

#include "terms/glossary_impl.h"
#include "text/tokenizer.h"

namespace tern {
namespace {

constexpr uint64_t kMaxGlossaryFileBytes = 256ull << 20;

// Case variants of a term for case_insensitive matching: lower case, first letter capitalized, upper case
// (ASCII and Latin-1's letters; other scripts are matched as written).
uint32_t UpperOf(uint32_t cp) {
  if (cp >= 'a' && cp <= 'z') return cp - 32;
  if (cp >= 0xe0 && cp <= 0xfe && cp != 0xf7) return cp - 32;
  return cp;
}
uint32_t LowerOf(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) return cp + 32;
  return cp;
}
std::string CaseVariant(std::string_view s, int mode) {  // 0 lower, 1 capitalized, 2 upper
  std::string out;
  bool first = true;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c == 0xc3 && i + 1 < s.size()) cp = 0xc0 + (static_cast<unsigned char>(s[i + 1]) & 0x3f), len = 2;
    else if (c >= 0x80) {  // other code points as they are
      len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      out.append(s.substr(i, len));
      i += len, first = false;
      continue;
    }
    const bool up = mode == 2 || (mode == 1 && first);
    cp = up ? UpperOf(cp) : LowerOf(cp);
    if (cp < 0x80) out.push_back(static_cast<char>(cp));
    else out.push_back(static_cast<char>(0xc3)), out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    if (cp != ' ') first = false;
    i += len;
  }
  return out;
}

// SentencePiece's word boundary (U+2581) starts the piece.
bool WordInitial(std::string_view p) { return p.size() >= 3 && p.substr(0, 3) == "\xe2\x96\x81"; }

// The piece continues the word before it: no word boundary, a letter or digit first (or '-', with
// `hyphen`); special pieces such as <unk> do not.
bool GoesOnWord(std::string_view p, bool hyphen) {
  if (p.empty() || WordInitial(p) || (p.size() > 1 && p[0] == '<')) return false;
  const auto c = static_cast<unsigned char>(p[0]);
  return c >= 0x80 || std::isalnum(c) || (hyphen && c == '-');
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
  return g.source_ids.capacity() * 4 + g.variants.capacity() * sizeof(Impl::Variant) + g.target_ids.capacity() * 4 +
         g.target_off.capacity() * 8 + g.word_start.capacity() + g.word_inside.capacity();
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
  if (::stat(path.c_str(), &st) != 0) return Status(StatusCode::kNotFound, path + ": cannot open");
  if (!S_ISREG(st.st_mode)) return Status(StatusCode::kInvalidArgument, path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxGlossaryFileBytes)
    return Status(StatusCode::kInvalidArgument, path + ": " + std::to_string(st.st_size) + " bytes (a glossary is at most 256 MiB)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::kNotFound, path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return Parse(model, text.str(), path, options);
}

Result<std::shared_ptr<const Glossary>> GlossaryBuilder::Build(const Model& model, Span<const GlossaryEntry> entries,
                                                               const std::vector<size_t>& numbers, std::string_view where,
                                                               const GlossaryOptions& options) {
  if (entries.size() > kMaxGlossaryEntries)
    return Status(StatusCode::kInvalidArgument, "more than " + std::to_string(kMaxGlossaryEntries) + " glossary entries");
  TERN_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> src_tok, Tokenizer::Create(model, Tokenizer::Side::kSource));
  TERN_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> tgt_tok, Tokenizer::Create(model, Tokenizer::Side::kTarget));
  std::shared_ptr<Glossary> g(new Glossary());
  Glossary::Impl& G = const_cast<Glossary::Impl&>(g->impl());
  for (std::string_view p : model.source_vocab()) {
    G.word_start.push_back(WordInitial(p));
    G.word_inside.push_back(GoesOnWord(p, false));
  }
  // After a term, a hyphen too: it would make the term part of a compound.
  for (std::string_view p : model.target_vocab()) G.target_inside.push_back(GoesOnWord(p, true));
  const uint32_t unk = model.hparams().unk_id;
  const auto& tvocab = model.target_vocab();
  std::unordered_map<std::string, size_t> seen;  // source term (case-folded with the option) -> entry
  std::vector<uint32_t> ids;
  for (size_t e = 0; e < entries.size(); ++e) {
    const std::string at = Where(where, numbers[e]);
    TERN_RETURN_IF_ERROR(CheckTerm(entries[e].source, "source", at));
    TERN_RETURN_IF_ERROR(CheckTerm(entries[e].target, "target", at));
    const std::string key = options.case_insensitive ? CaseVariant(entries[e].source, 0) : std::string(entries[e].source);
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
    std::string forms[4] = {std::string(entries[e].source)};
    size_t n_forms = 1;
    if (options.case_insensitive)
      for (int m = 0; m < 3; ++m) forms[n_forms++] = CaseVariant(entries[e].source, m);
    const size_t first_variant = G.variants.size();
    for (size_t f = 0; f < n_forms; ++f) {
      TERN_RETURN_IF_ERROR(Ids(*src_tok, forms[f], "source", at, &ids));
      if (ids.empty() || ids.size() > kMaxTermBytes) continue;
      bool dup = false;  // a variant spelled as another one of this entry
      for (size_t v = first_variant; v < G.variants.size(); ++v) {
        const auto& x = G.variants[v];
        if (x.len == ids.size() && std::equal(ids.begin(), ids.end(), G.source_ids.begin() + x.off)) dup = true;
      }
      if (dup) continue;
      G.variants.push_back({entry, static_cast<uint32_t>(G.source_ids.size()), static_cast<uint32_t>(ids.size())});
      G.source_ids.insert(G.source_ids.end(), ids.begin(), ids.end());
    }
  }
  std::stable_sort(G.variants.begin(), G.variants.end(), [&](const Glossary::Impl::Variant& a, const Glossary::Impl::Variant& b) {
    const uint32_t fa = G.source_ids[a.off], fb = G.source_ids[b.off];
    return fa != fb ? fa < fb : a.len > b.len;
  });
  return std::shared_ptr<const Glossary>(std::move(g));
}

bool MatchTerms(const Glossary::Impl& g, const uint32_t* ids, size_t n, const ConstraintBuffers& buf, size_t i) {
  uint32_t count = 0, tokens = 0;
  buf.count[i] = 0;
  const size_t words = n ? n - 1 : 0;  // </s> is not matched
  for (size_t k = 0; k < words;) {
    const uint32_t id = ids[k];
    if (id >= g.word_start.size() || !g.word_start[id]) {
      ++k;
      continue;
    }
    auto lo = std::lower_bound(g.variants.begin(), g.variants.end(), id,
                               [&](const Glossary::Impl::Variant& v, uint32_t x) { return g.source_ids[v.off] < x; });
    const Glossary::Impl::Variant* hit = nullptr;
    for (auto it = lo; it != g.variants.end() && g.source_ids[it->off] == id; ++it) {
      if (k + it->len > words || !std::equal(g.source_ids.begin() + it->off, g.source_ids.begin() + it->off + it->len, ids + k))
        continue;
      const size_t next = k + it->len;  // a whole word: what follows does not go on it
      if (next < words && ids[next] < g.word_inside.size() && g.word_inside[ids[next]]) continue;
      hit = &*it;  // longest first
      break;
    }
    if (!hit) {
      ++k;
      continue;
    }
    const uint32_t len = g.target_len[hit->entry];
    if (count + 1 > kMaxConstraints || tokens + len > kMaxConstraintTokens) {
      buf.count[i] = 0;
      return false;
    }
    const size_t c = i * kMaxConstraints + count;
    buf.off[c] = static_cast<uint16_t>(tokens);
    buf.len[c] = static_cast<uint16_t>(len);
    buf.src_begin[c] = static_cast<uint32_t>(k);
    buf.src_end[c] = static_cast<uint32_t>(k + hit->len);
    std::copy(g.target_ids.begin() + g.target_off[hit->entry], g.target_ids.begin() + g.target_off[hit->entry] + len,
              buf.tokens + i * kMaxConstraintTokens + tokens);
    tokens += len, ++count;
    k += hit->len;
  }
  buf.count[i] = static_cast<uint8_t>(count);
  return true;
}

}  // namespace tern
