// The summary block that closes every report: "Issues Found:  N" (N = the FAIL and WARN findings
// listed below it), then the details grouped by priority, P0 first; a [PASS] line when there are none.
#pragma once

#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench::report {

int count_issues(const std::vector<Finding>& findings);
std::string render_findings(const std::vector<Finding>& findings, bool color);
std::string render_summary(const std::vector<Finding>& findings, bool color);

}  // namespace collbench::report
