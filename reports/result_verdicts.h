// Findings about the results themselves: wrong elements, unchecked cases.
#pragma once

#include <vector>

#include "reports/findings.h"
#include "reports/result.h"

namespace collbench::report {

// WRONG_RESULTS (FAIL) when any checked element was wrong, else RESULTS_EXACT (PASS); an INFO
// RESULTS_UNCHECKED when some cases were not checked.
std::vector<Finding> result_findings(const std::vector<CaseResult>& cases);

}  // namespace collbench::report
