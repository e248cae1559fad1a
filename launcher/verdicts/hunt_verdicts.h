// What a hunt prints and concludes: its plan, and after the last round the node phase, busy hosts,
// the budget and the pair verdicts.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/schedules.h"
#include "reports/pairs/attribution.h"
#include "reports/core/findings.h"
#include "reports/hunt/hunt_json.h"

namespace collbench {

std::string pairs_text(const std::vector<std::pair<int, int>>& pairs, const std::vector<report::NodeInfo>& nodes);

// The plan block printed before the first round.
std::string hunt_plan_text(const report::HuntPlan& p, const Schedule& s, bool node_phase, const report::WorldInfo& w);

// What the budget did not reach; the verdicts stand on the rest.
report::Finding hunt_budget_finding(const report::HuntRecord& r, const std::vector<std::string>& names);

struct HuntVerdict {
  std::vector<report::Finding> findings;
  report::Attribution attribution;
};

// Rank 0, after the last round: prints the node phase's heading and the pair matrix, and returns
// the findings with the attribution they came from.
HuntVerdict judge_hunt(const report::HuntRecord& record, const report::WorldInfo& world,
                       const std::vector<std::string>& names);

}  // namespace collbench
