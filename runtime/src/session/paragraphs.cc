#include "session/paragraphs.h"

#include <algorithm>

#include "text/tokenizer.h"

namespace tern {

Result<bool> TextSplitter::Split(std::string_view lang, size_t i, std::string_view t, std::vector<TextSentence>* out,
                                 std::deque<std::string>* coded) {
  TextSentence whole;
  whole.text = i, whole.sentence = t;
  // Invalid UTF-8 is not split: the text goes through whole and fails with its own message.
  if (FindInvalidUtf8(t) != t.size() || SentenceSplitter::SurelyOneSentence(t)) {
    out->push_back(whole);
    return false;
  }
  if (!splitter_) {
    TERN_ASSIGN_OR_RETURN(splitter_, SentenceSplitter::Create(lang));
  }
  // A leading language code belongs to every sentence of the text: split what follows it.
  const std::string_view code = LeadingLanguageCode(t);
  const std::string_view body = t.substr(code.size());
  TERN_RETURN_IF_ERROR(splitter_->Split(body, &spans_));
  if (spans_.size() <= 1) {  // one sentence, or whitespace only: translated as it is
    out->push_back(whole);
    return false;
  }
  for (size_t j = 0; j < spans_.size(); ++j) {
    const SentenceSpan& s = spans_[j];
    const bool last = j + 1 == spans_.size();
    TextSentence p;
    p.text = i, p.index = j, p.count = spans_.size();
    p.sentence = body.substr(s.begin, s.end - s.begin);
    p.gap = last ? std::string_view() : body.substr(s.end, s.gap_end - s.end);
    p.offset = code.size() + s.begin;
    if (!code.empty()) {
      coded->push_back(std::string(code) + " " + std::string(p.sentence));
      p.sentence = coded->back();
      p.code = code.size() + 1;
    }
    out->push_back(p);
  }
  return true;
}

Result<bool> Paragraphs::Prepare(TextSplitter& splitter, std::string_view lang, Span<const std::string_view> texts) {
  texts_ = texts;
  pieces_.clear();
  coded_.clear();
  bool several = false;
  for (size_t i = 0; i < texts.size(); ++i) {
    TERN_ASSIGN_OR_RETURN(const bool more, splitter.Split(lang, i, texts[i], &pieces_, &coded_));
    several |= more;
  }
  return several;
}

TextSpan SentenceJoin::InText(const TextSentence& p, TextSpan s) {
  if (p.code == 0) return TextSpan{p.offset + s.begin, p.offset + s.end};
  if (s.begin < p.code - 1) return TextSpan{0, p.code - 1};  // the language code, at the text's start
  auto at = [&](size_t x) { return p.offset + (x > p.code ? x - p.code : 0); };
  return TextSpan{at(s.begin), std::max(at(s.begin), at(s.end))};
}

void SentenceJoin::Reset() {
  joined_.clear();
  source_ids_.clear();
  source_spans_.clear();
  hyps_.clear();
  error_.clear();
  result_ = TranslationResult();
}

void SentenceJoin::Add(const TextSentence& p, const TranslationResult& r) {
  if (failed()) return;  // an earlier sentence of this text failed
  if (!r.ok()) {
    error_ = "sentence " + std::to_string(p.index + 1) + " of " + std::to_string(p.count) + ": " + std::string(r.error_message);
    result_.error = r.error;
    return;
  }
  const size_t n = std::max(joined_.size(), r.hypotheses.size());
  if (joined_.size() < n) {  // a hypothesis k that earlier sentences lacked starts from their last one
    const size_t have = joined_.size();
    joined_.resize(n);
    for (size_t k = have; k < n; ++k)
      if (have > 0) joined_[k] = joined_[have - 1];
  }
  // Source token indices and byte offsets continue from the text's earlier sentences.
  const size_t source_base = source_ids_.size();
  source_ids_.insert(source_ids_.end(), r.source_ids.begin(), r.source_ids.end());
  for (const TextSpan& sp : r.source_spans) source_spans_.push_back(InText(p, sp));
  for (size_t k = 0; k < n; ++k) {
    const Hypothesis& h = r.hypotheses[std::min(k, r.hypotheses.size() - 1)];
    Joined& j = joined_[k];
    const size_t text_base = j.text.size(), first = j.track.token_sources.size();
    j.text.append(h.text);
    j.ids.insert(j.ids.end(), h.ids.begin(), h.ids.end());
    j.track.Append(h);
    for (size_t t = first; t < j.track.token_sources.size(); ++t)
      if (j.track.token_sources[t] >= 0) j.track.token_sources[t] += static_cast<int32_t>(source_base);
    for (const TextSpan& sp : h.token_spans) j.token_spans.push_back(TextSpan{text_base + sp.begin, text_base + sp.end});
    j.score += h.score;
    if (!p.gap.empty()) j.text.append(p.gap);
  }
}

const TranslationResult& SentenceJoin::Finish() {
  TranslationResult& r = result_;
  if (failed()) {
    r.error_message = error_;
    r.hypotheses = {};
    return r;
  }
  hyps_.resize(joined_.size());
  for (size_t k = 0; k < hyps_.size(); ++k) {
    const Joined& j = joined_[k];
    Hypothesis& h = hyps_[k];
    h = Hypothesis();
    h.text = j.text;
    h.ids = Span<const uint32_t>(j.ids.data(), j.ids.size());
    h.score = j.score;
    j.track.Bind(&h);
    h.token_spans = Span<const TextSpan>(j.token_spans.data(), j.token_spans.size());
  }
  r.source_ids = Span<const uint32_t>(source_ids_.data(), source_ids_.size());
  r.source_spans = Span<const TextSpan>(source_spans_.data(), source_spans_.size());
  r.error = StatusCode::kOk;
  r.hypotheses = Span<const Hypothesis>(hyps_.data(), hyps_.size());
  return r;
}

Status Paragraphs::Translate(Engine& engine, size_t max_batch, Span<const TranslationResult>* results) {
  const size_t n = texts_.size();
  if (joins_.size() < n) joins_.resize(n);
  for (size_t i = 0; i < n; ++i) joins_[i].Reset();
  results_.assign(n, TranslationResult());
  // A text of several sentences fails as a whole if one of them fails: check them all first, so that such
  // a text is never decoded (nor streamed) in part.
  for (const TextSentence& p : pieces_) {
    if (p.count < 2 || joins_[p.text].failed()) continue;
    const Status s = engine.CheckSentence(p.sentence);
    if (s.ok()) continue;
    TranslationResult failed;
    failed.error = s.code();
    failed.error_message = s.message();
    joins_[p.text].Add(p, failed);
  }
  Status cancelled = Status::Ok();
  for (size_t next = 0; next < pieces_.size();) {
    // The next max_batch sentences of texts that have not failed.
    chunk_.clear();
    origins_.clear();
    chunk_pieces_.clear();
    for (; next < pieces_.size() && chunk_.size() < max_batch; ++next) {
      const TextSentence& p = pieces_[next];
      if (joins_[p.text].failed()) continue;
      chunk_.push_back(p.sentence);
      chunk_pieces_.push_back(next);
      TokenStream::Origin o;
      o.index = static_cast<uint32_t>(p.text);
      o.part = static_cast<uint32_t>(p.index);
      o.parts = static_cast<uint32_t>(p.count);
      origins_.push_back(o);
    }
    if (chunk_.empty()) break;
    Span<const TranslationResult> out;
    const Status st = engine.TranslateSentences(Span<const std::string_view>(chunk_.data(), chunk_.size()), origins_.data(), &out);
    if (!st.ok() && st.code() != StatusCode::kCancelled) return st;
    for (size_t k = 0; k < chunk_pieces_.size(); ++k) {
      const TextSentence& p = pieces_[chunk_pieces_[k]];
      joins_[p.text].Add(p, out[k]);
    }
    if (st.code() == StatusCode::kCancelled) {  // the sentences not translated yet fail as cancelled
      cancelled = st;
      TranslationResult not_run;
      not_run.error = StatusCode::kCancelled;
      not_run.error_message = "cancelled by the caller";
      for (size_t k = next; k < pieces_.size(); ++k) joins_[pieces_[k].text].Add(pieces_[k], not_run);
      break;
    }
  }
  for (size_t i = 0; i < n; ++i) results_[i] = joins_[i].Finish();
  *results = Span<const TranslationResult>(results_.data(), n);
  return cancelled;
}

}  // namespace tern
