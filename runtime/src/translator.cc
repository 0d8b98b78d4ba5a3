// The public session API: Translator::Create, Translate, TranslateIds and accessors, over the session
// (session.h), the batch staging (batch.h), the encoder, and the search.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "busy_guard.h"
#include "encoder.h"
#include "tern/cpu.h"
#include "session.h"
#include "testing.h"

namespace tern {
namespace {

Result<Dims> PlanFor(const Model& model, const TranslatorConfig& config, SessionBuffers* buf, ArenaPlan* plan) {
  auto dims = ResolveDims(model, config);
  if (!dims.ok()) return dims.status();
  PlanArena(dims.value(), buf, plan);
  return dims;
}

std::string Lifetime(Phase first, Phase last) {
  return first == last ? PhaseName(first) : std::string(PhaseName(first)) + ".." + PhaseName(last);
}

// The shared shape of a translate call: resolve options, reset each result, stage sentence i with
// stage(i) (which copies its ids to staged_ids/in_len or records its error), translate the batch.
template <typename StageFn>
Status RunCall(Translator::Impl& t, size_t n, const TranslateOptions& options, StageFn stage) {
  auto o = ResolveOptions(t.model->generation(), t.dims, n, options);
  if (!o.ok()) return o.status();
  for (size_t i = 0; i < n; ++i) {
    t.buf.results.results[i] = TranslationResult();
    t.buf.batch.sentence_ok[i] = 1;
    stage(i);
  }
  const size_t valid = PackBatch(t.dims, t.buf.batch, n, o.value());
  if (valid == 0) return Status::Ok();
  // Streaming: each sentence's text so far goes to its first result text slot (rewritten at the end).
  for (size_t i = 0; i < n; ++i) t.buf.search.stream_emitted[i] = 0;
  t.stream.Begin(options, t.tokenizer.get(), t.buf.results.out_text, t.dims.n_best * t.dims.text_bytes, t.dims.text_bytes,
                 t.buf.search.stream_emitted, t.buf.batch.order, t.origins);
  t.streaming = options.on_token != nullptr || options.abort != nullptr;
  return t.TranslateStaged(valid, o.value());
}

// A status that still leaves *results filled: success, or a call the caller's callback stopped.
bool HasResults(const Status& s) { return s.ok() || s.code() == StatusCode::kCancelled; }

Status BusyError() {
  return Status(StatusCode::kBusy, "Translator: a call is already running in another thread (use one Translator per thread)");
}

}  // namespace

Result<float*> Translator::Impl::Decode(size_t pos, const StepRows& rows, const VocabMap& vocab) {
  // Each step runs on the pool or on this thread alone, whichever the measured step times favour.
  const ThreadPolicy::Way way = threads.Next();
  bool pooled = way != ThreadPolicy::Way::kSingle;
  if (way == ThreadPolicy::Way::kProbePool && net->PingPool() > ThreadPolicy::kStall) threads.PoolStalled(), pooled = false;
  net->SetPooled(pooled);
  const auto t0 = std::chrono::steady_clock::now();
  TERN_RETURN_IF_ERROR(DecodeStep(*net, *model, dims, pos, rows, vocab, buf.batch, buf.dec, buf.attention_scores, prof));
  threads.Report(pooled, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), rows.n);
  if (!pooled) prof.profile.single_thread_steps++;
  return buf.dec.logits.data();
}

Status Translator::Impl::TranslateStaged(size_t n_valid, const ResolvedOptions& o) {
  net->SetPooled(threads.pooled());
  TERN_RETURN_IF_ERROR(Encode(*net, *model, n_valid, buf.batch, buf.enc, buf.dec, buf.attention_scores, dims.src_rows, prof));
  const Hyperparameters& hp = model->hparams();
  SearchOptions opt;
  opt.beam = o.beam;
  opt.n_best = o.n_best;
  opt.length_penalty = o.length_penalty;
  opt.want_scores = o.want_scores;
  opt.hf_rules = o.hf_rules;
  opt.early_stopping = o.early_stopping;
  SearchContext ctx{dims, buf.batch, buf.search, buf.results, processors, HypothesisStore(buf.search, o.beam, dims.tgt, o.hf_rules),
                    prof, hp.eos_id, hp.decoder_start_id, opt, 0, nullptr, VocabMap(), streaming ? &stream : nullptr};
  ctx.vocab = dims.shortlist && o.use_shortlist
                  ? BuildShortlistMap(model->shortlist(), buf.batch, n_valid, hp.eos_id, processors.mask(), dims.vocab, buf.vocab)
                  : IdentityMap(dims.vocab, processors.mask());
  return RunSearch(ctx, n_valid, *this);
}

