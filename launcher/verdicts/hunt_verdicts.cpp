#include "launcher/verdicts/hunt_verdicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/short_list.h"
#include "launcher/job/budget.h"
#include "reports/pairs/busy_hosts.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/core/references.h"
#include "reports/core/text_table.h"

namespace collbench {

using report::Finding;

std::string pairs_text(const std::vector<std::pair<int, int>>& pairs, const std::vector<report::NodeInfo>& nodes) {
  std::string out;
  for (const auto& [a, b] : pairs) out += fmt::format("{}{}<->{}", out.empty() ? "" : "  ", nodes[a].name, nodes[b].name);
  return out;
}

std::string hunt_plan_text(const report::HuntPlan& p, const Schedule& s, bool node_phase, const report::WorldInfo& w) {
  std::string out = fmt::format("# Hunt: {} nodes, {} ranks, pattern {}: {} at {} ({}), up to {} iterations per pair "
                                "and round\n",
                                w.nodes.size(), w.ranks, p.pattern, p.op, size_text(p.bytes),
                                p.bytes_probed ? "chosen by the probe: about 5 ms per iteration on the median pair" : "-b",
                                p.max_iters);
  if (node_phase) out += "#   node phase: every node's own ranks together, all nodes at once\n";
  for (std::size_t r = 0; r < s.size(); ++r)
    out += fmt::format("#   pair round {}: {}\n", r + 1, pairs_text(s[r].pairs, w.nodes));
  out += "#   then a confirmation round for each suspect, paired with a healthy node, and each doubtful link again\n";
  out += fmt::format("# Budget: {:.0f} s for the whole hunt{}; each round gets a share and ends when it is spent or "
                     "the iterations are done (one iteration of the median pair takes {:.3g} ms)\n",
                     p.budget_s, p.budget_s == default_budget_s(p.planned_rounds) ? " (default: 60 s + 15 s per round)" : "",
                     p.probe_iteration_s * 1e3);
  return out;
}

Finding hunt_budget_finding(const report::HuntRecord& r, const std::vector<std::string>& names) {
  std::vector<std::string> listed;
  for (const auto& [a, b] : r.not_measured) listed.push_back(fmt::format("{}<->{}", names[a], names[b]));
  const std::string pairs = short_list(listed, 8, ", ");
  return {"HUNT_BUDGET_SPENT", report::Tag::Warn, report::Priority::P2,
          fmt::format("the budget of {:.0f} s ran out before {}{}{}; the verdicts use what was measured; rerun with a "
                      "larger --budget, or a smaller -b or -n",
                      r.plan.budget_s, r.node_phase_skipped ? "the node phase" : "",
                      r.node_phase_skipped && !pairs.empty() ? " and " : "",
                      pairs.empty() ? "" : "these pairs were measured: " + pairs),
          report::ref::kStraggler};
}

HuntVerdict judge_hunt(const report::HuntRecord& record, const report::WorldInfo& world,
                       const std::vector<std::string>& names) {
  HuntVerdict out;
  const std::string what = fmt::format("{} busbw at {}", record.plan.op, size_text(record.plan.bytes));
  std::vector<Finding>& findings = out.findings;
  if (!record.node_phase.empty()) {
    std::printf("#\n# Node phase: each node's own %s\n", what.c_str());
    findings = report::group_findings(record.node_phase, record.node_judgement, report::GroupKind::Node, what);
  }
  report::AttributionOptions rule;
  rule.require_confirmation = true;
  if (auto busy = report::busy_hosts_finding(record.runnable_per_core, names,
                                              {"the hunt", " and a node's own collective",
                                               ", and a node slow on its own path is left in doubt"})) {
    rule = report::busy_host_rule(rule);
    findings.push_back(std::move(*busy));
  }
  out.attribution = report::attribute(record.samples, static_cast<int>(names.size()), rule);
  if (!record.not_measured.empty() || record.node_phase_skipped) findings.push_back(hunt_budget_finding(record, names));
  std::vector<std::vector<int>> ranks;
  for (const auto& node : world.nodes) ranks.push_back(node.ranks);
  for (auto& f : report::attribution_findings(out.attribution, names, "pair " + what, ranks))
    findings.push_back(std::move(f));
  std::printf("#\n# Pair busbw (GB/s), median of the iterations of each pair\n%s",
              report::render_matrix(out.attribution, names).c_str());
  return out;
}

}  // namespace collbench
