// Texts of several sentences (a paragraph, a line of a document): each text is split into sentences,
// every sentence of the call is translated as part of one batch (in chunks of the Translator's
// max_batch), and each text's translations are joined with the whitespace that separated its sentences,
// one result per text: what Bergamot does in Firefox Translations. The models are trained on single
// sentences and drop sentences from a paragraph given whole.
//
// Hypothesis k of a text joins hypothesis k of each of its sentences (a sentence with fewer gives its
// last); its ids are the sentences' ids one after the other, its per-token data (tokens, log-probabilities,
// source positions: search/track_copy.h) each sentence's in turn, every sentence's </s> included (a source
// position counts within its own sentence's source tokens), and its score the sum of their scores. A
// sentence that fails makes its text fail with "sentence J of N: <message>": every sentence of a text of
// several is checked (tokenized) before any is translated, so a text that will fail is never decoded and
// never streams a token. A text that starts with a language code (">>por<< ...", MarianTokenizer's rule)
// gives that code to each of its sentences. Results live in this object's heap buffers (reused from call
// to call) until the next call.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "search/token_stream.h"
#include "search/track_copy.h"
#include "text/sentence_splitter.h"
#include "tern/translator.h"

namespace tern {

class Paragraphs {
 public:
  /// Translates a batch of sentences (at most max_batch), one result per sentence; origins[i] says which
  /// text and part sentence i is (for streamed tokens). A kCancelled status still fills *out.
  class Engine {
   public:
    virtual ~Engine() = default;
    virtual Status TranslateSentences(Span<const std::string_view> sentences, const TokenStream::Origin* origins,
                                      Span<const TranslationResult>* out) = 0;
    /// The error sentence `s` would get from TranslateSentences before decoding (invalid text, too many
    /// tokens), or ok. For texts of several sentences, checked before any is translated.
    virtual Status CheckSentence(std::string_view s) = 0;
  };

  /// Splits `texts` (a text that SentenceSplitter::SurelyOneSentence accepts is not given to ICU; the
  /// splitter for `lang` is made when first needed). False when every text has at most one sentence: the
  /// caller then translates them directly, exactly as without splitting. Errors: kInternal (ICU),
  /// kUnsupported (no ICU in this build, and a text that may hold several sentences).
  Result<bool> Prepare(std::string_view lang, Span<const std::string_view> texts);

  /// After Prepare returned true: translates every sentence through `engine` in chunks of max_batch and
  /// joins them. *results: one per text, valid until the next Prepare. kCancelled (from the engine) stops
  /// after that chunk; *results is still set, texts not finished failing with kCancelled.
  Status Translate(Engine& engine, size_t max_batch, Span<const TranslationResult>* results);

 private:
  struct Piece {
    size_t text;                // index of its text
    size_t index, count;        // sentence index within the text, sentences in the text
    std::string_view sentence;  // a view into the caller's text, or into coded_ (its text's code first)
    std::string_view gap;       // the whitespace after it within the text (empty after the last)
    size_t offset = 0;          // where the sentence starts in its text, bytes
    size_t code = 0;            // bytes of the text's language code in front of `sentence` (coded_: code + ' ')
  };
  /// A source span of piece p's sentence -> its bytes in p's text.
  static TextSpan InText(const Piece& p, TextSpan s);
  void Add(const Piece& p, const TranslationResult& r);

  std::unique_ptr<SentenceSplitter> splitter_;
  Span<const std::string_view> texts_;
  std::deque<std::string> coded_;  // sentences with their text's language code put first (stable storage)
  std::vector<SentenceSpan> spans_;
  std::vector<Piece> pieces_;
  std::vector<std::string_view> chunk_;
  std::vector<size_t> chunk_pieces_;  // the piece of each chunk_ entry
  std::vector<TokenStream::Origin> origins_;
  // One joined hypothesis: heap copies of what its sentences' hypotheses hold.
  struct Joined {
    std::string text;
    std::vector<uint32_t> ids;
    TrackCopy track;
    std::vector<TextSpan> token_spans;
    float score = 0.f;
  };
  // Per text: its joined hypotheses and their public views, its sentences' source tokens, result, error text.
  std::vector<std::vector<Joined>> joined_;
  std::vector<std::vector<uint32_t>> source_ids_;
  std::vector<std::vector<TextSpan>> source_spans_;
  std::vector<std::vector<Hypothesis>> hyps_;
  std::vector<std::string> errors_;
  std::vector<TranslationResult> results_;
};

}  // namespace tern
