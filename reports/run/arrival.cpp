#include "reports/run/arrival.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "common/units.h"

namespace collbench::report {
namespace {

// The typical time from one iteration's start to the next: the lateness floor's unit.
double iteration_period_s(const std::vector<std::vector<double>>& arrival_s) {
  std::vector<double> gaps;
  for (const auto& a : arrival_s)
    for (std::size_t i = 1; i < a.size(); ++i) gaps.push_back(a[i] - a[i - 1]);
  return median(gaps);
}

// "under 1 us" rather than "under 0 us": the bound is said at a precision it has.
std::string clock_error_text(double us) {
  return us < 1 ? "under 1 us" : "up to " + duration_text(us);
}

}  // namespace

std::optional<CaseArrival> summarize_arrival(const std::vector<std::vector<double>>& arrival_s,
                                             const std::vector<double>& error_s, const std::vector<int>& ranks,
                                             const std::vector<std::string>& hosts) {
  const std::size_t n = arrival_s.size();
  if (n < 2 || error_s.size() != n || ranks.size() != n || hosts.size() != n) return std::nullopt;
  std::size_t iters = arrival_s[0].size();
  for (const auto& a : arrival_s) iters = std::min(iters, a.size());
  if (iters == 0) return std::nullopt;

  const double floor_s = kLateShareFloor * iteration_period_s(arrival_s);
  std::vector<std::vector<double>> lateness(n);  // per rank, over the iterations it was late in
  std::vector<double> others(n - 1);
  CaseArrival out;
  out.iterations = iters;
  for (std::size_t i = 0; i < iters; ++i) {
    std::size_t last = 0;
    for (std::size_t r = 1; r < n; ++r)
      if (arrival_s[r][i] > arrival_s[last][i]) last = r;
    double others_error = 0;
    for (std::size_t r = 0, k = 0; r < n; ++r)
      if (r != last) others[k++] = arrival_s[r][i], others_error = std::max(others_error, error_s[r]);
    const double late_by = arrival_s[last][i] - median(others);
    if (late_by > std::max(error_s[last] + others_error, floor_s)) {
      ++out.late;
      lateness[last].push_back(late_by);
    }
  }
  // Who the others waited for longest: a rank that is last by a little every time (its place in
  // the algorithm, a core it shares with a peer) weighs less than one that is last now and then by
  // a scheduler's time slice.
  std::vector<double> waited(n, 0.0);
  for (std::size_t r = 0; r < n; ++r)
    for (double x : lateness[r]) waited[r] += x;
  const std::size_t worst = static_cast<std::size_t>(std::max_element(waited.begin(), waited.end()) - waited.begin());
  const double total = std::accumulate(waited.begin(), waited.end(), 0.0);
  out.clock_error_us = *std::max_element(error_s.begin(), error_s.end()) * 1e6;
  if (lateness[worst].empty()) return out;
  out.rank = ranks[worst];
  out.host = hosts[worst];
  out.last = lateness[worst].size();
  out.median_lateness_us = median(lateness[worst]) * 1e6;
  out.wait_share = total > 0 ? waited[worst] / total : 0;
  double first = arrival_s[0][0], end = arrival_s[0][iters - 1];
  for (const auto& a : arrival_s) first = std::min(first, a[0]), end = std::max(end, a[iters - 1]);
  out.wait_fraction = end > first ? std::min(1.0, waited[worst] / (end - first)) : 0;
  return out;
}

bool names_late_rank(const CaseArrival& a) {
  return a.rank >= 0 && a.last >= kMinLateIterations && a.wait_share > kLateMajority &&
         a.wait_fraction >= kMinWaitFraction;
}

std::vector<Finding> late_rank_findings(const std::vector<CaseResult>& cases,
                                        const std::optional<std::string>& oversubscribed) {
  std::size_t measured = 0, naming = 0;
  struct Tally {
    std::string host;
    std::size_t cases = 0, last = 0, late = 0;
    std::vector<double> lateness_us, wait_share, wait_fraction;
    double clock_error_us = 0;
  };
  std::map<int, Tally> by_rank;
  for (const auto& c : cases) {
    if (!c.arrival) continue;
    ++measured;
    if (!names_late_rank(*c.arrival)) continue;
    ++naming;
    Tally& t = by_rank[c.arrival->rank];
    t.host = c.arrival->host;
    ++t.cases;
    t.last += c.arrival->last;
    t.late += c.arrival->late;
    t.lateness_us.push_back(c.arrival->median_lateness_us);
    t.wait_share.push_back(c.arrival->wait_share);
    t.wait_fraction.push_back(c.arrival->wait_fraction);
    t.clock_error_us = std::max(t.clock_error_us, c.arrival->clock_error_us);
  }
  if (measured == 0) return {};
  std::vector<Finding> out;
  for (const auto& [rank, t] : by_rank) {
    if (t.cases < kMinLateCases || static_cast<double>(t.cases) <= kCaseMajority * static_cast<double>(naming)) continue;
    const std::string seen =
        fmt::format("rank {} on {} reached the collective late in {} of {} cases: the other ranks spent {:.0f}% "
                    "of the timed loop waiting for it to arrive ({:.0f}% of all their waiting for a late rank; "
                    "medians over those cases); it was the late one in {} of the {} late iterations, by {} "
                    "(median; clock error {})",
                    rank, t.host, t.cases, measured, 100 * median(t.wait_fraction), 100 * median(t.wait_share),
                    t.last, t.late, duration_text(median(t.lateness_us)), clock_error_text(t.clock_error_us));
    if (oversubscribed) {
      out.push_back({"LATE_RANK_INCONCLUSIVE", Tag::Info, Priority::None,
                     seen + "; not judged: " + *oversubscribed + " (OVERSUBSCRIBED)", ref::kStraggler,
                     Subject::rank(rank, t.host)});
      continue;
    }
    out.push_back({"LATE_RANK", Tag::Warn, Priority::P1,
                   seen + fmt::format(". Look for what else runs on {} (a busy CPU, a noisy neighbour, host-side "
                                      "copies)",
                                      t.host),
                   ref::kStraggler, Subject::rank(rank, t.host)});
  }
  if (out.empty())
    out.push_back({"ARRIVALS_EVEN", Tag::Pass, Priority::None,
                   fmt::format("no rank kept the others waiting at the start of the collectives ({} cases with "
                               "arrival times on a common clock)",
                               measured),
                   "", Subject::world()});
  return out;
}

}  // namespace collbench::report
