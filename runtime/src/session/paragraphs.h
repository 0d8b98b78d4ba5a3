// Texts of several sentences (a paragraph, a line of a document): each text is split into sentences
// (TextSplitter), every sentence is translated as a sentence of the batch (a static call: in chunks of the
// Translator's max_batch, Paragraphs; a continuous call: each joining the running batch, session/
// continuous_call.cc), and each text's translations are joined with the whitespace that separated its
// sentences (SentenceJoin), one result per text: what Bergamot does in Firefox Translations. The models are trained on single
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

/// One sentence of a split text.
struct TextSentence {
  size_t text = 0;                 // the caller's index of its text
  size_t index = 0, count = 1;     // sentence index within the text, sentences in the text
  std::string_view sentence;       // a view into the text, or into the splitter's `coded` storage (its code first)
  std::string_view gap;            // the whitespace after it within the text (empty after the last)
  size_t offset = 0;               // where the sentence starts in its text, bytes
  size_t code = 0;                 // bytes of the text's language code in front of `sentence` (coded: code + ' ')
};

/// Splits texts into sentences (the splitter for a language made when first needed). Used by Paragraphs
/// (static calls) and by the continuous call, one text at a time.
class TextSplitter {
 public:
  /// Appends the sentences of text `text` (index `i`) to *out: one TextSentence for the whole text when it
  /// has one sentence (a text SentenceSplitter::SurelyOneSentence accepts is not given to ICU; invalid UTF-8
  /// is not split and fails later with its own message). A leading language code (">>por<< ", MarianTokenizer's
  /// rule) is put in front of each sentence, in strings appended to *coded (stable while the sentences are
  /// used). Returns whether the text has several sentences. Errors: kInternal (ICU), kUnsupported (no ICU).
  Result<bool> Split(std::string_view lang, size_t i, std::string_view text, std::vector<TextSentence>* out,
                     std::deque<std::string>* coded);

 private:
  std::unique_ptr<SentenceSplitter> splitter_;
  std::vector<SentenceSpan> spans_;
};

/// One text's result joined from its sentences' results (the rules at the top of this file). Its result
/// views this object's heap buffers (reused from text to text) until the next Reset.
class SentenceJoin {
 public:
  void Reset();
  /// Adds sentence p's result (sentences in order). A failed sentence fails the text ("sentence J of N:
  /// <message>"); later sentences are then ignored.
  void Add(const TextSentence& p, const TranslationResult& r);
  bool failed() const { return !error_.empty(); }
  /// The text's result after its last sentence was added.
  const TranslationResult& Finish();

 private:
  /// A source span of sentence p -> its bytes in p's text.
  static TextSpan InText(const TextSentence& p, TextSpan s);
  // One joined hypothesis: heap copies of what its sentences' hypotheses hold.
  struct Joined {
    std::string text;
    std::vector<uint32_t> ids;
    TrackCopy track;
    std::vector<TextSpan> token_spans;
    float score = 0.f;
  };
  std::vector<Joined> joined_;
  std::vector<uint32_t> source_ids_;      // the sentences' source tokens one after the other
  std::vector<TextSpan> source_spans_;    // their bytes in the text
  std::vector<Hypothesis> hyps_;          // the joined hypotheses' public views
  std::string error_;
  TranslationResult result_;
};

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

  /// Splits `texts` with `splitter`. False when every text has at most one sentence: the caller then
  /// translates them directly, exactly as without splitting. Errors: TextSplitter::Split's.
  Result<bool> Prepare(TextSplitter& splitter, std::string_view lang, Span<const std::string_view> texts);

  /// After Prepare returned true: translates every sentence through `engine` in chunks of max_batch and
  /// joins them. *results: one per text, valid until the next Prepare. kCancelled (from the engine) stops
  /// after that chunk; *results is still set, texts not finished failing with kCancelled.
  Status Translate(Engine& engine, size_t max_batch, Span<const TranslationResult>* results);

 private:
  Span<const std::string_view> texts_;
  std::deque<std::string> coded_;  // sentences with their text's language code put first (stable storage)
  std::vector<TextSentence> pieces_;
  std::vector<std::string_view> chunk_;
  std::vector<size_t> chunk_pieces_;  // the piece of each chunk_ entry
  std::vector<TokenStream::Origin> origins_;
  std::vector<SentenceJoin> joins_;  // per text
  std::vector<TranslationResult> results_;
};

}  // namespace tern
