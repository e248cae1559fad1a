#include "launcher/phases/preflight_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/sizes.h"

namespace collbench {

std::vector<PhasePlan> preflight_plan(int nodes, int ranks, bool fabric_built, const std::vector<std::string>& skip) {
  std::vector<PhasePlan> plan = {
      {"environment", "versions, variables, limits, devices and plugin on every rank (from the first sweep's set-up)",
       0, true, "", PhaseKind::Environment},
      {"node", "every node's own ranks at once (NVLink/NVSwitch): all_reduce and all_to_all", 0.2, true, "",
       PhaseKind::NodeSweep},
      {"world", "all ranks together: all_reduce and all_to_all", 0.3, true, "", PhaseKind::WorldSweep},
      {"pairs", "the hunt's screen: each node alone, then node pairs, then confirmation", 0.3, true, "",
       PhaseKind::Pairs},
      {"fabric", "libfabric ping-pong latency and streaming bandwidth between node pairs", 0.2, true, "",
       PhaseKind::Fabric},
  };
  const auto off = [&](const std::string& name, const std::string& why) {
    for (auto& p : plan)
      if (p.name == name && p.runs) p.runs = false, p.reason = why;
  };
  for (const auto& s : skip) off(s, "--skip " + s);
  if (nodes < 2) {
    off("world", "one node: the node sweep measured the whole world");
    off("pairs", "one node: no pairs of nodes to screen");
    off("fabric", "one node: no link between nodes to measure");
  }
  if (!fabric_built) off("fabric", "this collbench was built without libfabric");
  if (nodes > 0 && ranks / nodes < 2) off("node", "one rank per node: no link inside a node to measure");
  if (!plan[1].runs && !plan[2].runs) off("environment", "it is read by the sweeps, and both are left out");
  return plan;
}

double phase_share_s(const std::vector<PhasePlan>& plan, std::size_t i, double left_s) {
  if (i >= plan.size() || !plan[i].runs) return 0;
  double rest = 0;
  for (std::size_t j = i; j < plan.size(); ++j)
    if (plan[j].runs) rest += plan[j].weight;
  return rest > 0 ? std::max(0.0, left_s) * plan[i].weight / rest : 0;
}

double planned_share_s(const std::vector<PhasePlan>& plan, std::size_t i, double budget_s) {
  if (i >= plan.size() || !plan[i].runs) return 0;
  double all = 0;
  for (const auto& p : plan) all += p.runs ? p.weight : 0;
  return all > 0 ? budget_s * plan[i].weight / all : 0;
}

std::uint64_t preflight_max_bytes(const PreflightOptions& o, const std::optional<report::InstanceThresholds>& t,
                                  int nodes, std::uint64_t fallback) {
  if (o.max_bytes > 0) return o.max_bytes;
  std::uint64_t judged = 0;
  if (t)
    for (const auto& row : t->rows)
      if (row.scope == "node" || (nodes >= row.min_nodes && (row.max_nodes == 0 || nodes <= row.max_nodes)))
        judged = std::max(judged, row.bytes);
  return judged > 0 ? judged : fallback;
}

RunOptions preflight_sweep(const RunOptions& base, Scope scope, int ranks, std::uint64_t max_bytes, double share_s) {
  RunOptions o = base;
  o.ops = {Coll::AllReduce, Coll::AllToAll};
  o.dtypes = {DType::Float};
  o.placements = {Placement::OutOfPlace};
  o.scope = scope;
  // From 1 KiB, or where all_to_all gives every peer 16 bytes: below, sizes round to nothing.
  std::uint64_t min_bytes = 1024;
  while (min_bytes < 16ull * static_cast<std::uint64_t>(std::max(ranks, 1))) min_bytes *= 2;
  o.min_bytes = std::min(min_bytes, max_bytes);
  o.max_bytes = max_bytes;
  o.factor = 2;
  o.step_bytes = 0;
  o.warmup = 2;
  o.check_iters = 1;
  o.iters.adaptive = true;
  o.iters.min_samples = 5;
  o.iters.min_time_s = 0.01;
  const auto cases = static_cast<double>(sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0).size() * o.ops.size());
  // Half of each case's even share times it; warm-up, the check and gathering take the rest.
  o.iters.max_time_s = std::clamp(share_s / std::max(cases, 1.0) / 2, 0.02, 1.0);
  o.op_budget_s = share_s / static_cast<double>(o.ops.size());
  o.json_path.clear();
  return o;
}

std::string render_preflight_plan(const std::vector<PhasePlan>& plan, double budget_s, int nodes, int ranks) {
  std::string out = fmt::format("# Preflight: {} node(s), {} ranks; budget {:.0f} s shared by the phases that run "
                                "(set-up on top)\n",
                                nodes, ranks, budget_s);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& p = plan[i];
    if (!p.runs) out += fmt::format("#   {}. {:<11} skipped: {}\n", i + 1, p.name, p.reason);
    else if (p.weight == 0) out += fmt::format("#   {}. {:<11} {}\n", i + 1, p.name, p.title);
    else out += fmt::format("#   {}. {:<11} about {:.0f} s: {}\n", i + 1, p.name, planned_share_s(plan, i, budget_s), p.title);
  }
  return out;
}

}  // namespace collbench
