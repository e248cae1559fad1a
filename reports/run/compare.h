// Baseline comparison: case by case, with the per-iteration statistics of both runs, so that
// run-to-run noise is not called a regression.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench::report {

enum class Change { Better, Same, Worse, Inconclusive };
std::string change_name(Change c);

struct CaseComparison {
  std::string op, dtype, placement;
  std::uint64_t bytes = 0;
  std::string group_scope = "world";
  int group_id = 0;
  double base_busbw = 0, cur_busbw = 0;
  double rel_change = 0;  // (cur - base) / base of busbw; negative is slower
  double median_change = NAN;  // the same from the median times: did the bulk of the iterations move; NaN unknown
  double change = 0;      // the change judged: median_change where known, else rel_change
  double z = 0;           // difference of the times in standard errors (compare_runs); NaN without statistics
  double noise = 0;       // the case's own spread (MAD / median, or stdev / mean), the larger of the two runs
  double floor = 0;       // the change this case must exceed: tolerance, or more where its own samples are noisy
  bool latency_bound = false;  // busbw under NoiseRule::latency_bound_share of its series' peak
  std::string agreed;     // the neighbouring case that moved the same way ("the in_place case, -38.0%"), if any
  double cpu_wait = -1;   // the larger cpu_wait_share of the two runs' cases; < 0 unknown
  bool busy = false;      // cpu_wait above NoiseRule::max_cpu_wait
  std::string crowded;    // a latency-bound case of a run whose ranks outnumbered a machine's cores: why
  std::string doubt;      // why an inconclusive case is not worse
  Change verdict = Change::Same;
  Subject group;  // where the case ran: the world, or one node or rail of a --scope node|rail run
};

struct Comparison {
  double tolerance = 0;        // the one applied
  std::string tolerance_basis; // "--tolerance", or why the default
  std::vector<CaseComparison> cases;
  std::vector<std::string> mismatches;       // setups that differ
  std::vector<std::string> version_changes;  // "nccl 2.27.7 -> 2.28.9"
  std::vector<Finding> findings;
};

// Classifies one case pair: a change within `floor` is Same; beyond it, Worse or Better only when
// the difference of mean times exceeds `z_min` standard errors (or none are known: NaN) and a
// neighbouring case moved the same way (`agreed`), else Inconclusive (a drop) or Same (a gain).
Change classify(double rel_change, double z, double floor, bool agreed = true, double z_min = 3.0);

// The run-to-run noise a regression must exceed, from each case's own data only. Two different
// cases (in-place and out-of-place do different work; neighbouring sizes take other protocols)
// are never taken as each other's repeat: a gap between them says nothing about either's noise.
// The change judged is the median time's where both runs give one (the bulk of the iterations;
// busbw, from the mean as nccl-tests computes it, must drop too), else busbw's.
// - floor = max(tolerance, noise_factor x the case's own spread in the noisier run, MAD / median):
//   a case whose iterations scatter by 40% cannot show a 30% change; one that agrees to 2% can.
// - significance: the times differ by z_min standard errors (of the medians where MADs are known).
// - a neighbour agrees: the other placement at the size, or the same placement one size either
//   way, moved beyond the tolerance the same way. At latency-bound sizes (busbw under
//   latency_bound_share of the series' peak), whose timings drift most between identical runs,
//   that neighbour must be past its own floor and significant: more evidence, not a wider floor.
// A drop of the mean alone (the median stayed) is a few slow iterations: inconclusive. So is a
// drop whose processes waited for a CPU more than max_cpu_wait of the timed loop, in either run
// (a compiler sharing the two cores turned identical 2-rank runs into 75-99% "drops"), and a
// latency-bound drop of a run whose ranks outnumbered a machine's cores (oversubscription.h).
struct NoiseRule {
  double max_cpu_wait = 0.05;
  double noise_factor = 1;
  double latency_bound_share = 0.1;
  double z_min = 3;
};

// The tolerance when none is given: 5% for GPU (nccl) and external results; 25% when either run is on
// the mpi backend. Its collectives are host memcpy and reductions on a shared machine, whose speed
// drifts between identical runs: 10 pairs of back-to-back 2-rank runs here differed at 1 MiB and up
// by -22.6% (1st percentile) and -30.3% (largest drop), at every size, both placements agreeing
// (scripts/rerun-noise.sh). The basis is said in the findings.
struct Tolerance {
  double value = 0.05;
  std::string basis;
};
Tolerance default_tolerance(const nlohmann::json& base, const nlohmann::json& cur);

// Both documents are collbench.run/1. Different rank or node counts or instance types are
// reported, not compared. Cases match on op, datatype, placement, size and group (scope and id).
// A REGRESSION or REGRESSION_INCONCLUSIVE is about the case's group; the rest about the world.
// Unknown world facts (a text input names no instance type or backend) are not mismatches.
// `tolerance`: the user's, or nullopt for default_tolerance.
Comparison compare_runs(const nlohmann::json& base, const nlohmann::json& cur, std::optional<double> tolerance,
                        const NoiseRule& noise = {});

// A readable table of the case verdicts.
std::string render_comparison(const Comparison& c);

}  // namespace collbench::report
