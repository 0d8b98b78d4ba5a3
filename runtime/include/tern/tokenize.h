// tern::TextTokenizer: text -> token ids exactly as a Translator tokenizes its input (MarianTokenizer's
// rules: a leading ">>xxx<<" language code, SentencePiece, the model's vocabulary, `</s>` appended), and
// target ids -> text as it detokenizes its output. For debugging a model and for conformance checks
// (`tern tokenize`); a Translator does not need it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tern/export.h"
#include "tern/model.h"
#include "tern/status.h"
#include "tern/translator.h"

namespace tern {

class Tokenizer;

/// Text <-> token ids with a model's own SentencePiece models and vocabularies, as Translate() tokenizes
/// (MarianTokenizer's rules: runtime/src/text/tokenizer.h).
class TERN_API TextTokenizer {
 public:
  /// Which language's SentencePiece model and vocabulary.
  enum class Side { kSource, kTarget };
  /// Loads the SentencePiece model of `side` (source: what translation reads; target: the other
  /// language, with the target vocabulary). Error: kInvalidModel if SentencePiece rejects it.
  static Result<std::unique_ptr<TextTokenizer>> Create(std::shared_ptr<const Model> model, Side side = Side::kSource);
  ~TextTokenizer();

  /// The ids of `text` (`</s>` included), `target_lang` as TranslateOptions::target_lang. Errors:
  /// kInvalidArgument (invalid UTF-8 or a NUL byte, naming the byte; a target_lang the model lacks).
  Status Encode(std::string_view text, std::string_view target_lang, std::vector<uint32_t>* ids) const;

  /// The text of target ids, as Translate() writes it (target side only; `</s>` and pad skipped).
  std::string Decode(Span<const uint32_t> ids) const;

 private:
  TextTokenizer() = default;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  Side side_ = Side::kSource;
};

}  // namespace tern
