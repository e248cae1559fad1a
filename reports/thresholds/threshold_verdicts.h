// Judges measured bus bandwidth against an instance type's thresholds.
#pragma once

#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"
#include "reports/thresholds/thresholds.h"

namespace collbench::report {

// Where the cases were measured: how many nodes the run spans, and their names for the evidence.
struct RunSpan {
  int nodes = 1;
  int ranks = 1;
  std::vector<std::string> hosts;
  std::vector<int> rank_ids = {};  // global rank numbers, when known: the subject of a one-node verdict
};

// Whether a row judges a run on `nodes` nodes: node rows one node, world rows their node range.
bool row_applies(const ThresholdRow& row, int nodes);

// One finding per applicable row: PASS, WARN (below warn_below), FAIL (below fail_below), or WARN
// when the sweep never reached the row's size. Rows that do not apply to this span are skipped;
// when none applies, one INFO says so. A bandwidth verdict on one node is about that node (its
// host and rank_ids); on more, about the world. The others are about the world.
std::vector<Finding> judge_thresholds(const std::vector<CaseResult>& cases, const InstanceThresholds& t,
                                      const RunSpan& span);

// THRESHOLDS_SKIPPED: a WARN (P2), which counts in Issues Found, since the verdict then says nothing
// about absolute bandwidth; an INFO when skipping them was asked for or is the design (`chosen`).
Finding thresholds_skipped(const std::string& why, bool chosen = false);

}  // namespace collbench::report
