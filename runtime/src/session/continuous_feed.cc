#include "session/continuous_feed.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "markup/protect.h"
#include "model/model_impl.h"
#include "nn/encoder.h"
#include "search/run.h"
#include "session/continuous_call.h"
#include "session/markup_call.h"
#include "session/session.h"

namespace tern {
namespace {

// The session as search/run.h's SentenceSlots: slot b takes the next sentence, one of a text of
// several split earlier (each joins the batch as any sentence does; their results are joined in order once
// the last ends) or the source's next one.
class Feed final : public SentenceSlots {
 public:
  Feed(Translator::Impl& t, SentenceSource& source, const TranslateOptions& options, const ResolvedOptions& o)
      : t_(t), source_(source), options_(options), o_(o) {}

  Result<bool> Admit(size_t b) override {
    const ResultBuffers& out = t_.buf.results;
    for (;;) {
      if (!parts_.empty()) {  // a sentence of a split text
        const auto [text, k] = parts_.front();
        parts_.pop_front();
        if (text->join.failed()) {  // an earlier sentence of it failed (cancelled): the rest do not run
          PartDone(text);
          continue;
        }
        Reset(b, text->tag, false);
        slot_text_[b] = text, slot_part_[b] = k;
        if (text->protect) t_.buf.continuous.aligned[b] = 1;
        if (StageText(t_, b, text->sentences[k].sentence, options_, false) != Staged::kIds) {
          Finished(b, false);  // an empty sentence: its empty result joins the text's
          continue;
        }
        return Start(b);
      }
      PendingSentence p;
      if (!source_.Next(&p)) return false;
      Reset(b, p.tag, p.by_ids);
      Protected* protect = nullptr;
      std::string_view text = p.text;
      if (p.by_ids) {
        StageIds(t_, b, p.ids, options_);
      } else {
        if (const uint32_t syntaxes = markup::AutoProtectSyntaxes(options_, p.text)) {  // protect: the plain text runs
          protect = Protect(syntaxes, p.text);
          text = protect->markup.plain()[0];
          t_.buf.continuous.aligned[b] = 1;
        }
        if (Result<bool> several = Split(p.tag, text, protect); !several.ok()) {
          SetSentenceError(out, t_.buf.batch, b, several.status().code(), "%s", several.status().message().c_str());
        } else if (several.value()) {
          continue;  // its sentences wait in parts_ (or it failed before any was decoded)
        } else if (StageText(t_, b, text, options_, false) == Staged::kEmpty) {
          Deliver(p.tag, out.results[b], protect);  // nothing to translate: an empty translation
          continue;
        }
      }
      if (!out.results[b].ok()) {  // fails alone
        Deliver(p.tag, out.results[b], protect);
        continue;
      }
      if (protect) Slots(), slot_protect_[b] = protect;
      return Start(b);
    }
  }

  void Finished(size_t b, bool cancelled) override {
    const BatchBuffers& in = t_.buf.batch;
    const ResultBuffers& out = t_.buf.results;
    const ContinuousCallBuffers& cb = t_.buf.continuous;
    const size_t S = t_.dims.src;
    if (cancelled) SetSentenceError(out, in, b, StatusCode::kCancelled, "cancelled by the caller");
    TranslationResult& r = out.results[b];
    r.source_ids = Span<const uint32_t>(in.staged_ids + b * S, in.in_len[b]);
    if (!cb.by_ids[b]) {
      r.source_spans = Span<const TextSpan>(in.src_spans + b * S, in.in_len[b]);
      if (r.ok() && in.sentence_ok[b]) DetokenizeResult(t_, b);
    }
    SplitText* text = slot_text_.empty() ? nullptr : slot_text_[b];
    Protected* protect = slot_protect_.empty() ? nullptr : slot_protect_[b];
    if (text) slot_text_[b] = nullptr;
    if (protect) slot_protect_[b] = nullptr;
    if (!text) return Deliver(cb.tags[b], r, protect);
    const TextSentence& part = text->sentences[slot_part_[b]];
    text->in[slot_part_[b]] = 1;
    if (r.ok()) {  // kept as it is (sentence 1 of 1, at offset 0) until the sentences before it are in
      text->parts[slot_part_[b]].Add(TextSentence{}, r);
    } else {
      text->join.Add(part, r);  // the text fails with this sentence's error
    }
    PartDone(text);
  }

