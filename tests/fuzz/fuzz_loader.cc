// libFuzzer target: any bytes -> tern::Model or an error, never a crash (FlatBuffers verifier first,
// then the semantic checks). Seeds: the tiny test models.
#include <cstddef>
#include <cstdint>

#include "model/model_impl.h"
#include "tern/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto m = tern::Model::FromBytes(data, size, "fuzz.tern");
  if (m.ok()) {
    // Touch what a Translator would read.
    size_t sum = 0;
    for (const tern::TensorView& t : m.value()->impl().tensors()) sum += t.bytes + (t.data ? static_cast<const uint8_t*>(t.data)[0] : 0);
    (void)m.value()->impl().positions(true, m.value()->hparams().max_positions);
    for (std::string_view p : m.value()->target_vocab()) sum += p.size();
    (void)sum;
  } else if (m.status().message().empty()) {
    __builtin_trap();  // every failure must say what was wrong
  }
  return 0;
}
