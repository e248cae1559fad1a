// The median of a large set without reordering it: radix selection on the values' bits.
#pragma once

#include <span>

namespace collbench::report {

// Exactly median() (reports/core/stats.h) of v, which is left as it is. From 4,096 values on,
// one histogram pass over the top 16 bits of order-preserving keys finds the median's bucket, a
// second gathers that bucket, and nth_element runs on it alone: at a million values two streaming
// passes, where nth_element over all of them is several passes of mispredicted branches.
double radix_median(std::span<const double> v);

}  // namespace collbench::report
