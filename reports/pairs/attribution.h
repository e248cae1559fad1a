// Straggler attribution: from bandwidths measured by node pairs (bench/schedules.h) to verdicts on
// nodes, links and rounds. Relative only: a node or link is judged against the rest of the same
// cluster; absolute levels are the thresholds' job.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/outliers.h"

namespace collbench::report {

// One node pair's repeated measurements in one round of a schedule. Confirmation samples re-measure
// a suspect against healthy partners (or a doubtful link again) after the verdict of the others.
struct PairSample {
  int a = 0, b = 0;
  int round = 0;
  // Per iteration, higher is better: busbw GB/s (hunt), unidirectional GB/s or 1/latency (fabric).
  std::vector<double> rates;
  bool confirmation = false;
};

struct AttributionOptions : OutlierRule {
  int min_samples_per_pair = 3;
  double fabric_wide_frac = 0.5;  // share of a round's pairs that makes it fabric-wide
  // A straggler or slow link is named only when the confirmation samples show it slow again;
  // without them it stays in doubt. Off: the verdict of the first samples (to plan confirmation).
  bool require_confirmation = false;
};

struct NodeVerdict {
  int node = 0;
  double score = 0;      // median over partners of the pair medians (pairs with stragglers left out)
  double drop = 0;       // fraction below the reference (a straggler's) or the cluster median (others)
  double reference = 0;  // median of the pairs without this node, which its pairs were held against
  std::vector<std::pair<int, double>> worst_partners;  // up to 3, slowest first
  enum class Kind { Healthy, Straggler, Inconclusive } kind = Kind::Healthy;
  std::string reason;  // why, for Inconclusive; how it was confirmed, for Straggler
};

struct LinkVerdict {
  int a = 0, b = 0;
  double median = 0;
  double drop = 0;     // fraction below pair_median
  std::string reason;  // why it is in doubt, for a suspect link
};

struct Attribution {
  bool two_nodes = false;     // one pair is all there is: nothing to hold it against
  double cluster_median = 0;  // median of node scores
  double mad = 0;             // scaled MAD of node scores (before the floor)
  double pair_median = 0;     // median of the pair medians that the link rule compares against
  std::vector<NodeVerdict> nodes;  // one per node, by index
  std::vector<LinkVerdict> slow_links;
  // Slow next to the other pairs but within the noise of its own iterations, or far below them
  // (at least 3x min_drop) but within their spread: not named, not passed either; inconclusive.
  std::vector<LinkVerdict> suspect_links;
  std::vector<int> fabric_wide_rounds;
  std::vector<std::vector<double>> matrix;  // node x node median busbw over all samples, NaN where unmeasured
};

// Leave-one-out: node X is held against the pairs without X (their median, and a spread from
// those pairs or, when there are few, from their iterations), so a slow node does not widen its
// own yardstick; X is a straggler when it is slow with (nearly) every partner, a pair is a slow
// link when it is slow against the other pairs while its ends are not. Stragglers are peeled off
// worst first and left out of the rest.
// Throws std::invalid_argument for a sample naming a node outside 0..nodes-1 or a self pair.
Attribution attribute(const std::vector<PairSample>& samples, int nodes, const AttributionOptions& opt = {});

// STRAGGLER_NODE, SLOW_LINK, FABRIC_WIDE_SLOWDOWN, HUNT_INCONCLUSIVE, HUNT_TWO_NODES or NO_STRAGGLER; `what` names
// the measurement, e.g. "pair all_reduce busbw at 64 MiB".
// `ranks`: each node's global ranks, for the findings' subjects (may be empty).
std::vector<Finding> attribution_findings(const Attribution& a, const std::vector<std::string>& node_names,
                                          const std::string& what, const std::vector<std::vector<int>>& ranks = {});

// Node x node matrix with short labels n0..nN-1, a legend mapping them to host names, values with
// one decimal, '-' on the diagonal and where unmeasured; stragglers' rows are marked '*'.
std::string render_matrix(const Attribution& a, const std::vector<std::string>& names);

}  // namespace collbench::report
