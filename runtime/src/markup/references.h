// HTML character references (&amp; &#233; &#xE9; and the named ones in references.cc's table).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tern::markup {

/// The character reference at line[i] (a '&'): writes its UTF-8 to *decoded and returns its length in
/// bytes, or 0 when line[i] does not start one (an unknown name, no ';' within 40 bytes, a code point that
/// is 0, a surrogate or above U+10FFFF).
size_t ReadReference(std::string_view line, size_t i, std::string* decoded);

}  // namespace tern::markup
