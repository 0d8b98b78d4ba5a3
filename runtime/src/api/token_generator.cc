#include "tern/token_generator.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace tern {

struct TokenGenerator::State {
  std::mutex mu;
  std::condition_variable cv;
  bool has_step = false, finished = false, stop = false;
  Step step;      // the step handed over (its text's capacity reserved: no allocation on the search's thread)
  Status status;  // how the call ended (once finished)
  std::thread thread;

  static bool OnToken(const TokenEvent& e, void* self) {
    auto* s = static_cast<State*>(self);
    std::unique_lock<std::mutex> lock(s->mu);
    s->cv.wait(lock, [s] { return !s->has_step || s->stop; });
    if (s->stop) return false;
    s->step.token = e.token, s->step.logprob = e.logprob, s->step.last = e.last;
    s->step.text.assign(e.text.data(), e.text.size());
    s->has_step = true;
    s->cv.notify_all();
    return true;
  }
  static bool Abort(void* self) {
    auto* s = static_cast<State*>(self);
    std::lock_guard<std::mutex> lock(s->mu);
    return s->stop;
  }
  // Runs `call` (which translates one input with `o`) on the thread; its status, or the input's error, ends it.
  template <typename Call>
  void Start(TranslateOptions o, Call call) {
    step.text.reserve(1024);
    if (o.on_token || o.abort || o.n_best != 1) {
      status = Status(StatusCode::kInvalidArgument, "TokenGenerator: options must have no on_token or abort and n_best 1");
      finished = true;
      return;
    }
    o.split_sentences = false;
    o.on_token = &State::OnToken, o.on_token_user_data = this;
    o.abort = &State::Abort, o.abort_user_data = this;
    thread = std::thread([this, o, call]() mutable {
      Span<const TranslationResult> r;
      Status st = call(o, &r);
      if (st.ok() && r.size() == 1 && !r[0].ok()) st = Status(r[0].error, std::string(r[0].error_message));
      std::lock_guard<std::mutex> lock(mu);
      status = st;
      finished = true;
      cv.notify_all();
    });
  }
};

TokenGenerator::TokenGenerator(Translator& t, std::string text, const TranslateOptions& options) : s_(new State) {
  s_->Start(options, [&t, text = std::move(text)](const TranslateOptions& o, Span<const TranslationResult>* r) {
    const std::string_view in[] = {text};
    return t.Translate(Span<const std::string_view>(in, 1), o, r);
  });
}

TokenGenerator::TokenGenerator(Translator& t, std::vector<uint32_t> ids, const TranslateOptions& options) : s_(new State) {
  s_->Start(options, [&t, ids = std::move(ids)](const TranslateOptions& o, Span<const TranslationResult>* r) {
    const Span<const uint32_t> in[] = {Span<const uint32_t>(ids.data(), ids.size())};
    return t.TranslateIds(Span<const Span<const uint32_t>>(in, 1), o, r);
  });
}

TokenGenerator::~TokenGenerator() {
  {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->stop = true;
    s_->cv.notify_all();
  }
  if (s_->thread.joinable()) s_->thread.join();
}

bool TokenGenerator::Next(Step* step) {
  std::unique_lock<std::mutex> lock(s_->mu);
  s_->cv.wait(lock, [this] { return s_->has_step || s_->finished; });
  if (!s_->has_step) return false;
  step->token = s_->step.token, step->logprob = s_->step.logprob, step->last = s_->step.last;
  step->text = s_->step.text;
  s_->has_step = false;
  s_->cv.notify_all();
  return true;
}

Status TokenGenerator::status() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->finished ? s_->status : Status::Ok();
}

}  // namespace tern
