// From an attribution (reports/pairs/attribution.h) to findings. One walk for every pair measure —
// hunt's pair busbw, fabric's latency and bandwidth — so a slow node, a slow link, a fabric-wide
// round, a doubt and a pass read alike whichever command found them; only the words below differ.
#pragma once

#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/pairs/attribution.h"

namespace collbench::report {

// What the attribution's indices stand for.
struct PairUnits {
  std::vector<std::string> names;       // by index; "n<i>" where missing
  std::vector<std::vector<int>> ranks;  // each unit's global ranks (may be empty)
  std::string host;                     // set when the units are ranks of this one node
  bool are_ranks() const { return !host.empty(); }
};

// Bandwidth is judged and printed in GB/s; latency is judged as a rate (1000/us, fabric_math.h) so
// that higher is better, and printed in microseconds.
enum class PairScale { Bandwidth, Latency };

struct PairWords {
  std::string what;  // the measure, e.g. "pair all_reduce busbw at 64 MiB"
  PairScale scale = PairScale::Bandwidth;
  std::string slow_node_code, slow_link_code, inconclusive_code, pass_code, one_pair_code;
  std::string node_advice;     // after a slow node's evidence; may be empty
  std::string drain_reason;    // Slurm reason of the drain hint for a slow node (nodes only; empty: none)
  std::string wide_reference;  // where FABRIC_WIDE_SLOWDOWN points
  std::string more_samples;    // the options that take more samples, e.g. "-n, --bw-iters"
  std::string one_pair_hint;   // what can still be told when the units make one pair
};

// In this order: the one-pair INFO (and nothing else, when there is one pair), slow nodes (FAIL P1),
// slow links (FAIL P1), FABRIC_WIDE_SLOWDOWN (WARN P1), doubtful units and doubtful pairs (WARN P2,
// one finding each), and the PASS when nothing was named or doubted.
std::vector<Finding> pair_findings(const Attribution& a, const PairUnits& units, const PairWords& words);

// A judged value in its unit ("3.21 GB/s", "12.5 us") and how far worse than a reference it is
// ("35% below", "240% above"); `drop` is the fraction of the rate below the reference.
std::string pair_value_text(PairScale s, double rate);
std::string pair_worse_text(PairScale s, double drop);

}  // namespace collbench::report
