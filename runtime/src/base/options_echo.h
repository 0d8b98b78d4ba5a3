// The fields test's window into a call (tests/test_fields.cc and each binding's fields test): with
// TERN_ECHO_OPTIONS=FILE in the environment, each call that reaches the library appends one line to FILE,
// "ENTRY name=value name=value ...", every option of the field table as the call received it (ENTRY:
// translate, translate_ids, score, score_ids, continuous, check (Translator::CheckOptions), submit). FILE must be a regular file or not exist
// (it is created); anything else is left alone. Without the variable nothing is done (one getenv per call).
#pragma once

#include <string>

#include "tern/options.h"

namespace tern {

/// Every option's value (runtime/fields: name=value, space-separated).
std::string EchoOptions(const TranslateOptions& o);

/// Appends "entry EchoOptions(o)" to $TERN_ECHO_OPTIONS, if set (errors ignored: it is a test's window).
void EchoCall(const char* entry, const TranslateOptions& o);

/// Appends `text` in one write to the file $`variable` names, if it is set and names a regular file or nothing
/// (created); anything else is left alone. The fields tests' echo files (this and base/results_echo.h).
void AppendToEchoFile(const char* variable, const std::string& text);

}  // namespace tern
