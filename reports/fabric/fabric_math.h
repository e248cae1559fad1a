// The arithmetic of `collbench fabric`: from raw per-iteration seconds to latency statistics and
// bandwidth, and the rate the straggler attribution compares for latency.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "reports/fabric/fabric_result.h"

namespace collbench::report {

// Median, p99 (nearest rank), min and mean of one-way latencies given in seconds, in µs.
LatencyPoint latency_point(std::uint64_t bytes, std::span<const double> one_way_s);

// GB/s (decimal) of `window` messages of `bytes` moved in `seconds`; 0 for a non-positive time.
double window_gbs(std::uint64_t bytes, int window, double seconds);

// Per-iteration GB/s of a window stream; `directions` = 2 for a bidirectional one (both windows count).
std::vector<double> stream_gbs(std::uint64_t bytes, int window, std::span<const double> seconds, int directions = 1);

// Means of `batches` consecutive slices of the samples (fewer when there are fewer samples; the
// last slice takes the remainder). The latency verdicts compare these: a path that holds back some
// messages a long time (a rate-limited or congested port lets most through at once, then stalls)
// raises the mean of every batch while barely moving the median sample, and one stalled batch
// cannot outvote the others.
std::vector<double> batch_means(std::span<const double> samples, std::size_t batches);

// The lower half (rounded up) of the batch means, ascending: what latency is judged on. A token
// bucket or a congested port holds the mean of every batch up, since it fixes the average rate; a
// busy host's scheduling stalls (milliseconds) land in some batches and not others, so the lower
// half keeps the first and drops the second (fake cluster with one core hogged: a healthy pair's
// mean rose to 166 us against 14-30 us unloaded, while a 2 Mbit/s node's stayed at ~195 us).
std::vector<double> lower_batch_means(std::span<const double> samples, std::size_t batches);

// Attribution judges higher-is-better samples: a latency in µs becomes messages per millisecond,
// 1000 / latency_us, so 10% more latency reads as about 9% less rate.
double latency_rate(double latency_us);
std::vector<double> latency_rates(std::span<const double> latency_us);

}  // namespace collbench::report
