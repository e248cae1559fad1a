// BUSBW_DRIFT: a job whose collectives got slower as it ran. Each (communicator, collective, size)
// series is cut into windows of as many joined collectives each, in the order they completed; its
// last windows are compared with its first, against the noise its first windows show among
// themselves (inspector_rules.h, kDrift).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/units.h"
#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "reports/inspector/inspector_rules.h"
#include "reports/inspector/inspector_rules_common.h"

namespace collbench::report::inspector {
using namespace detail;

namespace {

struct Drift {
  double early_gbs = 0, late_gbs = 0;  // the early windows' median; the best late window's
  double noise = 0;                    // largest distance of an early window's median from early_gbs
  bool drifted = false;
};

Drift judge_series(const std::vector<float>& busbw) {
  const std::size_t n = busbw.size();
  std::vector<double> meds;
  for (std::size_t w = 0; w < kDrift.windows; ++w) {
    std::vector<double> v(busbw.begin() + static_cast<std::ptrdiff_t>(w * n / kDrift.windows),
                          busbw.begin() + static_cast<std::ptrdiff_t>((w + 1) * n / kDrift.windows));
    meds.push_back(median(v));
  }
  Drift d;
  const std::vector<double> early(meds.begin(), meds.begin() + kDrift.edge);
  d.early_gbs = median(early);
  for (double m : early) d.noise = std::max(d.noise, std::abs(m - d.early_gbs));
  d.late_gbs = *std::max_element(meds.end() - kDrift.edge, meds.end());
  const double drop = d.early_gbs - d.late_gbs;
  d.drifted = d.early_gbs > 0 && drop > kDrift.floor * d.early_gbs && drop > kDrift.noise * d.noise;
  return d;
}

}  // namespace

std::vector<Finding> drift_findings(const Job& job) {
  std::vector<std::string> whats;
  std::set<std::size_t> judged, drifted;
  std::uint64_t colls = 0;
  for (std::size_t ci = 0; ci < job.comms.size(); ++ci) {
    const Comm& c = job.comms[ci];
    if (static_cast<double>(c.last_ts_us - c.first_ts_us) < kDrift.min_us) continue;
    for (const auto& s : c.series) {
      if (s.busbw.size() < kDrift.min_samples) continue;
      if (judged.insert(ci).second) colls += c.joined;
      const Drift d = judge_series(s.busbw);
      if (!d.drifted) continue;
      drifted.insert(ci);
      whats.push_back(fmt::format("{} {} {} from {:.1f} GB/s busbw in its first {} windows to {:.1f} GB/s at best in "
                                  "its last {} ({:.0f}% lower; its early windows within {:.1f} GB/s of each other)",
                                  c.id, s.coll, size_text(s.bytes), d.early_gbs, kDrift.edge, d.late_gbs, kDrift.edge,
                                  100 * (1 - d.late_gbs / d.early_gbs), d.noise));
    }
  }
  const double mins = minutes(job.first_ts_us, job.last_ts_us);
  if (judged.empty())
    return {{"INSPECTOR_TOO_LITTLE", Tag::Info, Priority::None,
             fmt::format("drift not judged: no communicator has {} joined collectives of one size over {:.0f} minutes "
                         "or more (the logs span {:.1f} minutes)",
                         kDrift.min_samples, kDrift.min_us / 60e6, mins),
             "", Subject::world()}};
  if (drifted.empty()) return {};
  const double window_mins = mins / static_cast<double>(kDrift.windows);
  const std::string basis =
      fmt::format("{} (each series in {} windows of about {:.1f} minutes)",
                  rests_on(colls, judged.size(), job.processes.size(), mins), kDrift.windows, window_mins);
  // The hosts every drifting communicator has in common (not all of them): a node that slowed down
  // slows each communicator it is in. Else half the communicators or more: the whole job.
  std::set<std::string> common = comm_hosts(job, job.comms[*drifted.begin()]);
  for (std::size_t ci : drifted) {
    const auto h = comm_hosts(job, job.comms[ci]);
    std::erase_if(common, [&](const std::string& x) { return !h.count(x); });
  }
  if (!common.empty() && common.size() < hosts(job).size()) {
    std::vector<std::string> named(common.begin(), common.end());
    return {{"BUSBW_DRIFT", Tag::Warn, Priority::P1,
             fmt::format("{} of {} communicators got slower as the job ran, all of them on {} {}: {}; {}. Check {} for "
                         "throttling (clocks, temperature) and its NICs' error counters",
                         drifted.size(), judged.size(), named.size() == 1 ? "host" : "hosts", fmt::join(named, ", "),
                         listed(whats), basis, fmt::join(named, ", ")),
             ref::kStraggler, Subject::nodes(named)}};
  }
  if (2 * drifted.size() >= judged.size())
    return {{"BUSBW_DRIFT", Tag::Warn, Priority::P1,
             fmt::format("the whole job got slower as it ran: {} of {} communicators lost bandwidth: {}; {}. Look for "
                         "what changed while it ran (other jobs on the fabric, thermal throttling, a checkpoint or "
                         "data-loading phase)",
                         drifted.size(), judged.size(), listed(whats), basis),
             ref::kMultiNode, Subject::world()}};
  return {{"BUSBW_DRIFT", Tag::Warn, Priority::P1,
           fmt::format("{} of {} communicators got slower as the job ran, without one host in common: {}; {}",
                       drifted.size(), judged.size(), listed(whats), basis),
           ref::kMultiNode, Subject::world()}};
}

}  // namespace collbench::report::inspector
