// libFuzzer target: any bytes as a .tern file, loaded with a small memory budget; when the verifier
// accepts it, a Translator with small limits is created and translates a sentence and a list of ids.
// This reaches what the loader fuzzer cannot: the tokenizer blobs given to SentencePiece, the packed
// weights, the arena plan from header fields, the search. Never a crash; every failure has a message.
// Seeds: the tiny test models (scripts/fuzz.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tern/translator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tern::LoadOptions o;
  o.memory_budget_bytes = 256u << 20;
  auto m = tern::Model::FromBytes(data, size, "fuzz.tern", o);
  if (!m.ok()) {
    if (m.status().message().empty()) __builtin_trap();
    return 0;
  }
  tern::TranslatorConfig c;
  c.threads = 1;
  c.max_batch = 2;
  c.max_beam = 2;
  c.max_source_tokens = std::min<uint32_t>(16, m.value()->hparams().max_positions);
  c.max_target_tokens = std::min<uint32_t>(6, m.value()->hparams().max_positions - 1);
  auto t = tern::Translator::Create(m.value(), c);
  if (!t.ok()) {
    if (t.status().message().empty()) __builtin_trap();
    return 0;
  }
  const std::string_view texts[2] = {"A man in a blue shirt.", "Zwei \xff Kinder"};
  tern::TranslateOptions opt;
  opt.beam_size = size % 2 ? 2 : 1;
  opt.max_length = 6;
  tern::Span<const tern::TranslationResult> r;
  tern::Status s = t.value()->Translate(tern::Span<const std::string_view>(texts, 2), opt, &r);
  if (s.ok()) {
    for (const auto& x : r)
      if (!x.ok() && x.error_message.empty()) __builtin_trap();
  } else if (s.message().empty()) {
    __builtin_trap();
  }
  const uint32_t ids[3] = {static_cast<uint32_t>(size % 7), 1, m.value()->hparams().eos_id};
  tern::Span<const uint32_t> one(ids, 3);
  s = t.value()->TranslateIds(tern::Span<const tern::Span<const uint32_t>>(&one, 1), opt, &r);
  if (!s.ok() && s.message().empty()) __builtin_trap();
  return 0;
}
