#include "tern/status.h"
#include "tern/version.h"

#include <cstdio>
#include <cstdlib>

namespace tern {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kInvalidModel: return "invalid model";
    case StatusCode::kUnsupported: return "unsupported";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kBusy: return "busy";
    case StatusCode::kCancelled: return "cancelled";
  }
  return "unknown";
}

namespace internal {

void ValueOfError(const Status& status) {
  std::fprintf(stderr, "tern: Result::value() called on an error: %s\n", status.message().c_str());
  std::abort();
}

}  // namespace internal
const char* Version() { return TERN_VERSION_STRING; }

}  // namespace tern
