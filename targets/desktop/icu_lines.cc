#include "icu_lines.h"

#include <iostream>
#include <string>

#include "tern/icu_message.h"

namespace tern::cli {

size_t TranslateIcuLines(Translator& t, const std::vector<InputLine>& lines, const std::vector<std::string_view>& texts,
                         const TranslateOptions& options, std::ostream& out) {
  std::vector<IcuTranslation> icu;
  const Status st =
      texts.empty() ? Status::Ok() : TranslateIcuMessages(t, Span<const std::string_view>(texts.data(), texts.size()), options, &icu);
  size_t k = 0, failed = 0;
  for (const InputLine& l : lines) {
    std::string error = l.parse_error;
    const IcuTranslation* r = nullptr;
    if (error.empty()) {
      if (!st.ok()) error = st.message();
      else if (!icu[k].ok()) error = icu[k].error_message;
      else r = &icu[k];
      ++k;
    }
    if (!r) {
      std::cerr << "tern: line " << l.number << ": " << error << "\n";
      ++failed;
      out << "\n";
    } else {
      out << r->text << "\n";
    }
  }
  return failed;
}

}  // namespace tern::cli
