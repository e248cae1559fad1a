// The KNOWN_BAD_VERSIONS check: every process's versions against thresholds/known-issues.json
// (reports/env/known_issues.h). Pure; the launcher loads the list and calls it beside the audit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/env/env_facts.h"
#include "reports/env/known_issues.h"

namespace collbench::report {

// What one process is known to run: RankEnv.versions (nccl, cuda_driver, cuda_runtime, mpi,
// libfabric, efa_installer), completed from its NCCL log where the probe has nothing: nccl,
// ofi_plugin (aws-ofi-nccl) and libfabric.
std::map<std::string, std::string> known_versions(const RankEnv& rank);

// Findings, per entry of `list`:
//   KNOWN_BAD_VERSIONS     tag and priority of the entry  the versions, the hosts and ranks that run
//                                                        them, the fix and the source URL
// and when no entry matched:
//   NO_KNOWN_BAD_VERSIONS  PASS  at least one entry could be ruled out (those that could not are counted)
//   KNOWN_ISSUES_SKIPPED   INFO  no entry could be checked: the versions they need are not known
// An entry matches a rank only when every version it names is known there and in range, and none of
// its unless_env settings is in the rank's environment. `from_log`: the ranks stand for one log
// file (analyze): no hosts, and no environment to rule out a workaround, which the message says.
std::vector<Finding> known_version_findings(const std::vector<RankEnv>& ranks, const KnownIssueList& list,
                                            bool from_log = false);

// KNOWN_ISSUES_SKIPPED with the reason (no file, --known-issues none).
Finding known_issues_skipped(const std::string& why);

}  // namespace collbench::report
