// Findings about the results themselves: wrong elements, unchecked cases.
#pragma once

#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

// WRONG_RESULTS (FAIL) when any checked element was wrong, else RESULTS_EXACT (PASS); an INFO
// RESULTS_UNCHECKED when some cases were not checked. WRONG_RESULTS is about the ranks in the
// cases' wrong_ranks, on their hosts from `nodes`; a world subject when no case says which.
std::vector<Finding> result_findings(const std::vector<CaseResult>& cases, const std::vector<NodeInfo>& nodes = {});

// The hosts of these ranks, in rank order, each once; ranks on no listed node are skipped.
std::vector<std::string> hosts_of_ranks(const std::vector<NodeInfo>& nodes, const std::vector<int>& ranks);

}  // namespace collbench::report
