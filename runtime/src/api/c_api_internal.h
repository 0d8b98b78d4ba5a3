// The C API's objects (tern.h's opaque types) and the helpers its entry points share. Internal to api/.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tern/glossary.h"
#include "tern/logits_processor.h"
#include "tern/model.h"
#include "tern/owned_result.h"
#include "tern/tern.h"
#include "tern/translator.h"

struct tern_model {
  std::shared_ptr<const tern::Model> model;
  std::vector<std::string> languages;  // NUL-terminated copies of Model::language_tokens()
};

struct tern_glossary {
  std::shared_ptr<const tern::Glossary> glossary;
};

struct tern_translator {
  std::shared_ptr<const tern::Model> model;
  std::unique_ptr<tern::Translator> translator;
  std::atomic<bool> busy{false};                      // a call is running (BusyGuard)
  std::atomic<std::thread::id> call_thread{};         // the thread running the call (its callbacks run there)
  std::atomic<bool> free_requested{false};            // tern_translator_free from a callback: freed when the call ends
  // Per-call scratch, touched only while `busy` is held; grown to the largest n seen (at most
  // Translator::max_batch(), which the memory budget bounds), then reused.
  std::vector<std::string_view> texts;
  std::vector<tern::Span<const uint32_t>> id_spans;
  std::vector<std::string_view> prefix_texts;             // target prefixes / scored targets as text
  std::vector<tern::Span<const uint32_t>> prefix_spans;   //   and as ids
};

// What one call returned, copied out of the Translator's arena (tern.h: tern_results): one owned record per
// input (tern/owned_result.h, the engine's results too), which the accessors read.
struct tern_results {
  std::vector<tern::OwnedResult> sentences;  // [count] live; entries and their memory kept from call to call
  size_t count = 0;
};

namespace tern::c_api {

inline void SetError(tern_error* err, tern_status_code code, const std::string& msg) {
  if (!err) return;
  err->code = code;
  const size_t n = std::min(msg.size(), sizeof(err->message) - 1);
  std::memcpy(err->message, msg.data(), n);
  err->message[n] = 0;
}

inline tern_status_code Fail(tern_error* err, const Status& s) {
  SetError(err, static_cast<tern_status_code>(s.code()), s.message());
  return static_cast<tern_status_code>(s.code());
}

// Runs f, turning any exception into TERN_INTERNAL and `on_error`: nothing crosses into C.
template <typename F, typename R>
R Guarded(tern_error* err, R on_error, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    SetError(err, TERN_INTERNAL, e.what());
  } catch (...) {
    SetError(err, TERN_INTERNAL, "unknown exception");
  }
  return on_error;
}

/// The C callbacks of one call behind the C++ ones: on the caller's stack, no allocation (c_options.cc).
/// A caller's params struct over `*out` (the defaults): its first `in->struct_size` bytes, so that fields added
/// after the caller's release keep their defaults. False (nothing copied) when struct_size is below `first`
/// (sizeof the struct in the first release that had struct_size: every field it needs is known).
template <typename T>
bool ReadParams(const T* in, size_t first, T* out) {
  if (in->struct_size < first) return false;
  std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), std::min(in->struct_size, sizeof(T)));
  out->struct_size = sizeof(T);
  return true;
}

/// TranslatorConfig of C params (max_n_best 0 means 1).
TranslatorConfig ConfigOf(const tern_translator_params& p);

/// "<fn>: params->struct_size N (use <defaults>())" (`field` names a nested struct's size instead).
std::string StructSizeError(const char* fn, size_t size, const char* defaults, const char* field = "params->struct_size");

class CallOptions {
 public:
  /// TranslateOptions for `params` (NULL: the defaults) of a call of `n_inputs` inputs: 0 in a count, NAN in a
  /// float, -1 for early_stopping mean the file's default (an empty optional). The plain fields are converted
  /// by the field table's code (c_options_fields.inc); the per-input ones (target prefixes, sampling keys)
  /// are views kept here for n_inputs.
  CallOptions(const tern_translate_params* params, size_t n_inputs);
  const TranslateOptions& options() const { return options_; }
  /// A call in chunks (tern/call_chunks.h): the first input of the running chunk, added to the input index
  /// the token and logits callbacks report, so that they name inputs of the whole call.
  void set_input_offset(size_t offset) { offset_ = offset; logits_.offset = offset; }
  /// A value of `params` no TranslateOptions field can hold (an int setting below -1): kInvalidArgument
  /// naming it, before the call runs; Ok otherwise.
  const Status& status() const { return status_; }

 private:
  class LogitsAdapter : public LogitsProcessor {
   public:
    tern_logits_callback fn = nullptr;
    void* user_data = nullptr;
    size_t offset = 0;  // set_input_offset
    void Process(LogitsRow& row) override;
  };
  TranslateOptions options_;
  Status status_ = Status::Ok();
  tern_token_callback token_ = nullptr;
  void* token_data_ = nullptr;
  size_t offset_ = 0;  // set_input_offset
  tern_abort_callback abort_ = nullptr;
  void* abort_data_ = nullptr;
  LogitsAdapter logits_;
  LogitsProcessor* logits_list_[1] = {&logits_};
  std::vector<Span<const uint32_t>> suppress_;  // views of params.suppress_sequences
  std::vector<KeepSpan> keep_;                  // params.keep_spans
  std::vector<std::string_view> prefix_texts_;  // params.target_prefix, one per input
  std::vector<Span<const uint32_t>> prefix_ids_;  // params.target_prefix_ids
  void Refuse(const char* field, int value, const char* allowed);  // sets status_ (the first refusal)
  /// Every pointer/count pair of `p` agrees: no NULL array with a count or a length (kInvalidArgument naming it).
  static Status CheckArrays(const tern_translate_params& p, size_t n_inputs);
  void ReadPlain(const tern_translate_params& p);  // the table's fields (c_options_fields.inc)
  static bool Token(const TokenEvent& e, void* self);
  static bool Abort(void* self);
};

/// Copies a call's results (views into the Translator's arena) into the caller's set at sentences [at, at +
/// in.size()) (a chunk of a bigger call; c_results.cc); the set's count becomes at + in.size().
void CopyResults(Span<const TranslationResult> in, tern_results* out, size_t at = 0);

/// Sentences [done, n) of the set as cancelled ("cancelled by the caller": chunks a cancellation left out);
/// the set's count becomes n (nothing changes when done >= n).
void CancelledResults(size_t done, size_t n, tern_results* out);

/// One call holding a tern_translator: its busy flag taken (acquired() says whether), the calling thread
/// recorded (tern_translator_free from that call's callbacks then only asks, and the call frees it when it
/// ends: Finish). Everything released on destruction.
class TranslatorCall {
 public:
  explicit TranslatorCall(tern_translator* t) : t_(t), acquired_(!t->busy.exchange(true, std::memory_order_acquire)) {
    if (acquired_) t_->call_thread.store(std::this_thread::get_id());
  }
  ~TranslatorCall() {
    if (!acquired_) return;
    t_->call_thread.store(std::thread::id());
    t_->busy.store(false, std::memory_order_release);
  }
  TranslatorCall(const TranslatorCall&) = delete;
  TranslatorCall& operator=(const TranslatorCall&) = delete;
  bool acquired() const { return acquired_; }

 private:
  tern_translator* t_;
  bool acquired_;
};

/// After the TranslatorCall of a call that acquired `t` is gone: frees `t` if one of its callbacks asked.
inline void FinishCall(tern_translator* t, bool acquired) {
  if (acquired && t->free_requested.load()) delete t;
}

}  // namespace tern::c_api
