#include "launcher/verdicts/run_verdicts.h"

#include <fmt/format.h>

#include "launcher/inputs/known_issue_input.h"
#include "launcher/inputs/result_input.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/run/compare.h"
#include "reports/run/curve_verdicts.h"
#include "reports/env/env_audit.h"
#include "reports/thresholds/instance_types.h"
#include "reports/core/json_report.h"
#include "reports/core/oversubscription.h"
#include "reports/run/arrival.h"
#include "reports/run/judged.h"
#include "reports/run/result_verdicts.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench {
namespace {

using report::Finding;

// World cases are judged as a whole; each node group as one node; rail groups have no thresholds.
std::vector<Finding> scope_threshold_findings(const VerdictOptions& v, const std::string& instance_type,
                                              const std::optional<report::InstanceThresholds>& t,
                                              const std::vector<report::CaseResult>& cases,
                                              const report::WorldInfo& world, const GroupLayout& layout) {
  if (layout.scope == Scope::Rail)
    return {report::thresholds_skipped("rail groups are judged against each other, not against thresholds",
                                       /*chosen=*/true)};
  if (layout.scope == Scope::World) {
    report::RunSpan span{static_cast<int>(world.nodes.size()), world.ranks, {}, {}};
    for (const auto& n : world.nodes) {
      span.hosts.push_back(n.name);
      span.rank_ids.insert(span.rank_ids.end(), n.ranks.begin(), n.ranks.end());
    }
    return threshold_findings(v, instance_type, t, cases, span);
  }
  std::vector<Finding> out;
  for (std::size_t g = 0; g < layout.groups.size(); ++g) {
    std::vector<report::CaseResult> mine;
    for (const auto& c : cases)
      if (c.group.id == static_cast<int>(g)) mine.push_back(c);
    for (auto& c : mine) c.group.scope = Scope::World;  // one node's collective is that node's whole world
    const report::RunSpan span{1, static_cast<int>(layout.groups[g].ranks.size()), {layout.labels[g]},
                               layout.groups[g].ranks};
    for (auto& f : threshold_findings(v, instance_type, t, mine, span)) out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

RunFindings run_findings(const RunJudgement& j, const report::RunHeader& header,
                         const std::vector<report::CaseResult>& cases, const std::vector<report::RankEnv>& envs,
                         const GroupLayout& layout) {
  const auto& world = header.world;
  // Both files were checked before anything ran (check_verdict_inputs); one that broke since is
  // said, and the other findings stay.
  std::vector<Finding> broken;
  const auto unusable = [&](const std::string& what, const std::exception& e) {
    broken.push_back({"VERDICT_INPUT_CHANGED", report::Tag::Warn, report::Priority::P1,
                      fmt::format("{} was readable when the run started and is not now ({}): its verdicts are missing "
                                  "from this run; fix the file and judge the JSON with analyze or compare",
                                  what, e.what()),
                      "", report::Subject::world()});
  };
  std::optional<report::InstanceThresholds> thresholds;
  try {
    thresholds = thresholds_for(j.verdict, j.instance_type);
  } catch (const std::exception& e) {
    unusable("--thresholds " + j.verdict.thresholds, e);
  }
  report::AuditContext ctx;
  ctx.instance_type = j.instance_type;
  if (thresholds) ctx.profile = thresholds->hardware;
  ctx.efa_expected = report::efa_capable(j.instance_type);
  ctx.backend = world.backend;
  ctx.gpus_per_process = world.gpus_per_process;
  RunFindings out;
  out.environment = report::audit_environment(envs, ctx);
  for (auto& f : known_issue_findings(j.verdict, envs)) out.environment.push_back(std::move(f));
  std::vector<Finding>& findings = out.results;
  findings = result_findings(cases, world.nodes);
  const auto crowded = report::oversubscribed(world.rank_info);
  if (crowded) findings.push_back(report::oversubscribed_finding(*crowded));
  for (auto& f : report::late_rank_findings(cases, crowded)) findings.push_back(std::move(f));
  if (auto f = report::single_rank_finding(world.ranks)) findings.push_back(std::move(*f));
  if (report::curve_rule_applies(world.backend))
    for (auto& f : report::curve_dip_findings(cases)) findings.push_back(std::move(f));
  if (broken.empty())
    for (auto& f : scope_threshold_findings(j.verdict, j.instance_type, thresholds, cases, world, layout))
      findings.push_back(std::move(f));
  for (auto& f : group_comparison_findings(layout, cases, world.nodes)) findings.push_back(std::move(f));
  if (!j.baseline.empty()) {
    try {
      const nlohmann::json current = report::run_document(header, cases, {}, {});
      const auto comparison = report::compare_runs(load_results_document(j.baseline), current, j.tolerance);
      for (const auto& f : comparison.findings) findings.push_back(f);
    } catch (const std::exception& e) {
      unusable("--baseline " + j.baseline, e);
    }
  }
  findings.insert(findings.end(), broken.begin(), broken.end());
  return out;
}

}  // namespace collbench
