#include "reports/fabric/fabric_math.h"

#include <algorithm>

#include "reports/core/stats.h"

namespace collbench::report {

LatencyPoint latency_point(std::uint64_t bytes, std::span<const double> one_way_s) {
  LatencyPoint p;
  p.bytes = bytes;
  p.samples_us.reserve(one_way_s.size());
  for (double s : one_way_s) p.samples_us.push_back(s * 1e6);
  const TimeStats t = summarize(p.samples_us);
  p.median_us = t.median, p.p99_us = t.p99, p.min_us = t.min, p.mean_us = t.mean;
  p.samples = t.samples;
  return p;
}

double window_gbs(std::uint64_t bytes, int window, double seconds) {
  if (!(seconds > 0)) return 0;
  return static_cast<double>(bytes) * window / seconds / 1e9;
}

std::vector<double> stream_gbs(std::uint64_t bytes, int window, std::span<const double> seconds, int directions) {
  std::vector<double> out;
  out.reserve(seconds.size());
  for (double s : seconds) out.push_back(window_gbs(bytes, window * directions, s));
  return out;
}

std::vector<double> batch_means(std::span<const double> samples, std::size_t batches) {
  std::vector<double> out;
  if (samples.empty() || batches == 0) return out;
  batches = std::min(batches, samples.size());
  const std::size_t per = samples.size() / batches;
  for (std::size_t b = 0; b < batches; ++b) {
    const std::size_t from = b * per, to = b + 1 == batches ? samples.size() : from + per;
    double sum = 0;
    for (std::size_t i = from; i < to; ++i) sum += samples[i];
    out.push_back(sum / static_cast<double>(to - from));
  }
  return out;
}

std::vector<double> lower_batch_means(std::span<const double> samples, std::size_t batches) {
  std::vector<double> means = batch_means(samples, batches);
  std::sort(means.begin(), means.end());
  means.resize((means.size() + 1) / 2);
  return means;
}

double latency_rate(double latency_us) { return latency_us > 0 ? 1000.0 / latency_us : 0.0; }

std::vector<double> latency_rates(std::span<const double> latency_us) {
  std::vector<double> out;
  out.reserve(latency_us.size());
  for (double us : latency_us) out.push_back(latency_rate(us));
  return out;
}

}  // namespace collbench::report
