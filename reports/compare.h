// Baseline comparison: case by case, with the per-iteration statistics of both runs, so that
// run-to-run noise is not called a regression.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/findings.h"

namespace collbench::report {

enum class Change { Better, Same, Worse, Inconclusive };
std::string change_name(Change c);

struct CaseComparison {
  std::string op, dtype, placement;
  std::uint64_t bytes = 0;
  double base_busbw = 0, cur_busbw = 0;
  double rel_change = 0;  // (cur - base) / base of busbw; negative is slower
  double z = 0;           // difference of mean times in standard errors
  Change verdict = Change::Same;
  Subject group;  // where the case ran: the world, or one node or rail of a --scope node|rail run
};

struct Comparison {
  std::vector<CaseComparison> cases;
  std::vector<std::string> mismatches;       // setups that differ
  std::vector<std::string> version_changes;  // "nccl 2.27.7 -> 2.28.9"
  std::vector<Finding> findings;
};

// Classifies one case pair: a change within `tolerance` is Same; beyond it, Worse or Better only
// when the difference of mean times exceeds `z_min` standard errors, else Inconclusive (a drop) or
// Same (a gain).
Change classify(double rel_change, double z, double tolerance, double z_min = 3.0);

// Both documents are collbench.run/1. Different rank or node counts or instance types are
// reported, not compared. Cases match on op, datatype, placement, size and group (scope and id).
// A REGRESSION or REGRESSION_INCONCLUSIVE is about the case's group; the rest about the world.
Comparison compare_runs(const nlohmann::json& base, const nlohmann::json& cur, double tolerance);

// A readable table of the case verdicts.
std::string render_comparison(const Comparison& c);

}  // namespace collbench::report
