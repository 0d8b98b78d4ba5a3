// Status and Result<T>: how every tern function reports failure. The library never aborts or exits on
// bad input; it returns a Status whose message says what was wrong and where (file, tensor name,
// byte offset, line).
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace tern {

/// Error categories. Values are stable: the C API (tern.h, tern_status) uses the same numbers.
enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,   // a caller-supplied value is out of range (limits, options, input text)
  kNotFound = 2,          // a file or a tensor that must exist does not
  kIoError = 3,           // open/read/write/mmap/rename failed
  kInvalidModel = 4,      // a .tern file or checkpoint failed a check (size, identifier, verifier, shapes)
  kUnsupported = 5,       // a newer format version, an unknown activation, a config key tern cannot honour
  kResourceExhausted = 6, // the input does not fit the arena limits, or memory could not be obtained
  kInternal = 7,          // an XNNPACK or pthreadpool call failed
};

/// Outcome of an operation: ok, or a code with a one-line message.
class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  /// One line, e.g. "model.tern: tensor 'decoder.layers.0.fc1.weight': shape [512, 256], expected [1024, 256]".
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

/// Name of a status code ("invalid argument", ...).
const char* StatusCodeName(StatusCode code);

/// A value or the Status saying why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define TERN_RETURN_IF_ERROR(expr)            \
  do {                                        \
    ::tern::Status _tern_st = (expr);         \
    if (!_tern_st.ok()) return _tern_st;      \
  } while (0)

}  // namespace tern
