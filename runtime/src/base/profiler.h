// Time per component for `tern translate --profile` (tern::Profile in translator.h). Off by default:
// Tick() then costs a branch and Tock() nothing.
#pragma once

#include <chrono>

#include "tern/translator.h"

namespace tern {

class Profiler {
 public:
  using Clock = std::chrono::steady_clock;
  bool enabled = false;
  Profile profile;

  Clock::time_point Tick() const { return enabled ? Clock::now() : Clock::time_point(); }
  /// Adds the milliseconds since t0 to *ms (a field of `profile`).
  void Tock(Clock::time_point t0, double* ms) const {
    if (enabled) *ms += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
};

}  // namespace tern
