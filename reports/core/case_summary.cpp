#include "reports/core/case_summary.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <utility>

namespace collbench::report {

namespace {

// Each rank's median of a few dozen iterations, 16,384 ranks at a time: selecting in a copy
// (median()) costs a branch misprediction per comparison; a fixed sorting network of min/max
// has none and is several times faster. Batcher's odd-even merge sort for n inputs.
constexpr std::size_t kMaxNetwork = 32;

template <std::size_t N, class Visit>
constexpr void batcher(Visit visit) {
  for (std::size_t p = 1; p < N; p <<= 1)
    for (std::size_t k = p; k >= 1; k >>= 1)
      for (std::size_t j = k % p; j + k < N; j += 2 * k)
        for (std::size_t i = 0; i < k && i + j + k < N; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) visit(i + j, i + j + k);
}

template <std::size_t N>
constexpr std::size_t network_size() {
  std::size_t c = 0;
  batcher<N>([&](std::size_t, std::size_t) { ++c; });
  return c;
}

template <std::size_t N>
constexpr auto network() {
  std::array<std::pair<std::uint8_t, std::uint8_t>, network_size<N>()> out{};
  std::size_t c = 0;
  batcher<N>([&](std::size_t a, std::size_t b) { out[c++] = {static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b)}; });
  return out;
}

template <std::size_t N>
inline constexpr auto kNetwork = network<N>();

template <std::size_t N, std::size_t... I>
void sort_network([[maybe_unused]] double* v, std::index_sequence<I...>) {
  (
      [&] {
        constexpr auto c = kNetwork<N>[I];
        const double a = v[c.first], b = v[c.second];
        v[c.first] = std::min(a, b);
        v[c.second] = std::max(a, b);
      }(),
      ...);
}

// median() of exactly N values (times: never NaN).
template <std::size_t N>
double network_median(const double* s) {
  if constexpr (N == 0) {
    return 0;
  } else {
    double v[N];
    std::copy(s, s + N, v);
    sort_network<N>(v, std::make_index_sequence<kNetwork<N>.size()>{});
    return N % 2 == 1 ? v[N / 2] : (v[N / 2 - 1] + v[N / 2]) / 2;
  }
}

template <std::size_t... N>
constexpr auto network_medians(std::index_sequence<N...>) {
  return std::array<double (*)(const double*), sizeof...(N)>{&network_median<N>...};
}

// median(), the same value, without allocating per call.
double fast_median(std::span<const double> samples, std::vector<double>& buf) {
  static constexpr auto kBySize = network_medians(std::make_index_sequence<kMaxNetwork + 1>{});
  if (samples.size() <= kMaxNetwork) return kBySize[samples.size()](samples.data());
  buf.assign(samples.begin(), samples.end());
  const auto mid = buf.begin() + static_cast<std::ptrdiff_t>(buf.size() / 2);
  std::nth_element(buf.begin(), mid, buf.end());
  if (buf.size() % 2 == 1) return *mid;
  return (*std::max_element(buf.begin(), mid) + *mid) / 2;
}

}  // namespace

CaseResult summarize_case(const RawCase& raw, RankReduce how, const std::vector<NodeInfo>& nodes) {
  CaseResult c;
  c.op = raw.op;
  c.dtype = raw.dtype;
  c.redop = raw.redop;
  c.placement = raw.placement;
  c.root = raw.root;
  c.bytes = raw.bytes;
  c.count = raw.count;
  c.requested_bytes = raw.requested_bytes;
  c.wrong = raw.wrong;
  c.stop_reason = raw.stop_reason;
  c.cpu_wait_share = raw.cpu_wait_share;

  const auto& samples = *raw.samples_s;
  c.group.ranks.resize(samples.size());
  for (std::size_t r = 0; r < samples.size(); ++r) c.group.ranks[r] = static_cast<int>(r);

  std::vector<double> per_iter = reduce_across_ranks(samples, how);
  for (double& s : per_iter) s *= 1e6;
  c.time_us = summarize(per_iter);

  // Bandwidth from the mean time, as nccl-tests divides its loop time by the iteration count.
  if (c.time_us.mean > 0) {
    c.algbw_gbs = static_cast<double>(raw.bytes) / 1e3 / c.time_us.mean;  // bytes / us / 1e3 = GB/s
    c.busbw_gbs = c.algbw_gbs * raw.busbw_factor;
  }

  std::vector<double> buf, medians;
  c.rank_median_us.reserve(samples.size());
  for (const auto& s : samples) c.rank_median_us.push_back(fast_median(s, buf) * 1e6);
  c.node_median_us.reserve(nodes.size());
  for (const auto& node : nodes) {
    medians.clear();
    for (int r : node.ranks)
      if (r >= 0 && static_cast<std::size_t>(r) < c.rank_median_us.size()) medians.push_back(c.rank_median_us[r]);
    c.node_median_us.push_back({node.name, fast_median(medians, buf)});
  }
  return c;
}

}  // namespace collbench::report