  /// After the call: the texts not complete (the call stopped or failed) fail as cancelled.
  void Flush() {
    TranslationResult cancelled;
    cancelled.error = StatusCode::kCancelled;
    cancelled.error_message = "cancelled by the caller";
    parts_.clear();
    for (auto& text : texts_) {
      if (!text->open) continue;
      size_t first = 0;  // the first sentence whose result is not in names the text's error
      while (first + 1 < text->sentences.size() && text->in[first]) ++first;
      if (!text->join.failed()) text->join.Add(text->sentences[first], cancelled);
      Complete(text.get());
    }
  }

 private:
  // A text whose spans auto_protect keeps (a URL, an e-mail address, a printf or brace placeholder): taken apart
  // as Translate's protect stage does (keep_placeholders with the text's syntaxes), its plain text translated
  // with the alignment (as Translate's plain options ask), the spans put back when its result is in (Deliver).
  struct Protected {
    bool open = false;
    TranslateOptions options;  // the call's, keeping the text's syntaxes
    MarkupCall markup;
  };

  // A text split into sentences: each runs in a slot of its own; results kept per sentence, joined at the end.
  struct SplitText {
    uint64_t tag = 0;
    bool open = false;
    Protected* protect = nullptr;          // its spans, when auto_protect took them out before the split
    size_t done = 0;                       // sentences whose results are in
    std::vector<TextSentence> sentences;
    std::deque<std::string> coded;         // sentences with the text's language code first
    std::vector<SentenceJoin> parts;       // [sentences] each finished sentence's result, copied
    std::vector<uint8_t> in;               // [sentences] 1: its result is in
    SentenceJoin join;                     // the text's
  };

  void Reset(size_t b, uint64_t tag, bool by_ids) {
    const ContinuousCallBuffers& cb = t_.buf.continuous;
    t_.buf.results.results[b] = TranslationResult();
    t_.buf.batch.sentence_ok[b] = 1;
    t_.buf.batch.in_len[b] = 0;
    cb.tags[b] = tag;
    cb.by_ids[b] = by_ids ? 1 : 0;
    cb.aligned[b] = options_.return_alignment ? 1 : 0;
  }

  // The per-slot lists, made by the first split or protected text of the call (a call of plain single
  // sentences allocates none of this).
  void Slots() {
    if (!slot_text_.empty()) return;
    slot_text_.assign(t_.dims.batch, nullptr), slot_part_.assign(t_.dims.batch, 0), slot_protect_.assign(t_.dims.batch, nullptr);
    check_ids_.resize(t_.dims.src);
  }

  // Takes `text`'s spans out (Translate's protect stage for one text); its plain() is what runs.
  Protected* Protect(uint32_t syntaxes, std::string_view text) {
    Protected* p = nullptr;
    for (auto& x : protected_)
      if (!x->open) p = x.get();
    if (!p) protected_.push_back(std::make_unique<Protected>()), p = protected_.back().get();
    p->open = true;
    p->options = options_;
    p->options.keep_placeholders = true;
    p->options.placeholder_syntaxes = syntaxes;
    p->markup.Prepare(Span<const std::string_view>(&text, 1), p->options);
    return p;
  }

  // Hands a text's result to the source: with its spans put back (markup/transfer.h) when it was protected.
  void Deliver(uint64_t tag, const TranslationResult& r, Protected* protect) {
    if (!protect) return source_.Done(tag, r);
    const Span<const TranslationResult> restored = protect->markup.Finish(Span<const TranslationResult>(&r, 1));
    protect->open = false;
    source_.Done(tag, restored[0]);
  }