Result<size_t> Translator::RequiredArenaBytes(const Model& model, const TranslatorConfig& config) {
  SessionBuffers buf;
  ArenaPlan plan;
  auto dims = PlanFor(model, config, &buf, &plan);
  if (!dims.ok()) return dims.status();
  return plan.total_bytes();
}

Result<std::vector<ArenaBufferInfo>> Translator::DescribeArena(const Model& model, const TranslatorConfig& config) {
  SessionBuffers buf;
  ArenaPlan plan;
  auto dims = PlanFor(model, config, &buf, &plan);
  if (!dims.ok()) return dims.status();
  std::vector<ArenaBufferInfo> out;
  for (const PlannedBuffer& b : plan.Describe()) out.push_back({b.name, b.bytes, b.offset, Lifetime(b.first, b.last)});
  return out;
}

Result<std::unique_ptr<Translator>> Translator::Create(std::shared_ptr<const Model> model, const TranslatorConfig& config) {
  if (!model) return Status(StatusCode::kInvalidArgument, "Translator: no model");
  TERN_RETURN_IF_ERROR(InitXnnpack());
  auto impl = std::make_unique<Impl>();
  Impl& t = *impl;
  t.model = model;
  t.config = config;
  auto dims = PlanFor(*model, config, &t.buf, &t.plan);
  if (!dims.ok()) return dims.status();
  t.dims = dims.value();
  uint8_t* base;
  if (config.arena) {
    if (reinterpret_cast<uintptr_t>(config.arena) % MemoryPlanner::kAlignment != 0)
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena is not 64-byte aligned");
    if (config.arena_bytes < t.plan.total_bytes())
      return Status(StatusCode::kInvalidArgument, "Translator: caller's arena has " + std::to_string(config.arena_bytes) +
                                                      " bytes, the limits need " + std::to_string(t.plan.total_bytes()));
    base = static_cast<uint8_t*>(config.arena);
  } else {
    t.owned_arena.reset(new (std::nothrow) uint8_t[t.plan.total_bytes() + MemoryPlanner::kAlignment]);
    if (!t.owned_arena)
      return Status(StatusCode::kResourceExhausted,
                    "Translator: cannot allocate a " + std::to_string(t.plan.total_bytes()) + "-byte arena");
    base = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(t.owned_arena.get()) + MemoryPlanner::kAlignment - 1) &
                                      ~uintptr_t{MemoryPlanner::kAlignment - 1});
  }
  t.plan.Bind(base);

  auto tokenizer = Tokenizer::Create(*model);
  if (!tokenizer.ok()) return tokenizer.status();
  t.tokenizer = std::move(tokenizer.value());
  auto prepared = PreparedModel::Of(model);
  if (!prepared.ok()) return prepared.status();
  t.prepared = prepared.value();
  // More threads than hardware threads only time-slice (1,024 on 2 cores took 415 s for one sentence).
  const uint32_t threads = std::min(config.threads ? config.threads : DefaultThreadCount(), DescribeCpu().processors);
  auto net = Network::Create(*model, *t.prepared, threads);
  if (!net.ok()) return net.status();
  t.net = std::move(net.value());
  t.threads = ThreadPolicy(threads > 1);
  t.processors.Init(*model);
  return std::unique_ptr<Translator>(new Translator(std::move(impl)));
}

