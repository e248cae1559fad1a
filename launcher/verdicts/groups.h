// How --scope splits the ranks into concurrent groups, and each case's results per group.
#pragma once

#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/sweep.h"
#include "reports/core/findings.h"
#include "reports/core/result.h"
#include "reports/core/case_summary.h"
#include "reports/core/stats.h"

namespace collbench {

struct GroupLayout {
  Scope scope = Scope::World;
  std::vector<report::GroupInfo> groups; // in id order; ranks ascending
  std::vector<std::string> labels;       // "node-a", "rail 3", "all ranks"
  std::vector<int> group_of_rank;        // by global rank
};

// world: one group; node: one per node; rail: local rank i of every node. Throws UsageError when
// the groups would differ in size (every group runs the same plan) or a process drives several
// rails (-g > 1 with --scope rail).
GroupLayout make_layout(Scope scope, const report::WorldInfo& world);

// One result per group for a finished case (rank 0). `busbw_factor(n)` is the op's factor.
std::vector<report::CaseResult> results_by_group(const CaseMeasurement& m, const report::RawCase& base,
                                                 double (*busbw_factor)(int), const GroupLayout& layout,
                                                 const report::WorldInfo& world, report::RankReduce how);

// node|rail scope: the groups judged against each other (reports/pairs/group_verdicts.h) on each op's
// largest out-of-place size, by the busbw of the median iteration. Nothing for world scope. `nodes`
// (the world's) names the hosts in the findings' subjects.
std::vector<report::Finding> group_comparison_findings(const GroupLayout& layout,
                                                       const std::vector<report::CaseResult>& cases,
                                                       const std::vector<report::NodeInfo>& nodes);

}  // namespace collbench
