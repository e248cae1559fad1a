// Summary statistics of per-iteration samples.
#pragma once

#include "common/rank_reduce.h"

#include <span>
#include <vector>

#include "reports/core/result.h"

namespace collbench::report {

// Median, mean, min, max, p99 (nearest rank), sample standard deviation and scaled MAD, in the
// samples' unit.
TimeStats summarize(std::span<const double> samples);

// Median of a copy (the input is left alone); 0 for no samples.
double median(std::span<const double> samples);

using collbench::RankReduce;

// One value per iteration from every rank's sample of that iteration: samples[rank][iter].
std::vector<double> reduce_across_ranks(const std::vector<std::vector<double>>& samples, RankReduce how);

}  // namespace collbench::report
