// Sampling in place of greedy search's argmax (transformers' _sample with do_sample=True): the row the
// logits rules produced is warped in transformers' order (TemperatureLogitsWarper: scores / temperature;
// TopKLogitsWarper: every score below the k-th largest becomes -inf, ties kept, k = max(top_k,
// min_tokens_to_keep); TopPLogitsWarper: the smallest set of most likely tokens whose probabilities reach
// top_p is kept, at least min_tokens_to_keep, the rest -inf), then one token is drawn from its softmax.
//
// The draw is tern's own and the same on every CPU: a counter-based generator (SplitMix64 over the
// seed, the sentence's index in the call and the position: the same call with the same seed draws the
// same numbers wherever it runs, whatever the thread count) and the softmax's cumulative sum in double
// precision, in column order, with an exp of fixed operations (DeterministicExp; its file is compiled
// without floating-point contraction). With int8 weights, whose logits are identical on every CPU, the
// sampled translation is too. torch.multinomial's own stream is not reproduced: frequencies are (tests/
// test_sampling.cc checks them against the warped distribution with a chi-square bound). Ties at the top-p
// boundary keep the lower token id first (torch.sort's order among equal scores is unspecified).
#pragma once

#include <cstddef>
#include <cstdint>

#include "search/vocab_map.h"
#include "tern/options.h"

namespace tern {

/// exp(x) for x <= 0 from fixed operations (range reduction by ln 2, a degree-12 Taylor polynomial, an
/// exponent shift): relative error under 1e-14, and bit-identical on every CPU. 0 below -745.
double DeterministicExp(double x);

/// A uniform number in [0, 1) (53 bits) for draw `pos` of sentence `sentence` under `seed`.
double CounterUniform(uint64_t seed, uint64_t sentence, uint64_t pos);

/// Warps row[0..n) in place (temperature, top-k, top-p as above). `order` is scratch of n entries.
void WarpRow(const SamplingOptions& o, float* row, size_t n, uint32_t* order);

/// Draws a column of the warped row[0..n) with probability softmax(row) using the uniform number u. Every
/// entry -inf: column 0.
size_t DrawColumn(const float* row, size_t n, double u);

}  // namespace tern
