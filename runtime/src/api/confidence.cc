#include "tern/confidence.h"

#include <algorithm>

namespace tern {

Confidence ConfidenceOf(const Hypothesis& h) {
  Confidence c;
  c.tokens = h.token_logprobs.size();
  if (c.tokens == 0) return c;
  double sum = 0;
  float lowest = 0.f;
  for (float lp : h.token_logprobs) sum += lp, lowest = std::min(lowest, lp);
  c.mean_logprob = static_cast<float>(sum / static_cast<double>(c.tokens));
  c.min_logprob = lowest;
  return c;
}

}  // namespace tern
