// The result side of the fields test's window (tests/test_fields.cc and each binding's fields test): with
// TERN_ECHO_RESULTS=FILE in the environment, the results of each call that leaves the library are appended to
// FILE as the library made them, every field of the result table (runtime/fields/fields.py RESULTS), so that
// a binding's test can write what it received in the same format and compare. FILE must be a regular file or
// not exist (it is created); without the variable nothing is done (one getenv per call).
//
// Format, one block per call (ENTRY: translate, translate_ids, score, score_ids; complete for an engine
// request, however it ran):
//   results ENTRY n=N
//   r i=I ok=0|1 [result fields]                       one line per input; its fields only when ok=1
//   h i=I k=K [hypothesis fields]                       one line per hypothesis, best first
// each field as " name=value": text as the hex of its UTF-8 bytes; a float (and each float of an array) as
// the 8 hex digits of its IEEE-754 bits; integers in decimal, comma-separated; spans as begin:end in bytes,
// comma-separated; an empty array as nothing after '='.
#pragma once

#include <string>
#include <vector>

#include "tern/owned_result.h"
#include "tern/translator.h"

namespace tern {

/// The block for `results` (the format above).
std::string EchoResultsText(const char* entry, Span<const TranslationResult> results);

/// Appends EchoResultsText to $TERN_ECHO_RESULTS, if set (errors ignored: it is a test's window).
void EchoResults(const char* entry, Span<const TranslationResult> results);
void EchoResults(const char* entry, const std::vector<OwnedResult>& results);

}  // namespace tern
