// The per-token track: everything the search knows about each generated token of each hypothesis, as one
// structure with channels. Each channel is a plane of 4-byte values, one row per hypothesis slot and one
// entry per generated position ([rows, max_target_tokens]); rows of all channels move together: when beams
// reorder, when a hypothesis finishes, when results are written. The channels are listed once, in
// TERN_TRACK_CHANNELS below: adding one there gives it planes in the running beams, the finished
// hypotheses and the results, copied by the same code (search/README.md has the recipe; the producer of
// its value and its public exposure are the rest). A test adds a toy channel to a list of its own and runs
// the same templates (tests/test_track.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memory/arena.h"

namespace tern {

/// The channels: (element type, name, what it holds).
#define TERN_TRACK_CHANNELS(X)                                                                                   \
  X(uint32_t, token)    /* the generated id */                                                                   \
  X(uint32_t, kv_slot)  /* the KV-cache slot that holds this position (beams reorder rows, never K/V) */       \
  X(float, logprob)     /* log-probability of the token after the logits processors (0 when not asked) */   \
  X(int32_t, source)    /* the source token the token aligns to (cross-attention; -1 when not asked) */  \
  X(uint32_t, constraint) /* constraint state after the token (search/constraints.h; 0 without constraints) */

#define TERN_TRACK_PLANE_FIELD(T, name) ArenaArray<T> name;
#define TERN_TRACK_PLANE_PAIR(T, name) f(a.name.data(), b.name.data());
#define TERN_TRACK_PLANE_DECLARE(T, name) plan->Add(&p->name, names[i++], count, first, last);
#define TERN_TRACK_PLANE_COUNT(T, name) +1

/// Declares a planes struct `Name` over the channel list `CHANNELS`: a field per channel (ArenaArray<T>),
///  - kChannels: how many there are;
///  - Pairs(a, b, f): f(a.ch.data(), b.ch.data()) for every channel ch (f: a generic lambda over T*);
///  - Declare(p, plan, names, count, first, last): plans every plane as `count` entries, channel k named
///    names[k] (string literals: ArenaPlan keeps the pointers; TERN_TRACK_NAMES makes such a table).
#define TERN_DEFINE_TRACK_PLANES(Name, CHANNELS)                                                                \
  struct Name {                                                                                                  \
    CHANNELS(TERN_TRACK_PLANE_FIELD)                                                                             \
    static constexpr size_t kChannels = 0 CHANNELS(TERN_TRACK_PLANE_COUNT);                                      \
    template <typename A, typename B, typename F>                                                                \
    static void Pairs(A& a, B& b, F&& f) {                                                                       \
      CHANNELS(TERN_TRACK_PLANE_PAIR)                                                                            \
    }                                                                                                            \
    static void Declare(Name* p, ArenaPlan* plan, const char* const* names, uint64_t count, Phase first,       \
                        Phase last) {                                                                            \
      size_t i = 0;                                                                                              \
      CHANNELS(TERN_TRACK_PLANE_DECLARE)                                                                         \
    }                                                                                                            \
  };

/// The channel names of a list, for a table of plane names: `#define N(T, name) "search.track." #name,`
/// then `{TERN_TRACK_CHANNELS(N)}`.

TERN_DEFINE_TRACK_PLANES(TrackPlanes, TERN_TRACK_CHANNELS)

/// Copies entries [0, n) of row `from_row` of `from` into row `to_row` of `to`, every channel; rows are
/// `stride` entries apart (max_target_tokens).
template <typename Planes>
void CopyTrackRow(const Planes& to, size_t to_row, const Planes& from, size_t from_row, size_t n, size_t stride) {
  Planes::Pairs(to, from, [&](auto* dst, const auto* src) {
    std::memcpy(dst + to_row * stride, src + from_row * stride, n * sizeof(*dst));
  });
}


}  // namespace tern
