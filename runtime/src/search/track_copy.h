// Heap copies of a Hypothesis' per-token data, for results that outlive the arena or join several
// sentences: the joined hypotheses of split texts (session/paragraphs) and the C API's result sets. The
// channels a Hypothesis exposes are listed once, in the result table (TERN_RESULT_CHANNELS); the search binds them
// (search.cc: Finish) and these copies follow the same list.
#pragma once

#include <vector>

#include "tern/result_fields.h"  // TERN_RESULT_CHANNELS: (element type, track channel, Hypothesis member)
#include "tern/translator.h"

namespace tern {


struct TrackCopy {
#define TERN_COPY_FIELD(T, ch, member) std::vector<T> member;
  TERN_RESULT_CHANNELS(TERN_COPY_FIELD)
#undef TERN_COPY_FIELD

  /// Replaces the copy with h's per-token data.
  void Assign(const Hypothesis& h) {
#define TERN_COPY_ASSIGN(T, ch, member) member.assign(h.member.begin(), h.member.end());
    TERN_RESULT_CHANNELS(TERN_COPY_ASSIGN)
#undef TERN_COPY_ASSIGN
  }
  /// Appends h's per-token data (the next sentence of a text).
  void Append(const Hypothesis& h) {
#define TERN_COPY_APPEND(T, ch, member) member.insert(member.end(), h.member.begin(), h.member.end());
    TERN_RESULT_CHANNELS(TERN_COPY_APPEND)
#undef TERN_COPY_APPEND
  }
  /// Points h's per-token spans at this copy (valid while it is not changed).
  void Bind(Hypothesis* h) const {
#define TERN_COPY_BIND(T, ch, member) h->member = Span<const T>(member.data(), member.size());
    TERN_RESULT_CHANNELS(TERN_COPY_BIND)
#undef TERN_COPY_BIND
  }
};

}  // namespace tern
