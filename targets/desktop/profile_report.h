// `tern translate --profile`: where a decoder step's time goes, and how far it is from the memory floor.
#pragma once

#include <ostream>

#include "tern/model.h"
#include "tern/translator.h"

namespace tern::cli {

/// The weight bytes a decoder step read (Profile::weight_bytes_read / decoder_steps, counted by the
/// runtime: the decoder layers, and the output layer's rows, a shortlist's only) against this machine's
/// copy bandwidth (best of 5 memcpy runs of 64 MiB, read + write: allocates 128 MiB for the measurement),
/// as "floor: ... MiB ... GB/s ... ms; measured ... ms per decoder step (N x the floor)"; the mean
/// shortlist size when the model has one; a note when the weights fit in the last-level cache.
/// Prints nothing when no decoder step ran.
void PrintFloor(const Model& m, const Profile& p, std::ostream& err);

/// The Profile's time split: one line per component with ms, ms per generated token and % of the total.
void PrintProfile(const Profile& p, std::ostream& err);

}  // namespace tern::cli
