#include "bench/stopping.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace collbench {

std::string stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::Fixed: return "fixed";
    case StopReason::Converged: return "converged";
    case StopReason::TimeCap: return "time_cap";
    case StopReason::Count: return "max_samples";
  }
  return "fixed";
}

double relative_standard_error(std::span<const double> samples) {
  const std::size_t n = samples.size();
  if (n < 2) return std::numeric_limits<double>::infinity();
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= static_cast<double>(n);
  if (mean <= 0) return std::numeric_limits<double>::infinity();
  double var = 0;
  for (double s : samples) var += (s - mean) * (s - mean);
  var /= static_cast<double>(n - 1);
  return std::sqrt(var / static_cast<double>(n)) / mean;
}

StopDecision decide_stop(const IterPolicy& policy, std::span<const double> samples, double elapsed_s) {
  const int n = static_cast<int>(samples.size());
  if (!policy.adaptive) return {n >= policy.fixed, StopReason::Fixed};
  if (n >= policy.min_samples && elapsed_s >= policy.min_time_s &&
      relative_standard_error(samples) <= policy.max_noise)
    return {true, StopReason::Converged};
  if (elapsed_s >= policy.max_time_s && n >= 2) return {true, StopReason::TimeCap};
  if (policy.max_samples > 0 && n >= policy.max_samples) return {true, StopReason::Count};
  return {false, StopReason::Converged};
}

int next_batch(const IterPolicy& policy, int done, double elapsed_s) {
  if (!policy.adaptive) return std::max(0, policy.fixed - done);
  int batch = done < policy.min_samples ? policy.min_samples - done : std::clamp(done, 1, 1000);
  if (done >= policy.min_samples && done > 0 && elapsed_s > 0) {
    const double left = (policy.max_time_s - elapsed_s) / (elapsed_s / done);
    batch = std::clamp(static_cast<int>(std::ceil(left)), 1, batch);
  }
  if (policy.max_samples > 0) batch = std::min(batch, std::max(1, policy.max_samples - done));
  return batch;
}

int paced_batch(int wanted, double per_iter_s, double timeout_s) {
  if (wanted <= 1) return wanted;
  if (!(per_iter_s > 0)) return 1;
  const double fits = std::floor(timeout_s / 4 / per_iter_s);
  return fits >= wanted ? wanted : std::max(1, static_cast<int>(fits));
}

}  // namespace collbench
