// TranslateOptions::replace_unknowns (CTranslate2's replace_unknowns, sequence_to_sequence.cc's
// replace_unknown_tokens): in a hypothesis' text, each generated unknown token's bytes become the bytes of the
// source token it aligns to (token_sources; the decoder's alignment leaves the source `</s>` out, as
// CTranslate2's attention does). Built in the decoder's scratch (text_bytes x 4 bytes, free once Decode
// returned), copied back; the token spans move with the text. No heap allocation.
#include <algorithm>
#include <cstring>

#include "session/session.h"

namespace tern {

void ReplaceUnknowns(Translator::Impl& t, size_t i, std::string_view input) {
  const ResultBuffers& out = t.buf.results;
  const TranslationResult& r = out.results[i];
  const uint32_t unk = t.model->hparams().unk_id;
  char* scratch = reinterpret_cast<char*>(out.decode_scratch.data());
  const size_t room = t.dims.text_bytes - 1;  // the text slot, its NUL kept
  for (size_t k = 0; k < r.hypotheses.size(); ++k) {
    Hypothesis& h = const_cast<Hypothesis&>(r.hypotheses[k]);
    bool any = false;
    for (size_t p = 0; p < h.tokens.size() && !any; ++p)
      any = h.tokens[p] == unk && h.token_sources[p] >= 0 && static_cast<size_t>(h.token_sources[p]) < r.source_spans.size();
    if (!any || h.token_spans.size() != h.tokens.size()) continue;
    auto* spans = const_cast<TextSpan*>(h.token_spans.data());
    size_t n = 0, from = 0;  // bytes written to scratch; bytes of h.text consumed
    auto put = [&](const char* s, size_t len) {
      len = std::min(len, room - std::min(room, n));
      std::memcpy(scratch + n, s, len);
      n += len;
    };
    for (size_t p = 0; p < h.tokens.size(); ++p) {
      const TextSpan old = spans[p];
      const int32_t src = h.token_sources[p];
      const bool replace = h.tokens[p] == unk && src >= 0 && static_cast<size_t>(src) < r.source_spans.size();
      put(h.text.data() + from, old.begin - std::min(old.begin, from));  // the text before this token
      const size_t begin = n;
      if (replace) {
        const TextSpan s = r.source_spans[src];
        if (s.end <= input.size() && s.begin <= s.end) put(input.data() + s.begin, s.end - s.begin);
      } else {
        put(h.text.data() + old.begin, old.end - old.begin);
      }
      spans[p] = TextSpan{begin, n};
      from = std::max(from, old.end);
    }
    put(h.text.data() + from, h.text.size() - std::min(h.text.size(), from));
    char* text = const_cast<char*>(h.text.data());
    std::memcpy(text, scratch, n);
    text[n] = '\0';
    h.text = std::string_view(text, n);
  }
}

}  // namespace tern
