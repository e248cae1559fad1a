// The robust outlier rule shared by the hunt (nodes, pairs, rounds) and by node/rail groups: a
// value is slow when it is far enough below the median both relatively and against the spread.
#pragma once

#include <span>
#include <vector>

namespace collbench::report {

struct OutlierRule {
  double min_drop = 0.10;      // flag only at least this far below the reference...
  double mad_k = 3.0;          // ...and beyond reference - mad_k * MAD
  double min_mad_frac = 0.01;  // MAD floor, as a fraction of the reference: a tight cluster flags no one
  double max_excused = 0.75;   // a value this far below the reference is slow however wide the spread
};

// 1.4826 x the median absolute deviation from the median: the standard deviation for normal data.
double scaled_mad(std::span<const double> v);

struct Bound {
  double ref = 0, mad = 0, floored = 0, min_drop = 0, k = 0;
  bool slow(double x) const { return ref > 0 && x <= ref * (1 - min_drop) && x < ref - k * floored; }
  double drop(double x) const;  // fraction below ref; NaN without a reference
};

// The reference (median) and spread of `values`; a bound with ref 0 flags nothing.
Bound make_bound(std::span<const double> values, const OutlierRule& rule);

}  // namespace collbench::report
