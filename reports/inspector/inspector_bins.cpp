// What the reader keeps per communicator for drawing the job (inspector_job.h): busbw samples,
// decimated as the job grows, and the rank x coll_sn lateness bins, merged pairwise as it grows.
#include <algorithm>

#include "reports/inspector/inspector_job.h"

namespace collbench::report::inspector {

void BusbwSeries::add(float v, std::uint64_t ts) {
  if (skipped + 1 < stride) {
    ++skipped;
    return;
  }
  skipped = 0;
  busbw.push_back(v);
  ts_us.push_back(ts);
  if (busbw.size() >= kMaxSamples) {  // keep every other one, and from now on take half as many
    std::size_t k = 0;
    for (std::size_t i = 0; i < busbw.size(); i += 2, ++k) busbw[k] = busbw[i], ts_us[k] = ts_us[i];
    busbw.resize(k);
    ts_us.resize(k);
    stride *= 2;
  }
}

void LatenessBins::start(std::size_t ranks, std::uint64_t sn) {
  first_sn = sn;
  width = 1;
  collectives.assign(kBins, 0);
  first_ts_us.assign(kBins, 0);
  last_ts_us.assign(kBins, 0);
  late_share.assign(ranks * kBins, 0.f);
}

void LatenessBins::halve() {
  const std::size_t ranks = late_share.size() / kBins;
  for (std::size_t b = 0; b < kBins / 2; ++b) {
    const std::size_t lo = 2 * b, hi = 2 * b + 1;
    const bool a = collectives[lo] > 0, z = collectives[hi] > 0;
    first_ts_us[b] = a && z ? std::min(first_ts_us[lo], first_ts_us[hi]) : a ? first_ts_us[lo] : first_ts_us[hi];
    last_ts_us[b] = std::max(last_ts_us[lo], last_ts_us[hi]);
    collectives[b] = collectives[lo] + collectives[hi];
    for (std::size_t r = 0; r < ranks; ++r)
      late_share[r * kBins + b] = late_share[r * kBins + lo] + late_share[r * kBins + hi];
  }
  for (std::size_t b = kBins / 2; b < kBins; ++b) {
    collectives[b] = 0, first_ts_us[b] = last_ts_us[b] = 0;
    for (std::size_t r = 0; r < ranks; ++r) late_share[r * kBins + b] = 0.f;
  }
  width *= 2;
}

void LatenessBins::add(std::uint64_t sn, std::uint64_t ts, const std::vector<float>& exec_us, double median_us) {
  if (collectives.empty()) start(exec_us.size(), sn);
  // The window closes collectives about in coll_sn order; one older than the first bin joins it.
  const std::uint64_t off = sn > first_sn ? sn - first_sn : 0;
  while (off / width >= kBins) halve();
  const std::size_t b = static_cast<std::size_t>(off / width);
  first_ts_us[b] = collectives[b] == 0 ? ts : std::min(first_ts_us[b], ts);
  last_ts_us[b] = std::max(last_ts_us[b], ts);
  ++collectives[b];
  if (!(median_us > 0)) return;
  for (std::size_t r = 0; r < exec_us.size(); ++r)
    late_share[r * kBins + b] += static_cast<float>((median_us - exec_us[r]) / median_us);
}

std::size_t LatenessBins::used() const {
  std::size_t n = 0;
  for (std::size_t b = 0; b < collectives.size(); ++b)
    if (collectives[b] > 0) n = b + 1;
  return n;
}

float LatenessBins::mean(std::size_t rank, std::size_t bin) const {
  if (bin >= collectives.size() || collectives[bin] == 0) return 0.f;
  return late_share[rank * kBins + bin] / static_cast<float>(collectives[bin]);
}

}  // namespace collbench::report::inspector
