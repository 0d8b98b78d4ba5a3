// Lexically constrained decoding: target token sequences a sentence's translation must contain (a
// glossary's terms, terms/), one per occurrence of their source term. Beam search follows dynamic beam
// allocation (Post & Vilar 2018, "Fast Lexically Constrained Decoding with Dynamic Beam Allocation for
// Neural Machine Translation", NAACL; Hokamp & Liu 2017's grid beam search is what it makes fast):
//  - each hypothesis carries its constraint state in the track (the `constraint` channel: which
//    constraints are met, which one is started and how far), moved with the hypothesis when beams reorder;
//  - a row's scores are constrained (ConstrainRow): a started constraint's next token is forced; </s> is
//    banned while a constraint is unmet; a constraint is started by force when the tokens it still needs
//    would no longer fit before the sentence's cap; once every occurrence of a term is met its first token
//    is banned (a term comes out once per occurrence); right after a term, a piece that would go on its
//    last word is banned (the term stays the word it is);
//  - candidates: the usual top 2 x beam, plus, for each hypothesis, its best next token, its started
//    constraint's next token and
//    the first token of each unmet constraint its alignment has reached (the source token it attends to
//    most is the term's first or later: tern's addition, so that a term is offered where it translates;
//    every unmet one once the tokens left must start to fit); the beam is filled from banks (candidates
//    grouped by how many constraint tokens they have met), one from each bank in turn, best bank first,
//    best candidate first (AllocateBanks); a chosen candidate ending in </s> (every constraint met)
//    finishes by transformers' finished-set rules, the others run on.
// Both searches start a row's constraint by force (ConstrainRow with start_by_alignment) when its
// cross-attention alignment reaches or passes the term's source words, when the model would end the
// sentence, or when it must to fit; it then runs to its end by force. A model that drops a term's clause
// thus gets the term where its alignment passed it, never a sentence that runs on waiting for it. Greedy
// search has no banks (the simpler rule).
// A sentence without constraints is searched exactly as before (nothing here touches it). No allocation.
#pragma once

#include <cstddef>
#include <cstdint>

#include "memory/arena.h"
#include "search/vocab_map.h"

namespace tern {

/// Constraints per sentence (occurrences of glossary terms), and their target tokens in all.
constexpr size_t kMaxConstraints = 16;
constexpr size_t kMaxConstraintTokens = 256;

/// The constraints of a call's sentences (by input index), in the arena.
struct ConstraintBuffers {
  ArenaArray<uint32_t> tokens;     // [batch, kMaxConstraintTokens] target ids of each sentence's constraints
  ArenaArray<uint16_t> off, len;   // [batch, kMaxConstraints] each constraint's tokens: tokens[off .. off + len)
  ArenaArray<uint32_t> src_begin;  // [batch, kMaxConstraints] the source tokens of its term: [src_begin, src_end)
  ArenaArray<uint32_t> src_end;
  ArenaArray<uint8_t> count;       // [batch] constraints of each sentence
  const uint8_t* word_inside = nullptr;  // [target vocab] the piece goes on a word (no U+2581 first): not
                                         // right after a constraint, so a term is never glued to more letters
};

/// One sentence's constraints (a view into ConstraintBuffers).
struct SentenceConstraints {
  const uint32_t* tokens = nullptr;
  const uint16_t* off = nullptr;
  const uint16_t* len = nullptr;
  const uint32_t* src_begin = nullptr;
  const uint32_t* src_end = nullptr;
  const uint8_t* word_inside = nullptr;
  uint32_t n = 0;
  uint32_t Token(uint32_t c, uint32_t p) const { return tokens[off[c] + p]; }
  bool Same(uint32_t a, uint32_t b) const;  // the same token sequence
};

/// SentenceConstraints of input sentence i (n == 0: none).
SentenceConstraints ConstraintsOf(const ConstraintBuffers& buf, size_t i);

/// Constraint state of a hypothesis (4 bytes, the track's `constraint` channel): bits 0-15 the met
/// constraints, bits 16-20 the started one + 1 (0: none), bits 21-30 how many of its tokens are out, bit 31
/// set when the last token completed a constraint.
namespace constraint_state {
inline uint32_t Met(uint32_t s) { return s & 0xffffu; }
inline uint32_t Started(uint32_t s) { return (s >> 16) & 0x1fu; }  // constraint + 1, or 0
inline uint32_t Progress(uint32_t s) { return (s >> 21) & 0x3ffu; }
inline bool JustMet(uint32_t s) { return (s >> 31) != 0; }
inline uint32_t Make(uint32_t met, uint32_t started, uint32_t progress, bool just_met = false) {
  return met | (started << 16) | (progress << 21) | (just_met ? 1u << 31 : 0u);
}
}  // namespace constraint_state

/// The state after `token` follows state `s`: a started constraint advances (met at its end; abandoned
/// when the token is not its next one), else the first unmet constraint starting with `token` starts.
uint32_t AdvanceConstraint(const SentenceConstraints& sc, uint32_t s, uint32_t token);

/// Constraint tokens out in state `s` (met constraints' lengths plus the started one's progress).
uint32_t ConstraintTokensMet(const SentenceConstraints& sc, uint32_t s);

/// The hypothesis' alignment has reached constraint c's source term: the source token it attends to most is
/// the term's first or one after it (`aligned` -1: never).
bool AlignedAt(const SentenceConstraints& sc, uint32_t c, int32_t aligned);

/// Constrains one row of scores (columns of `vocab`) of a hypothesis in state `s` at position `pos` of a
/// sentence capped at `max_len` generated tokens: see above. `aligned` is the source token the row
/// attends to most (-1: unknown); with `start_by_alignment` (greedy) the first unmet constraint the
/// alignment has reached (AlignedAt) starts, and so does the first unmet one when </s> has the row's best
/// score. A forced token whose score is -inf (a rule banned it) gets -1e4.
void ConstrainRow(const SentenceConstraints& sc, uint32_t s, size_t pos, uint32_t max_len, uint32_t eos,
                  const VocabMap& vocab, int32_t aligned, bool start_by_alignment, float* row);

/// One sentence's candidates, as beam search keeps them (search.h SearchBuffers::cand_*).
struct Candidates {
  float* score;
  float* logprob;
  uint32_t* token;
  uint32_t* beam;
  uint32_t* met;  // constraint tokens met after each
};

/// Dynamic beam allocation (Post & Vilar 2018, section 3) over candidates [0, n) (the top ones, each
/// hypothesis' best next token and its constraint tokens): chooses `beam` of them, one per bank in turn
/// (banks by `met`, most met first; within a bank, best score first), and writes them back in score order
/// (equal scores: the earlier first); returns how many. Chosen candidates ending in </s> finish (they have
/// met every constraint: </s> is banned before), the others run on. No allocation (stack arrays).
size_t AllocateBanks(const Candidates& cand, size_t n, size_t beam);

/// Candidates of one sentence per step: the top 2 x beam, and with constraints each beam's best token and
/// constraint tokens.
constexpr uint64_t CandidateCapacity(uint64_t beam) { return 2 * beam + beam * (kMaxConstraints + 1); }
/// Candidates AllocateBanks can take.
constexpr size_t kMaxCandidates = CandidateCapacity(kMaxBeam);

}  // namespace tern
