// UTF-8 encoding of one code point: the one copy every folder uses (markup's character references, the
// glossary's case folding, the tests' generated text).
#pragma once

#include <cstdint>
#include <string>

namespace tern {

/// Appends code point `cp` (at most U+10FFFF; the caller checks surrogates where it must) as UTF-8 to *out.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace tern