  // With split_sentences (and ICU): splits text p; a text of several sentences becomes a SplitText whose
  // sentences wait in parts_, each checked (tokenized) first, so that a text that will fail is never decoded
  // in part (as Translate). True when it had several.
  Result<bool> Split(uint64_t tag, std::string_view whole, Protected* protect) {
    if (!options_.split_sentences || !SentenceSplitter::Available()) return false;
    sentences_.clear();
    coded_.clear();
    TERN_ASSIGN_OR_RETURN(const bool several, t_.splitter.Split(t_.model->source_lang(), 0, whole, &sentences_, &coded_));
    if (!several) return false;
    Slots();
    SplitText* text = Open(tag);
    text->protect = protect;
    text->sentences.swap(sentences_);
    text->coded.swap(coded_);  // the sentences' views stay valid: a deque's swap moves no string
    text->parts.resize(std::max(text->parts.size(), text->sentences.size()));
    for (size_t k = 0; k < text->sentences.size(); ++k) text->parts[k].Reset();
    text->in.assign(text->sentences.size(), 0);
    for (const TextSentence& s : text->sentences) {
      size_t len = 0;
      const Status st = t_.tokenizer->Encode(s.sentence, options_.target_lang, check_ids_.data(), check_ids_.size(), &len,
                                             nullptr, options_.max_input_length);
      if (st.ok()) continue;
      TranslationResult failed;
      failed.error = st.code();
      failed.error_message = st.message();
      text->join.Add(s, failed);
      text->done = text->sentences.size();
      Complete(text);
      return true;
    }
    for (size_t k = 0; k < text->sentences.size(); ++k) parts_.emplace_back(text, k);
    return true;
  }

  SplitText* Open(uint64_t tag) {
    SplitText* text = nullptr;
    for (auto& x : texts_)
      if (!x->open) text = x.get();
    if (!text) texts_.push_back(std::make_unique<SplitText>()), text = texts_.back().get();
    text->tag = tag, text->open = true, text->done = 0;
    text->join.Reset();
    return text;
  }

  void PartDone(SplitText* text) {
    if (++text->done == text->sentences.size()) Complete(text);
  }

  // Joins the text's sentences in order (unless one failed) and hands the result over.
  void Complete(SplitText* text) {
    for (size_t k = 0; k < text->sentences.size() && !text->join.failed(); ++k)
      text->join.Add(text->sentences[k], text->parts[k].Finish());
    text->open = false;
    Deliver(text->tag, text->join.Finish(), text->protect);
  }

  // Slot b's sentence is staged: pack and encode it alone (its encoder buffers live through decoding).
  Result<bool> Start(size_t b) {
    const BatchBuffers& in = t_.buf.batch;
    const ContinuousCallBuffers& cb = t_.buf.continuous;
    const size_t S = t_.dims.src;
    const uint32_t len = in.in_len[b];
    std::memcpy(in.src_ids + b * S, in.staged_ids + b * S, len * sizeof(uint32_t));
    in.src_off[b] = static_cast<uint32_t>(b * S);
    in.src_len[b] = len;
    in.order[b] = static_cast<uint32_t>(b);
    in.max_len[b] = SentenceCap(o_, len);
    const uint32_t zero = 0;
    t_.net->SetPooled(t_.threads.pooled());
    TERN_RETURN_IF_ERROR(Encode(*t_.net, *t_.model, 1, in.src_ids + b * S, SourceRanges{&zero, &len}, cb.enc, t_.buf.dec,
                                t_.dims.src_rows, t_.prof, b * S));
    return true;
  }

  Translator::Impl& t_;
  SentenceSource& source_;
  const TranslateOptions& options_;
  const ResolvedOptions& o_;
  std::vector<std::unique_ptr<SplitText>> texts_;      // split texts, open and reusable
  std::deque<std::pair<SplitText*, size_t>> parts_;    // sentences of split texts waiting for a slot
  std::vector<std::unique_ptr<Protected>> protected_;  // protected texts, open and reusable
  std::vector<Protected*> slot_protect_;               // [batch] the protected text of slot b's sentence (not split), or null
  std::vector<SplitText*> slot_text_;                  // [batch] the split text of slot b's sentence, or null
  std::vector<size_t> slot_part_;                      // [batch] and which of its sentences
  std::vector<TextSentence> sentences_;                // scratch of Split
  std::deque<std::string> coded_;
  std::vector<uint32_t> check_ids_;                    // [src] scratch of the sentences' check
};

}  // namespace

Status RunFeed(Translator::Impl& t, SearchContext& ctx, SearchStrategy& strategy, SentenceSource& source,
               const TranslateOptions& options, const ResolvedOptions& o) {
  Feed feed(t, source, options, o);
  const ContinuousCallBuffers& cb = t.buf.continuous;
  const Status st = RunSearch(ctx, t.dims.batch, t, strategy, feed, SlotSteps{cb.start_step.data(), cb.positions.data()});
  feed.Flush();
  return st;
}

}  // namespace tern
