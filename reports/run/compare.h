// Baseline comparison: case by case, with the per-iteration statistics of both runs, so that
// run-to-run noise is not called a regression.
#pragma once

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
  double z = 0;           // difference of mean times in standard errors; NaN without per-iteration statistics
  double floor = 0;       // the change this case must exceed: tolerance, or more where the runs are noisy
  std::string agreed;     // the neighbouring case that moved the same way ("the in_place case, -38.0%"), if any
  double cpu_wait = -1;   // the larger cpu_wait_share of the two runs' cases; < 0 unknown
  bool busy = false;      // cpu_wait above NoiseRule::max_cpu_wait
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

// The run-to-run noise a regression must exceed. Within-run standard errors understate it (two
// identical back-to-back 2-rank runs differed by 16% at 4 KiB, 5.8 standard errors), so a case's
// floor is the largest of: the tolerance; twice the largest in-place/out-of-place spread at its
// size and the neighbouring sizes, in either run (the same case measured twice, minutes apart);
// and three times the tolerance at latency-bound sizes (busbw under a tenth of the series' peak).
// A case whose processes waited for a CPU more than max_cpu_wait of its timed loop, in either run,
// was measured on a busy host: a drop there is inconclusive, never worse (a compiler sharing the
// two cores turned identical 2-rank runs into 75-99% "drops").
struct NoiseRule {
  double max_cpu_wait = 0.05;
  double spread_factor = 2;
  double latency_bound_share = 0.1;
  double latency_bound_factor = 3;
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