Translator::Translator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::TranslateIds(Span<const Span<const uint32_t>> sources, const TranslateOptions& options,
                                Span<const TranslationResult>* results) {
  Impl& t = *impl_;
  BusyGuard busy(t.busy);
  if (!busy.acquired()) return BusyError();
  const BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  t.origins = nullptr;
  const Status st = RunCall(t, sources.size(), options, [&](size_t i) {
    const Span<const uint32_t>& s = sources[i];
    if (s.size() == 0) return SetSentenceError(out, in, i, StatusCode::kInvalidArgument, "no source ids (at least </s> is needed)");
    if (s.size() > t.dims.src)
      return SetSentenceError(out, in, i, StatusCode::kResourceExhausted, "%zu source tokens exceed max_source_tokens %zu",
                              s.size(), t.dims.src);
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] >= t.model->hparams().source_vocab_size)
        return SetSentenceError(out, in, i, StatusCode::kInvalidArgument,
                                "id %u at position %zu is outside the source vocabulary (%u)", s[k], k,
                                t.model->hparams().source_vocab_size);
    }
    std::memcpy(in.staged_ids + i * t.dims.src, s.data(), s.size() * sizeof(uint32_t));
    in.in_len[i] = static_cast<uint32_t>(s.size());
  });
  if (!HasResults(st)) return st;
  *results = Span<const TranslationResult>(out.results, sources.size());
  return st;
}

Status Translator::Impl::TranslateTexts(Span<const std::string_view> texts, const TranslateOptions& options,
                                        Span<const TranslationResult>* results) {
  Impl& t = *this;
  const BatchBuffers& in = t.buf.batch;
  const ResultBuffers& out = t.buf.results;
  const size_t n = texts.size();
  if (!options.target_lang.empty()) {  // a language the model lacks fails the call, not each sentence
    const std::string code = LanguageCode(options.target_lang);
    const auto& langs = t.model->language_tokens();
    if (std::find(langs.begin(), langs.end(), code) == langs.end()) {
      std::string have;
      for (std::string_view l : langs) have += (have.empty() ? "" : ", ") + std::string(l);
      return Status(StatusCode::kInvalidArgument, "target_lang '" + std::string(options.target_lang) + "': the model has no " +
                                                      code + " token (" + (have.empty() ? "it has no language tokens" : "it has " + have) + ")");
    }
  }
  const Status st = RunCall(t, n, options, [&](size_t i) {
    if (texts[i].find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
      // Nothing to translate: an empty translation, without running the model.
      Hypothesis& h = out.hypotheses[i * t.dims.n_best];
      h = Hypothesis();
      out.results[i].hypotheses = Span<const Hypothesis>(&h, 1);
      in.sentence_ok[i] = 0;
      return;
    }
    size_t len = 0;
    Status s = t.tokenizer->Encode(texts[i], options.target_lang, in.staged_ids + i * t.dims.src, t.dims.src, &len);
    if (!s.ok()) return SetSentenceError(out, in, i, s.code(), "%s", s.message().c_str());
    in.in_len[i] = static_cast<uint32_t>(len);
  });
  if (!HasResults(st)) return st;
  // Detokenize every hypothesis into the arena's text buffer.
  for (size_t i = 0; i < n; ++i) {
    TranslationResult& r = out.results[i];
    if (!r.ok()) continue;
    for (size_t k = 0; k < r.hypotheses.size(); ++k) {
      Hypothesis& h = const_cast<Hypothesis&>(r.hypotheses[k]);
      char* text = out.out_text + (i * t.dims.n_best + k) * t.dims.text_bytes;
      const size_t len = t.tokenizer->Decode(h.ids.data(), h.ids.size(), text, t.dims.text_bytes);
      h.text = std::string_view(text, len);
    }
  }
  *results = Span<const TranslationResult>(out.results, n);
  return st;
}

namespace {

// Paragraphs' engine: a chunk of sentences through TranslateTexts, splitting off.
class SentenceEngine : public Paragraphs::Engine {
 public:
  SentenceEngine(Translator::Impl& t, const TranslateOptions& o) : t_(t), o_(o), ids_(t.dims.src) { o_.split_sentences = false; }
  Status TranslateSentences(Span<const std::string_view> sentences, const TokenStream::Origin* origins,
                            Span<const TranslationResult>* out) override {
    t_.origins = origins;
    const Status s = t_.TranslateTexts(sentences, o_, out);
    t_.origins = nullptr;
    return s;
  }
  Status CheckSentence(std::string_view s) override {
    if (s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) return Status::Ok();
    size_t len = 0;
    return t_.tokenizer->Encode(s, o_.target_lang, ids_.data(), ids_.size(), &len);
  }

