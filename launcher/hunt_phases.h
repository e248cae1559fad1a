// The hunt's measurements: a world probe for the time estimate, every node's own collective at
// once, and rounds of node pairs. Collective over all processes; results on rank 0.
#pragma once

#include <vector>

#include "bench/backend.h"
#include "bench/control.h"
#include "bench/options.h"
#include "bench/schedules.h"
#include "bench/watchdog.h"
#include "reports/attribution.h"
#include "reports/group_verdicts.h"
#include "reports/result.h"

namespace collbench {

struct HuntContext {
  const RunOptions& opts;  // one op, one size, out of place
  Backend& world;
  Control& control;
  Watchdog& watchdog;
  const report::WorldInfo& info;  // complete on rank 0 only
  int my_node = 0;
};

// Seconds of one world iteration at the hunt's size, slowest rank's median of a few (rank 0).
double probe_iteration_s(const HuntContext& ctx);

// Every node's ranks run the op together, all nodes at once; one score per node (rank 0).
std::vector<report::GroupScore> run_node_phase(const HuntContext& ctx);

// One round: each pair's two nodes run the op together, all pairs at once; nodes in no pair run
// alone and are not reported. Samples tagged with `index` (rank 0).
std::vector<report::PairSample> run_pair_round(const HuntContext& ctx, const Round& round, int index);

}  // namespace collbench
