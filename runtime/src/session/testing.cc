// testing::TeacherForced: the encoder and the decoder teacher-forced, through the same StepDecoder seam
// as the search.
#include <cstring>

#include "nn/encoder.h"
#include "session/session.h"
#include "session/testing.h"

namespace tern {

Translator::Impl& ImplOf(Translator& t);

namespace testing {

Status TeacherForced(Translator& tr, Span<const uint32_t> src, Span<const uint32_t> tgt_in, float* encoder_out, float* logits) {
  Translator::Impl& t = ImplOf(tr);
  const BatchBuffers& in = t.buf.batch;
  const SearchBuffers& s = t.buf.search;
  if (src.size() == 0 || src.size() > t.dims.src || tgt_in.size() == 0 || tgt_in.size() > t.dims.tgt)
    return Status(StatusCode::kInvalidArgument, "TeacherForced: lengths outside the limits");
  std::memcpy(in.src_ids, src.data(), src.size() * sizeof(uint32_t));
  in.src_off[0] = 0;
  in.src_len[0] = static_cast<uint32_t>(src.size());
  TERN_RETURN_IF_ERROR(Encode(*t.net, *t.model, 1, in.src_ids, SourceRanges{in.src_off, in.src_len}, t.buf.enc, t.buf.dec,
                              t.dims.src_rows, t.prof));
  std::memcpy(encoder_out, t.buf.enc.x.data(), src.size() * t.dims.d * sizeof(float));
  s.active[0] = 0;
  s.active_sentence[0] = 0;
  const VocabMap all = IdentityMap(t.dims.vocab, t.processors.mask());
  for (size_t pos = 0; pos < tgt_in.size(); ++pos) {
    s.track.kv_slot[pos] = 0;  // slot 0 holds every position
    StepRequest req;
    req.pos = pos;
    req.n = 1;
    req.slots = s.active;
    req.sentences = s.active_sentence;
    req.tokens = tgt_in.data() + pos;
    req.ancestry = s.track.kv_slot;
    req.columns = &all;
    TERN_ASSIGN_OR_RETURN(const StepOutput step, t.Decode(req));
    std::memcpy(logits + pos * t.dims.vocab, step.logits, t.dims.vocab * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace testing
}  // namespace tern
