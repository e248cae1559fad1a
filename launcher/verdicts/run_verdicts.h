// Every finding of a finished sweep: environment, results, curve, thresholds per scope, groups
// against each other, and the baseline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/cli/command.h"
#include "launcher/verdicts/groups.h"
#include "reports/env/env_facts.h"
#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench {

struct RunJudgement {
  const VerdictOptions& verdict;
  std::string instance_type;
  std::string baseline;  // a collbench JSON to compare with, or empty
  std::optional<double> tolerance;
};

struct RunFindings {
  std::vector<report::Finding> environment;  // the environment audit
  std::vector<report::Finding> results;      // everything else
};

// Rank 0. A thresholds or baseline file that was readable at the start and is not now is said in a
// finding, and the other verdicts stay.
RunFindings run_findings(const RunJudgement& j, const report::RunHeader& header,
                         const std::vector<report::CaseResult>& cases, const std::vector<report::RankEnv>& envs,
                         const GroupLayout& layout);

}  // namespace collbench
