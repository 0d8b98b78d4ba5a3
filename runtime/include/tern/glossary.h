// Terminology: a glossary the translation must follow (docs/translating.md "Terminology").
//
//   auto g = tern::Glossary::Load(*model, "terms.tsv", {});     // or Glossary::Create from entries
//   tern::TranslateOptions o;
//   o.glossary = g.value().get();
//
// Each occurrence of a source term in a sentence's text makes the term's target tokens a constraint of that
// sentence: beam search follows dynamic beam allocation (Post & Vilar 2018), greedy search a simpler rule
// (runtime/src/search/constraints.h). A term matches its own text only (runtime/src/terms/match.cc): whole
// words, never inside a name joined by '-', '.', '@', '_' or '+' nor inside a URL, e-mail address or
// placeholder, next to brackets, quotes, apostrophes and slashes; a space in it matches any run of spaces;
// a term with a lower-case first letter also matches it capitalized at the start of the sentence; with
// case_insensitive, letters (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic) compare case-folded.
// TranslateIds matches on the text the source pieces spell. At most kMaxConstraints occurrences per
// sentence and kMaxConstraintTokens target tokens in all, and all of them must fit before the sentence's
// output cap: a sentence with more fails alone (kResourceExhausted, saying which limit). A glossary holds
// the token ids of its model: a call with a glossary made for other vocabularies fails (kInvalidArgument).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tern/export.h"
#include "tern/model.h"
#include "tern/status.h"
#include "tern/translator.h"

namespace tern {

/// One glossary entry: a source term and the target term it must become (UTF-8, one or more words).
struct GlossaryEntry {
  std::string_view source;  ///< the source term, as a sentence would hold it
  std::string_view target;  ///< what it must become in the translation
};

/// How a glossary matches its source terms.
struct GlossaryOptions {
  bool case_insensitive = false;  ///< a source term matches whatever the case of its letters in the sentence
};

/// Limits, checked when a glossary is made.
constexpr size_t kMaxGlossaryEntries = 1000000;
constexpr size_t kMaxTermBytes = 256;           ///< per source or target term
constexpr size_t kMaxTermTokens = 64;           ///< target tokens per term

/// Terminology for one model's vocabularies (see the top of this file): immutable once made, shared by any
/// number of calls and threads (TranslateOptions::glossary).
class TERN_API Glossary {
 public:
  /// A glossary for `model` (its tokenizers) from in-memory entries. Errors (kInvalidArgument, naming the
  /// entry by its 1-based number, or `where` and line when Parse gives them): an empty source or target,
  /// invalid UTF-8 or a control character, a term longer than kMaxTermBytes, a target the target
  /// vocabulary cannot spell (a piece it lacks), a target of more than kMaxTermTokens tokens, the same
  /// source twice with different targets (naming both), more than kMaxGlossaryEntries entries.
  /// kInvalidModel: the model has no tokenizers.
  static Result<std::shared_ptr<const Glossary>> Create(const Model& model, Span<const GlossaryEntry> entries,
                                                        const GlossaryOptions& options = {});
  /// From TSV text: one entry per line, "source<TAB>target"; empty lines and lines starting with '#' are
  /// skipped. Errors as Create's, with `where` (a file name) and the line number.
  static Result<std::shared_ptr<const Glossary>> Parse(const Model& model, std::string_view tsv, std::string_view where,
                                                       const GlossaryOptions& options = {});
  /// Parse() of a file (a regular file of at most 256 MiB). kNotFound / kInvalidArgument for the file.
  static Result<std::shared_ptr<const Glossary>> Load(const Model& model, const std::string& path,
                                                      const GlossaryOptions& options = {});
  ~Glossary();

  size_t size() const;   ///< entries
  size_t bytes() const;  ///< heap bytes it holds (approximately)

  class Impl;
  /// tern's own code only.
  const Impl& impl() const { return *impl_; }

 private:
  friend struct GlossaryBuilder;
  Glossary();
  std::unique_ptr<Impl> impl_;
};

}  // namespace tern
