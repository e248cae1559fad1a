// The confirmation round(s) that hunt and fabric run after their pair rounds, before the verdict:
// every node in doubt or accused is measured again against the healthiest nodes, and every slow or
// doubtful link again on its own (reports/pairs/attribution.h then requires the repeat).
#pragma once

#include <vector>

#include "bench/control.h"
#include "bench/schedules.h"
#include "reports/pairs/attribution.h"

namespace collbench {

// From first verdicts without confirmation, one per measure (fabric judges latency and bandwidth):
// suspects are the nodes not healthy in any of them, partners the nodes healthy in all, best first
// (by the first verdict's scores); then the links, node-disjoint per round, each once.
Schedule confirmation_schedule(const std::vector<const report::Attribution*>& first);

// Rank 0's schedule on every process of `control`.
Schedule broadcast_schedule(const Schedule& mine, Control& control);

}  // namespace collbench
