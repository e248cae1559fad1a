// A collective that does not finish within --timeout: every process that notices posts where it
// waits to the launcher (launcher/job/peers.h), and rank 0 names the processes that are not where
// the rest are: silent ones (stopped, frozen, cut off from the others) and ones still at another
// step (they never reached the collective the others wait in).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench {

struct HangSuspect {
  int rank = 0;
  std::string host;
  std::string at;  // the step it posted; "" when it posted nothing
};

// Posts `what` (the step this process waits in) for this process; on rank 0 also returns the
// suspects (empty elsewhere, without PMIx, and when every process waits in the same step).
std::vector<HangSuspect> hang_suspects(int rank, const std::string& what);

// Rank 0's choice among what the processes posted, by rank (nullopt: nothing posted): the silent
// ones, and those whose step differs from the one most of the others share. Exposed for tests.
std::vector<int> odd_ones(const std::vector<std::optional<std::string>>& posted);

// COLLECTIVE_HANG as `rank` saw it: `what` did not finish within `limit_s`; the suspects are named,
// and one suspect is the subject.
report::Finding hang_finding(int rank, const std::string& what, double limit_s, const std::vector<HangSuspect>& suspects);

// How long the other processes stay after a hang, so rank 0 can ask and save before the launcher
// ends the job.
inline constexpr double kHangReportWait_s = 8;

}  // namespace collbench
