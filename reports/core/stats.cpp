#include "reports/core/stats.h"

#include "reports/core/outliers.h"

#include <algorithm>
#include <cmath>

namespace collbench::report {

double median(std::span<const double> samples) {
  if (samples.empty()) return 0;
  std::vector<double> v(samples.begin(), samples.end());
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double upper = v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

TimeStats summarize(std::span<const double> samples) {
  TimeStats s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.min = v.front();
  s.max = v.back();
  s.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  // Nearest-rank percentile: the smallest sample with at least 99% of samples at or below it.
  const auto rank99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n)));
  s.p99 = v[std::max<std::size_t>(rank99, 1) - 1];
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  if (n > 1) {
    double var = 0;
    for (double x : v) var += (x - s.mean) * (x - s.mean);
    s.stdev = std::sqrt(var / static_cast<double>(n - 1));
  }
  s.mad = scaled_mad(v);
  return s;
}

std::vector<double> reduce_across_ranks(const std::vector<std::vector<double>>& samples, RankReduce how) {
  if (samples.empty()) return {};
  const std::size_t iters = samples[0].size();
  if (how == RankReduce::Rank0) return samples[0];
  std::vector<double> out(samples[0]);
  for (std::size_t r = 1; r < samples.size(); ++r) {
    const auto& row = samples[r];
    for (std::size_t i = 0; i < iters; ++i) {
      switch (how) {
        case RankReduce::Mean: out[i] += row[i]; break;
        case RankReduce::Max: out[i] = std::max(out[i], row[i]); break;
        case RankReduce::Min: out[i] = std::min(out[i], row[i]); break;
        case RankReduce::Rank0: break;
      }
    }
  }
  if (how == RankReduce::Mean)
    for (double& x : out) x /= static_cast<double>(samples.size());
  return out;
}

}  // namespace collbench::report
