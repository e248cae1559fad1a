// Where a run's own processes outnumber a machine's cores. They then take turns on the CPUs by
// construction, so who reaches a collective last and how long a small message takes say more about
// the scheduler than about a node or the fabric: 4 ranks on a 2-core VM put one of them last by a
// scheduler slice in a third of the cases. Verdicts that read such timings (LATE_RANK, compare's
// latency-bound drops) are then inconclusive, with this reason said once.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

// "4 ranks share 2 cores on vm" for the most crowded machine (processes when one holds several
// ranks; a fake cluster's nodes on one kernel count as one machine, named by their hosts); nullopt
// when every machine has a core per process, or the cores are unknown.
std::optional<std::string> oversubscribed(const std::vector<RankInfo>& ranks);

// The same from a collbench document's world.rank_info (a file without machine or cores: nullopt).
std::optional<std::string> oversubscribed(const nlohmann::json& doc);

// OVERSUBSCRIBED (INFO): the reason, and what it makes inconclusive.
Finding oversubscribed_finding(const std::string& reason);

}  // namespace collbench::report
