// ThreadPolicy (runtime/src/nn/thread_policy.h) on synthetic step times: it keeps the faster way, leaves a
// stalling pool at once, and probes rarely in a steady state.
#include "test_util.h"
#include "nn/thread_policy.h"

using namespace tern;

namespace {

// Runs `steps` steps whose durations are pool_s / single_s, a ping of the pool taking ping_s; returns how
// many ran pooled.
int Run(ThreadPolicy& p, int steps, double pool_s, double single_s, double ping_s = 1e-6) {
  int pooled = 0;
  for (int i = 0; i < steps; ++i) {
    const ThreadPolicy::Way way = p.Next();
    bool on = way != ThreadPolicy::Way::kSingle;
    if (way == ThreadPolicy::Way::kProbePool && ping_s > ThreadPolicy::kStall) p.PoolStalled(), on = false;
    pooled += on;
    p.Report(on, on ? pool_s : single_s);
  }
  return pooled;
}

}  // namespace

TEST_CASE("thread policy: no pool, every step on the calling thread") {
  ThreadPolicy p(false);
  CHECK(Run(p, 100, 1e-3, 2e-3) == 0);
  CHECK(p.Next() == ThreadPolicy::Way::kSingle);
  CHECK_FALSE(p.pooled());
}

TEST_CASE("thread policy: an idle CPU keeps the pool, probing under 2% of the steps") {
  ThreadPolicy p(true);
  const int pooled = Run(p, 10000, 1.0e-3, 1.6e-3);
  CHECK(p.pooled());
  CHECK(pooled >= 9800);
}

TEST_CASE("thread policy: a busy CPU (the pool stalls) moves to one thread at once and stays there") {
  ThreadPolicy p(true);
  Run(p, 100, 1.0e-3, 1.6e-3);
  REQUIRE(p.pooled());
  // Load arrives: pooled steps take 50 ms, single-thread ones 5 ms.
  const bool on = p.Next() != ThreadPolicy::Way::kSingle;
  p.Report(on, on ? 50e-3 : 5e-3);
  CHECK_FALSE(p.pooled());  // one stalled step is enough
  int pooled = Run(p, 10000, 50e-3, 5e-3);
  CHECK(pooled <= 20);      // the pool is probed ever less often
  CHECK_FALSE(p.pooled());
  // With the ping: a stalled pool is not even probed with a step.
  pooled = Run(p, 10000, 50e-3, 5e-3, 10e-3);
  CHECK(pooled == 0);
  // The load goes away: the pool wins its next probes and is used again.
  Run(p, 10000, 1.0e-3, 1.6e-3);
  CHECK(p.pooled());
}
