// Concurrent groups judged against each other: every node's own collective (--scope node, the
// hunt's node phase) or every rail, local rank i of all nodes (--scope rail). Relative only, like
// the pair attribution; thresholds judge absolute levels.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/outliers.h"

namespace collbench::report {

enum class GroupKind { Node, Rail };

struct GroupScore {
  std::string label;      // host name for a node, "local rank 3" for a rail
  double busbw_gbs = 0;   // the group's figure (a median over iterations)
  std::size_t samples = 0;
  double noise_gbs = 0;   // spread of its iterations (scaled MAD or standard deviation); 0: unknown
  std::vector<int> ranks = {};          // the group's global ranks, when known
  std::vector<std::string> hosts = {};  // a rail's nodes; a node group with none is the host in `label`
};

struct GroupVerdict {
  enum class Kind { Healthy, Slow, Inconclusive } kind = Kind::Healthy;
  double drop = 0;  // fraction below the median of the groups
  std::string reason;  // for Inconclusive
};

struct GroupJudgement {
  double reference = 0;  // median of the group scores
  double spread = 0;     // largest drop below the reference
  std::vector<GroupVerdict> groups;  // by index
};

struct GroupRule : OutlierRule {
  std::size_t min_samples = 3;
};

// Needs three groups to name one: with two, a gap says one of them is off but not which, and
// both are inconclusive. Far below (3 x min_drop) but within the spread is inconclusive too, and
// so is a gap within the noise of the iterations (less than mad_k standard errors of a median).
GroupJudgement judge_groups(const std::vector<GroupScore>& groups, const GroupRule& rule = {});

// Two runs of the same groups: slow only when slow in both; healthy when the second run is and
// the first was at most in doubt; otherwise inconclusive. Drops and reference from `second`.
GroupJudgement combine_runs(const GroupJudgement& first, const GroupJudgement& second);

// A node judged slow while its CPUs were oversubscribed (more runnable tasks than cores, as
// `runnable_per_core` by group says) is put in doubt instead: CPU contention slows a node's own
// collective (the mpi backend's copies, progress threads) without anything wrong in its path.
void excuse_busy_hosts(GroupJudgement& j, const std::vector<double>& runnable_per_core);

// SLOW_NODE_LOCAL / SLOW_RAIL (FAIL P1), GROUPS_INCONCLUSIVE (WARN P2) or GROUPS_EVEN (PASS); nothing
// when no group moved data (one rank each). Subjects: the slow node or rail, the doubtful ones
// together, the world for GROUPS_EVEN;
// `what` names the measurement, e.g. "all_reduce busbw at 64 MiB".
std::vector<Finding> group_findings(const std::vector<GroupScore>& groups, const GroupJudgement& j, GroupKind kind,
                                    const std::string& what);

}  // namespace collbench::report
