#include "reports/core/outliers.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reports/core/stats.h"

namespace collbench::report {

double scaled_mad(std::span<const double> v) {
  if (v.empty()) return 0;
  const double m = median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::abs(x - m));
  return 1.4826 * median(dev);
}

double Bound::drop(double x) const { return ref > 0 ? 1 - x / ref : std::numeric_limits<double>::quiet_NaN(); }

Bound make_bound(std::span<const double> values, const OutlierRule& rule) {
  Bound b;
  b.min_drop = rule.min_drop;
  b.k = rule.mad_k;
  if (values.empty()) return b;
  b.ref = median(values);
  b.mad = scaled_mad(values);
  // Few values with a wide spread can put ref - k * MAD below zero; the cap keeps a pair at 1% of
  // the others from passing as noise.
  b.floored = std::min(std::max(b.mad, rule.min_mad_frac * b.ref), rule.max_excused * b.ref / rule.mad_k);
  return b;
}

}  // namespace collbench::report
