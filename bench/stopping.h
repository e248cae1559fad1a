// When to stop timing a case: a fixed count, or adaptively by relative noise.
#pragma once

#include <span>
#include <string>

#include "bench/options.h"

namespace collbench {

enum class StopReason { Fixed, Converged, TimeCap, Count };
std::string stop_reason_name(StopReason r);

// Relative standard error of the mean: stdev / sqrt(n) / mean. Infinite below two samples.
double relative_standard_error(std::span<const double> samples);

struct StopDecision {
  bool stop = false;
  StopReason reason = StopReason::Fixed;
};

// Decides after each batch, from the samples so far and the time spent timing them.
StopDecision decide_stop(const IterPolicy& policy, std::span<const double> samples, double elapsed_s);

// How many iterations the next batch runs: the rest of a fixed count, or for the adaptive rule
// enough to reach min_samples, then batches that double the sample count, cut so the batch is
// expected to end near max_time (from the time per iteration so far) and never past max_samples.
int next_batch(const IterPolicy& policy, int done, double elapsed_s = 0);

// `wanted` cut so one batch is expected to take at most a quarter of `timeout_s`, from `per_iter_s`
// (seconds per call seen so far; 0 when nothing was seen: one call, to see). Each batch runs under
// the watchdog afresh, so a long fixed -n is measured in pieces instead of being called a hang.
int paced_batch(int wanted, double per_iter_s, double timeout_s);

}  // namespace collbench
