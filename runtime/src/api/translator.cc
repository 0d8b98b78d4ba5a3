// The public session API: Translator::Create, Translate, TranslateIds and accessors, over the session
// (session/session.h). The busy flag is taken here, before anything of the session is touched.
#include <string>

#include "tern/call_chunks.h"

#include "base/busy_guard.h"
#include "base/results_echo.h"
#include "base/options_echo.h"
#include "session/session.h"

namespace tern {
namespace {

std::string Lifetime(Phase first, Phase last) {
  return first == last ? PhaseName(first) : std::string(PhaseName(first)) + ".." + PhaseName(last);
}

// Every option's range first (the field table's rule, CheckOptionRanges), then the per-input fields against the
// inputs (the table's per_input column, CallChunks::CheckInputCounts): each call names a bad value the same way.
Status CheckCall(const TranslateOptions& o, size_t n) {
  TERN_RETURN_IF_ERROR(CheckOptionRanges(o));
  return CallChunks::CheckInputCounts(o, n);
}

// A call's status, its results echoed first (TERN_ECHO_RESULTS, base/results_echo.h) when it has them.
Status Echoed(const char* entry, const Status& s, const Span<const TranslationResult>* results) {
  if (HasResults(s) && results) EchoResults(entry, *results);
  return s;
}

Status BusyError() {
  return Status(StatusCode::kBusy, "Translator: busy with another call (in another thread, or this is one of its own callbacks): use one Translator per thread");
}

// Every entry point: clear *results, echo the options, hold the session (a callback may destroy the Translator: the
// call ends first), take the busy flag, check the options (their ranges; the per-input fields against the inputs),
// run the request as a Call on this stack (session/call.h: gone when the call ends), echo the results. A
// continuous call has no inputs up front (its per-input fields are refused, session/continuous_call.h) and hands
// its results to its source one by one (the engine echoes what it completes).
Status Enter(const std::shared_ptr<Translator::Impl>& impl, const CallRequest& request,
             Span<const TranslationResult>* results) {
  if (results) *results = {};  // an error leaves none (kCancelled: what the call translated)
  EchoCall(request.name, *request.options);
  const std::shared_ptr<Translator::Impl> keep = impl;
  BusyGuard busy(keep->busy);
  if (!busy.acquired()) return BusyError();
  TERN_RETURN_IF_ERROR(request.kind == CallRequest::Kind::kContinuous ? CheckOptionRanges(*request.options)
                                                                      : CheckCall(*request.options, request.size()));
  Call call;
  call.request = request;
  const Status st = keep->Run(call);
  if (results) *results = call.results;
  return Echoed(request.name, st, results);
}

}  // namespace

Result<size_t> Translator::RequiredArenaBytes(const Model& model, const TranslatorConfig& config) {
  SessionBuffers buf;
  ArenaPlan plan;
  TERN_RETURN_IF_ERROR(PlanFor(model, config, &buf, &plan).status());
  return plan.total_bytes();
}

Result<std::vector<ArenaBufferInfo>> Translator::DescribeArena(const Model& model, const TranslatorConfig& config) {
  SessionBuffers buf;
  ArenaPlan plan;
  TERN_RETURN_IF_ERROR(PlanFor(model, config, &buf, &plan).status());
  std::vector<ArenaBufferInfo> out;
  for (const PlannedBuffer& b : plan.Describe())  // the plan fits size_t (PlanArena)
    out.push_back({b.name, static_cast<size_t>(b.bytes), static_cast<size_t>(b.offset), Lifetime(b.first, b.last)});
  return out;
}

Result<std::unique_ptr<Translator>> Translator::Create(std::shared_ptr<const Model> model, const TranslatorConfig& config) {
  if (!model) return Status(StatusCode::kInvalidArgument, "Translator: no model");
  TERN_RETURN_IF_ERROR(InitXnnpack());
  auto impl = std::make_shared<Impl>();
  TERN_RETURN_IF_ERROR(impl->Init(std::move(model), config));
  return std::unique_ptr<Translator>(new Translator(std::move(impl)));
}

Translator::Translator(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Translator::~Translator() = default;

Status Translator::TranslateIds(Span<const Span<const uint32_t>> sources, const TranslateOptions& options,
                                Span<const TranslationResult>* results) {
  CallRequest r;
  r.kind = CallRequest::Kind::kTranslateIds;
  r.name = "translate_ids";
  r.ids = sources;
  r.options = &options;
  return Enter(impl_, r, results);
}

Status Translator::TranslateContinuous(SentenceSource& source, const TranslateOptions& options) {
  CallRequest r;
  r.kind = CallRequest::Kind::kContinuous;
  r.name = "continuous";
  r.source = &source;
  r.options = &options;
  return Enter(impl_, r, nullptr);
}

Status Translator::Translate(Span<const std::string_view> texts, const TranslateOptions& options,
                             Span<const TranslationResult>* results) {
  CallRequest r;
  r.kind = CallRequest::Kind::kTranslate;
  r.name = "translate";
  r.texts = texts;
  r.options = &options;
  return Enter(impl_, r, results);
}

Status Translator::Score(Span<const std::string_view> sources, Span<const std::string_view> targets,
                         const TranslateOptions& options, Span<const TranslationResult>* results) {
  CallRequest r;
  r.kind = CallRequest::Kind::kScore;
  r.name = "score";
  r.texts = sources;
  r.target_texts = targets;
  r.options = &options;
  return Enter(impl_, r, results);
}

Status Translator::ScoreIds(Span<const Span<const uint32_t>> sources, Span<const Span<const uint32_t>> targets,
                            const TranslateOptions& options, Span<const TranslationResult>* results) {
  CallRequest r;
  r.kind = CallRequest::Kind::kScoreIds;
  r.name = "score_ids";
  r.ids = sources;
  r.target_ids = targets;
  r.options = &options;
  return Enter(impl_, r, results);
}

Status Translator::CheckOptions(const TranslateOptions& options) const {
  EchoCall("check", options);
  return impl_->CheckOptions(options);
}

bool Translator::splits_sentences() const { return SentenceSplitter::Available(); }

Translator::Impl& ImplOf(Translator& t) { return *t.impl_; }

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
