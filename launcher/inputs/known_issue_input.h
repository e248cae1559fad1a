// Which known-bad version list applies (--known-issues, else known-issues.json beside the installed
// thresholds) and its findings for the environment audit and analyze.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "launcher/cli/command.h"
#include "reports/core/findings.h"
#include "reports/env/env_facts.h"
#include "reports/env/known_issues.h"

namespace collbench {

struct KnownIssuesChoice {
  std::optional<report::KnownIssueList> list;
  std::string skipped;  // why there is none: "--known-issues none", no file beside the thresholds
};

// Throws UsageError naming the file, entry and field when the file given, or the default one that
// exists, cannot be used. A missing default file is no error: the check is skipped.
KnownIssuesChoice known_issues_for(const VerdictOptions& v);

// The KNOWN_BAD_VERSIONS check of these ranks (report::known_version_findings), or the INFO saying
// why it was skipped. Never throws: a file that was fine when the command started and is not now is
// a WARN, and the other verdicts stay. `from_log`: the ranks stand for one NCCL log (analyze).
std::vector<report::Finding> known_issue_findings(const VerdictOptions& v, const std::vector<report::RankEnv>& ranks,
                                                  bool from_log = false);

}  // namespace collbench