 private:
  Translator::Impl& t_;
  TranslateOptions o_;
  std::vector<uint32_t> ids_;  // scratch for CheckSentence
};

}  // namespace

Status Translator::Translate(Span<const std::string_view> texts, const TranslateOptions& options,
                             Span<const TranslationResult>* results) {
  Impl& t = *impl_;
  BusyGuard busy(t.busy);
  if (!busy.acquired()) return BusyError();
  if (texts.size() > t.dims.batch)
    return Status(StatusCode::kInvalidArgument,
                  std::to_string(texts.size()) + " sentences exceed max_batch " + std::to_string(t.dims.batch));
  t.origins = nullptr;
  if (options.split_sentences && SentenceSplitter::Available()) {
    auto several = t.paragraphs.Prepare(t.model->source_lang(), texts);
    if (!several.ok()) return several.status();
    if (several.value()) {
      SentenceEngine engine(t, options);
      return t.paragraphs.Translate(engine, t.dims.batch, results);
    }
  }
  return t.TranslateTexts(texts, options, results);
}

bool Translator::splits_sentences() const { return SentenceSplitter::Available(); }

Translator::Impl& ImplOf(Translator& t) { return *t.impl_; }

namespace testing {

Status TeacherForced(Translator& tr, Span<const uint32_t> src, Span<const uint32_t> tgt_in, float* encoder_out, float* logits) {
  Translator::Impl& t = ImplOf(tr);
  const BatchBuffers& in = t.buf.batch;
  const SearchBuffers& s = t.buf.search;
  if (src.size() == 0 || src.size() > t.dims.src || tgt_in.size() == 0 || tgt_in.size() > t.dims.tgt)
    return Status(StatusCode::kInvalidArgument, "TeacherForced: lengths outside the limits");
  std::memcpy(in.src_ids, src.data(), src.size() * sizeof(uint32_t));
  in.src_off[0] = 0;
  in.src_len[0] = static_cast<uint32_t>(src.size());
  TERN_RETURN_IF_ERROR(Encode(*t.net, *t.model, 1, in, t.buf.enc, t.buf.dec, t.buf.attention_scores, t.dims.src_rows, t.prof));
  std::memcpy(encoder_out, t.buf.enc.x.data(), src.size() * t.dims.d * sizeof(float));
  s.active[0] = 0;
  s.active_sentence[0] = 0;
  for (size_t pos = 0; pos < tgt_in.size(); ++pos) {
    s.anc[pos] = 0;
    StepRows rows;
    rows.n = 1;
    rows.slots = s.active;
    rows.sentences = s.active_sentence;
    rows.tokens = tgt_in.data() + pos;
    rows.ancestry = s.anc;
    auto l = t.Decode(pos, rows, IdentityMap(t.dims.vocab, t.processors.mask()));
    if (!l.ok()) return l.status();
    std::memcpy(logits + pos * t.dims.vocab, l.value(), t.dims.vocab * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace testing

size_t Translator::arena_bytes() const { return impl_->plan.total_bytes(); }
size_t Translator::arena_unshared_bytes() const { return impl_->plan.unshared_bytes(); }
uint32_t Translator::threads() const { return impl_->net->threads(); }
uint32_t Translator::max_batch() const { return static_cast<uint32_t>(impl_->dims.batch); }
const TranslatorConfig& Translator::config() const { return impl_->config; }
const Model& Translator::model() const { return *impl_->model; }
void Translator::EnableProfile(bool on) { impl_->prof.enabled = on; }
const Profile& Translator::profile() const { return impl_->prof.profile; }
void Translator::ResetProfile() { impl_->prof.profile = Profile(); }

}  // namespace tern
