// One call at a time on a shared object (a Translator, the C API's translator): the flag is taken with an
// atomic exchange before anything the object owns is touched, and released when the call is over. A
// call that finds it taken fails at once (kBusy / TERN_BUSY) without waiting.
#pragma once

#include <atomic>

namespace tern {

class BusyGuard {
 public:
  explicit BusyGuard(std::atomic<bool>& flag) : flag_(flag), acquired_(!flag.exchange(true, std::memory_order_acquire)) {}
  ~BusyGuard() {
    if (acquired_) flag_.store(false, std::memory_order_release);
  }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;
  bool acquired() const { return acquired_; }

 private:
  std::atomic<bool>& flag_;
  bool acquired_;
};

}  // namespace tern
