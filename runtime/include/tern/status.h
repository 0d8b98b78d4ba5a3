// Status and Result<T>: how every tern function reports failure. The library never aborts or exits on
// bad input; it returns a Status whose message says what was wrong and where (file, tensor name,
// byte offset, line).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "tern/export.h"

namespace tern {

/// Error categories. Values are stable: the C API (tern.h, tern_status) uses the same numbers.
enum class StatusCode : int {
  kOk = 0,                ///< success
  kInvalidArgument = 1,   ///< a caller-supplied value is out of range (limits, options, input text)
  kNotFound = 2,          ///< a file or a tensor that must exist does not
  kIoError = 3,           ///< open/read/write/mmap/rename failed
  kInvalidModel = 4,      ///< a .tern file or checkpoint failed a check (size, identifier, verifier, shapes)
  kUnsupported = 5,       ///< a newer format version, an unknown activation, a config key tern cannot honour
  kResourceExhausted = 6, ///< the input does not fit the arena limits, or memory could not be obtained
  kInternal = 7,          ///< an XNNPACK or pthreadpool call failed
  kBusy = 8,              ///< the Translator is running another call (another thread's, or this is its own callback)
  kCancelled = 9,         ///< the caller's token or abort callback stopped the call
};

/// Outcome of an operation: ok, or a code with a one-line message. Ignoring a returned Status is a
/// compile-time warning ([[nodiscard]]).
class [[nodiscard]] Status {
 public:
  Status() = default;
  /// An error (or kOk) with its message.
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  /// Success.
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }  ///< success
  StatusCode code() const { return code_; }             ///< what kind of error
  /// One line, e.g. "model.tern: tensor 'decoder.layers.0.fc1.weight': shape [512, 256], expected [1024, 256]".
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// Name of a status code ("invalid argument", ...).
TERN_API const char* StatusCodeName(StatusCode code);

namespace internal {
/// Called by Result<T>::value() on an error: a programming error (the caller did not check ok()). Prints
/// "tern: Result::value() called on an error: <message>" to stderr and aborts; never returns.
[[noreturn]] TERN_API void ValueOfError(const Status& status);
}  // namespace internal

/// A value or the Status saying why there is none. Check ok() before value(): value() on an error is a
/// defined, loud failure (internal::ValueOfError), never undefined behaviour.
template <typename T>
class [[nodiscard]] Result {
 public:
  /// A value (implicit by design).
  Result(T value) : value_(std::move(value)) {}  // NOLINT
  /// An error (an ok Status here is itself an error: kInternal).
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "Result constructed from an ok Status without a value");
  }
  bool ok() const { return value_.has_value(); }                              ///< a value is held
  const Status& status() const { return status_; }                            ///< why there is none (ok when there is)
  T& value() & { return Checked(); }                                          ///< the value; aborts on an error
  const T& value() const& { return const_cast<Result*>(this)->Checked(); }    ///< the value; aborts on an error
  T&& value() && { return std::move(Checked()); }                             ///< the value; aborts on an error
  T* operator->() { return &Checked(); }                                      ///< the value's members
  const T* operator->() const { return &const_cast<Result*>(this)->Checked(); }  ///< the value's members
  T& operator*() { return Checked(); }                                        ///< the value

 private:
  T& Checked() {
    if (!value_) internal::ValueOfError(status_);
    return *value_;
  }
  Status status_;
  std::optional<T> value_;
};

#define TERN_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::tern::Status _tern_st = (expr);         \
    if (!_tern_st.ok()) return _tern_st;      \
  } while (0)

#define TERN_STATUS_CONCAT_INNER(a, b) a##b
#define TERN_STATUS_CONCAT(a, b) TERN_STATUS_CONCAT_INNER(a, b)
/// Evaluates `expr` (a Result<T>): on error returns its Status from the enclosing function, else moves the
/// value into `lhs` (an existing variable, or a declaration such as `auto x`).
#define TERN_ASSIGN_OR_RETURN(lhs, expr) TERN_ASSIGN_OR_RETURN_IMPL(TERN_STATUS_CONCAT(_tern_result_, __LINE__), lhs, expr)
#define TERN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

}  // namespace tern
