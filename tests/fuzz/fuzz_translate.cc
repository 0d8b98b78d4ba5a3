// libFuzzer target: arbitrary bytes as input text (split into up to 4 sentences at '\n') through a
// Translator on a tiny int8 model (a third of the inputs with keep_placeholders; a fifth, from 2026-11-29,
// as ICU MessageFormat / Fluent messages through TranslateIcuMessages, half of those with xml markup). Every
// sentence or message gets a result or its own error; never a crash.
// The model path comes from $TERN_FUZZ_MODEL (default: the test fixture's post-swish.int8.tern).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "tern/icu_message.h"
#include "tern/translator.h"

namespace {

tern::Translator* Get() {
  static std::unique_ptr<tern::Translator> t = [] {
    const char* env = std::getenv("TERN_FUZZ_MODEL");
    auto m = tern::Model::Load(env ? env : TERN_FUZZ_MODEL);
    if (!m.ok()) __builtin_trap();
    tern::TranslatorConfig c;
    c.threads = 1;
    c.max_batch = 4;
    c.max_beam = 2;
    c.max_source_tokens = 24;
    c.max_target_tokens = 8;
    auto tr = tern::Translator::Create(m.value(), c);
    if (!tr.ok()) __builtin_trap();
    return std::move(tr.value());
  }();
  return t.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string_view parts[4];
  size_t n = 0;
  while (n < 4) {
    const size_t nl = all.find('\n');
    parts[n++] = all.substr(0, nl);
    if (nl == std::string_view::npos) break;
    all.remove_prefix(nl + 1);
  }
  tern::TranslateOptions o;
  o.beam_size = size % 2 ? 2 : 1;
  if (size % 5 == 1) {  // the message parsers (markup/icu_message.h: ICU's and Fluent's), the rebuild
    o.markup = size % 10 == 1 ? tern::Markup::kXml : tern::Markup::kNone;
    std::vector<tern::IcuTranslation> out;
    if (!tern::TranslateIcuMessages(*Get(), tern::Span<const std::string_view>(parts, n), o, &out).ok() || out.size() != n)
      __builtin_trap();
    for (const auto& m : out)
      if (!m.ok() && m.error_message.empty()) __builtin_trap();
    return 0;
  }
  o.keep_placeholders = size % 3 == 0;  // the placeholder parsers (markup/placeholder_syntax.h) on every input
  tern::Span<const tern::TranslationResult> r;
  tern::Status s = Get()->Translate(tern::Span<const std::string_view>(parts, n), o, &r);
  if (!s.ok() || r.size() != n) __builtin_trap();
  for (const auto& x : r) {
    if (x.ok() && x.hypotheses.empty()) __builtin_trap();
    if (!x.ok() && x.error_message.empty()) __builtin_trap();
  }
  return 0;
}
