// What preflight will do and how its budget is shared: pure decisions, printed before anything is
// measured.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/options.h"
#include "launcher/cli/command.h"
#include "reports/thresholds/thresholds.h"

namespace collbench {

// What a preflight phase is: which measurement runs it.
enum class PhaseKind { Environment, NodeSweep, WorldSweep, Pairs, Fabric };

struct PhasePlan {
  std::string name;   // environment, node, world, pairs, fabric
  std::string title;  // what it measures, for the plan
  double weight = 0;  // its part of the budget, among the phases that run
  bool runs = true;
  std::string reason;  // why it does not run
  PhaseKind kind = PhaseKind::Environment;
};

// The five phases for this world, each marked with whether it runs and why not.
std::vector<PhasePlan> preflight_plan(int nodes, int ranks, bool fabric_built, const std::vector<std::string>& skip);

// Phase i's share of `left_s`: its weight over the weights of the phases from i on that still run.
double phase_share_s(const std::vector<PhasePlan>& plan, std::size_t i, double left_s);

// Phase i's part of the whole budget, when every phase before it takes its own part.
double planned_share_s(const std::vector<PhasePlan>& plan, std::size_t i, double budget_s);

// The sweeps' largest size: -e when given, else the largest size a threshold of the instance judges
// on one node or on `nodes` nodes, else `fallback`.
std::uint64_t preflight_max_bytes(const PreflightOptions& o, const std::optional<report::InstanceThresholds>& t,
                                  int nodes, std::uint64_t fallback);

// The sweep of one phase over `ranks` ranks: all_reduce and all_to_all, out of place, float, from
// 1 KiB (more on large worlds, so all_to_all's share per peer is never empty) to max_bytes by 2,
// iterations adaptive with each case's time cap and each op's time limit from `share_s`.
RunOptions preflight_sweep(const RunOptions& base, Scope scope, int ranks, std::uint64_t max_bytes, double share_s);

// The plan block: one line per phase with its share, or why it does not run.
std::string render_preflight_plan(const std::vector<PhasePlan>& plan, double budget_s, int nodes, int ranks);

}  // namespace collbench
