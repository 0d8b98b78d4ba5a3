// When a Translator's work should use its thread pool, decided by measurement. A pool helps only while
// its threads get CPUs: pthreadpool's caller waits for every worker at the end of each operator, so on a
// CPU kept busy by other processes (a phone, a Pi running its app) each of a decoder step's ~30 operators
// waits for a descheduled worker, and 2 threads ran 7x slower than 1 (200 sentences, beam 4, 2 cores at a
// load of 6: 52.6 s against 7.5 s). XNNPACK's XNN_FLAG_YIELD_WORKERS only narrowed that (21.4 s) and cost
// 9% when idle, so instead the decoder steps are timed and the faster way is kept:
//  - the first step runs on the calling thread, the second on the pool; then steps run the faster way,
//    and one step in an interval (kProbeInterval at first) runs the other way, so each way's time per step
//    and row is known (a probe's time replaces its way's, other steps enter an exponential moving average);
//  - before a step probes the pool, the pool is pinged (one empty job per thread): a ping slower than
//    kStall means its workers are not getting CPUs, and the probe is lost without running a step there;
//  - a pooled step that takes more than kEscape times the single-thread time switches at once;
//  - a probe that loses doubles the interval to the next one (up to kMaxProbeInterval), one that wins
//    resets it, so a steady state costs under 1% of the steps.
// The state persists across calls (load outlasts a sentence). No allocation, no system call but the clock
// (and the ping's wake-up of the pool).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tern {

class ThreadPolicy {
 public:
  static constexpr uint32_t kProbeInterval = 64, kMaxProbeInterval = 4096;
  static constexpr double kEscape = 3.0;
  static constexpr double kStall = 2e-3;  // seconds: an empty job wakes an idle pool in about 50 us

  /// How the next decoder step runs.
  enum class Way { kSingle, kPool, kProbePool };

  /// `has_pool`: the Translator has worker threads (otherwise every step is single-threaded).
  explicit ThreadPolicy(bool has_pool = false) : has_pool_(has_pool) {}

  /// The way of the next step. kProbePool: ping the pool first; if the ping takes longer than kStall call
  /// PoolStalled() and run the step on the calling thread, else run it on the pool.
  Way Next();
  /// The ping before a pool probe was slower than kStall: the probe is lost.
  void PoolStalled();
  /// Reports the duration (seconds) and rows of the step Next() was asked about (a step's time grows with
  /// its rows: the ways are compared per row).
  void Report(bool pooled, double seconds, size_t rows = 1);
  /// The way that is currently faster (for work that is not timed: the encoder).
  bool pooled() const { return has_pool_ && pooled_; }

 private:
  void ProbeDone(bool won);
  bool has_pool_;
  bool pooled_ = false;    // the current choice: one thread until the pool is measured faster
  double avg_[2] = {0, 0}; // seconds per step and row: [0] single thread, [1] pool; 0 = not measured yet
  uint32_t since_probe_ = 0, interval_ = kProbeInterval;
};

}  // namespace tern
