#include "nn/thread_policy.h"

namespace tern {

ThreadPolicy::Way ThreadPolicy::Next() {
  if (!has_pool_) return Way::kSingle;
  // The first step runs on one thread, the second probes the pool; later, one in `interval_` probes the
  // way not in use.
  const bool probe = (avg_[1] == 0 && avg_[0] != 0) || ++since_probe_ >= interval_;
  if (!probe) return pooled_ ? Way::kPool : Way::kSingle;
  since_probe_ = 0;
  return pooled_ ? Way::kSingle : Way::kProbePool;
}

void ThreadPolicy::ProbeDone(bool won) {
  interval_ = won ? kProbeInterval : (interval_ * 2 > kMaxProbeInterval ? kMaxProbeInterval : interval_ * 2);
}

void ThreadPolicy::PoolStalled() {
  if (avg_[1] == 0) avg_[1] = avg_[0] > 0 ? kEscape * avg_[0] : 1.0;  // known to lose until measured
  pooled_ = false;
  ProbeDone(false);
}

void ThreadPolicy::Report(bool pooled, double seconds, size_t rows) {
  if (!has_pool_ || !(seconds > 0) || rows == 0) return;
  seconds /= static_cast<double>(rows);
  // A probe's time replaces what is known of its way (it was measured long ago); other steps average in.
  const bool probe = pooled != pooled_;
  double& avg = avg_[pooled ? 1 : 0];
  avg = avg == 0 || probe ? seconds : 0.75 * avg + 0.25 * seconds;
  if (avg_[0] == 0 || avg_[1] == 0) return;
  // A pooled step far slower than a single-thread one: the pool stalls, stop using it at once.
  pooled_ = pooled && seconds > kEscape * avg_[0] ? false : avg_[1] < avg_[0];
  if (probe) ProbeDone(pooled_ == pooled);
}

}  // namespace tern
