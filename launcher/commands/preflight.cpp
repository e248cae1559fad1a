#include "launcher/commands/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/mpi_control.h"
#include "bench/ofi/lanes.h"
#include "launcher/job/agree.h"
#include "launcher/job/budget.h"
#include "launcher/phases/fabric_phase.h"
#include "launcher/commands/finish.h"
#include "launcher/phases/hunt_phase.h"
#include "launcher/phases/preflight_plan.h"
#include "launcher/job/stop_signals.h"
#include "launcher/phases/phase_frame.h"
#include "launcher/phases/run_phase.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/core/journal.h"
#include "reports/preflight/preflight_json.h"
#include "reports/core/references.h"

namespace collbench {
namespace {

using report::Finding;

// A phase that could not set up: its own outcome, never a node's fault.
Finding setup_error(const std::string& phase, int code) {
  return {"SETUP_ERROR", report::Tag::Fail, report::Priority::P0,
          fmt::format("the {} phase could not set up (exit {}; each process that failed said why on stderr): a "
                      "launch, driver, library or peer problem, not a verdict on any node; the phases after it did "
                      "not run",
                      phase, code),
          report::ref::kErrorPatterns, report::Subject::world()};
}

// One preflight: its plan, its record (changed under `mutex`: a stop signal reads it) and its journal.
struct Preflight {
  Control& control;
  const Command& cmd;
  const std::vector<std::string>& argv;
  bool color = false;
  Budget budget;  // rank 0's clock rules
  // Every member below has an initializer, so the brace initialisation in preflight_command
  // names only the five above.
  std::mutex mutex{};
  report::PreflightRecord record{};
  std::optional<report::Journal> journal{};
  std::vector<PhasePlan> plan{};
  std::uint64_t max_bytes = 0;
  std::vector<Finding> environment{}, discarded{};
  bool environment_read = false;
  std::optional<int> stopped{};  // the exit code of a phase that could not set up
};

// The record's header, bad input (the thresholds, for the sizes they judge, and the output file),
// the sweeps' largest size and the plan, printed. 0 or the agreed exit code.
int set_up(Preflight& p) {
  const PreflightOptions& o = p.cmd.preflight;
  const int rank = p.control.rank();
  report::PreflightRecord& record = p.record;
  record.tool_version = COLLBENCH_VERSION;
  record.started_at = now_utc();
  record.argv = p.argv;
  record.budget_s = o.budget_s;
  for (const auto& node : ofi::nodes_of(p.control.all_gather_strings(this_host()))) record.hosts.push_back(node.name);
  record.ranks = p.control.size() * p.cmd.run.gpus;
  const int nodes = static_cast<int>(record.hosts.size());
  std::optional<report::InstanceThresholds> thresholds;
  if (int code = agree(p.control, [&] {
        if (rank != 0) return;
        thresholds = thresholds_for(p.cmd.verdict, local_instance_type(p.cmd.verdict));
        if (!o.json.empty())
          open_journal(p.journal, o.json,
                       nlohmann::json{{"schema", report::kPreflightPartialSchema},
                                      {"started_at", record.started_at}, {"argv", p.argv}});
      }))
    return code;
  const std::uint64_t max_bytes = preflight_max_bytes(o, thresholds, nodes, RunOptions{}.max_bytes);
  p.max_bytes = static_cast<std::uint64_t>(p.control.broadcast(static_cast<double>(max_bytes)));
  p.plan = preflight_plan(nodes, record.ranks, fabric_available(), o.skip);
  if (rank == 0) {
    std::fputs(render_preflight_plan(p.plan, o.budget_s, nodes, record.ranks).c_str(), stdout);
    std::fflush(stdout);
  }
  return 0;
}

// A stop signal or a hang: the phases so far, the one it stopped with what it measured (`inner`),
// "complete": false.
StopSaved stopped_early(Preflight& p, const EarlyEnd& end, const nlohmann::json& inner) {
  std::lock_guard lock(p.mutex);
  report::PreflightRecord now = p.record;
  // The phase running is the last one begun, until it has a status (the environment phase, first,
  // gets its status after the loop).
  report::PreflightPhase* running =
      now.phases.size() > 1 && now.phases.back().status.empty() ? &now.phases.back() : nullptr;
  const std::string where =
      running ? fmt::format("in phase {} of {} ({})", now.phases.size(), p.plan.size(), running->name) : "between phases";
  const Finding why =
      early_end_finding(end, where + (p.journal ? "; the phases so far are saved with \"complete\": false" : ""));
  if (running) {
    running->status = end.signo != 0 ? "stopped" : "failed";
    running->document = inner;
  }
  if (report::PreflightPhase* holder = running ? running : now.phases.empty() ? nullptr : &now.phases.front())
    holder->findings.push_back(why);
  now.wall_s = p.budget.elapsed_s();
  now.finished_at = now_utc();
  nlohmann::json doc = report::preflight_document(now, {}, end.exit_code);
  mark_incomplete(doc, why);
  if (p.journal) p.journal->finish(doc, false);
  return {std::move(doc), why, p.color};
}

// The measurement of one phase, within `share_s` of the budget.
PhaseResult run_one(Preflight& p, const PhasePlan& phase, double share_s) {
  const Command& cmd = p.cmd;
  switch (phase.kind) {
    case PhaseKind::NodeSweep:
    case PhaseKind::WorldSweep: {
      const Scope scope = phase.kind == PhaseKind::NodeSweep ? Scope::Node : Scope::World;
      const RunOptions sweep = preflight_sweep(cmd.run, scope, p.record.ranks, p.max_bytes, share_s);
      RunPhaseSpec spec{sweep, cmd.verdict, p.argv, p.color, "", std::nullopt,
                        p.environment_read ? &p.discarded : &p.environment};
      PhaseResult r = run_phase(p.control, spec);
      p.environment_read |= r.status == PhaseResult::Status::Ran;
      return r;
    }
    case PhaseKind::Pairs: {
      RunOptions run = cmd.run;
      HuntOptions hunt;
      hunt.budget_s = share_s;
      run.ops = {Coll::AllReduce};
      run.iters.adaptive = false;
      run.iters.fixed = hunt.iters;
      run.progress = false;
      return hunt_phase(p.control, {run, hunt, p.argv, p.color});
    }
    case PhaseKind::Fabric: {
      FabricOptions fabric;
      fabric.provider = cmd.preflight.provider;
      fabric.budget_s = share_s;
      fabric.timeout_s = cmd.run.timeout_s;
      return fabric_phase(p.control, {fabric, cmd.verdict, p.argv, p.color});
    }
    case PhaseKind::Environment: break;  // read by the first sweep
  }
  return skipped_phase("read by the first sweep");
}

// Every phase in plan order; kExitUsage when one refused its input, else 0.
int run_phases(Preflight& p) {
  const int rank = p.control.rank();
  for (std::size_t i = 0; i < p.plan.size(); ++i) {
    const PhasePlan& plan = p.plan[i];
    std::unique_lock lock(p.mutex);
    report::PreflightPhase& phase = p.record.phases.emplace_back();
    phase.name = plan.name;
    if (plan.kind == PhaseKind::Environment) continue;  // settled after the loop
    if (!plan.runs || p.stopped) {
      phase.status = "skipped";
      phase.reason = !plan.runs ? plan.reason : "an earlier phase could not set up";
      continue;
    }
    lock.unlock();
    const double left_s = p.cmd.preflight.budget_s - p.budget.elapsed_s();
    const double share = p.control.broadcast(rank == 0 ? phase_share_s(p.plan, i, left_s) : 0.0);
    phase.budget_s = share;
    if (rank == 0) {
      std::printf("#\n# ---- phase %zu of %zu: %s, up to %.0f s\n", i + 1, p.plan.size(), plan.name.c_str(), share);
      std::fflush(stdout);
    }
    PhaseResult r = run_one(p, plan, share);
    lock.lock();
    phase.status = status_name(r.status);
    phase.reason = r.reason;
    phase.wall_s = r.wall_s;
    phase.findings = std::move(r.findings);
    if (r.status == PhaseResult::Status::Failed) {
      if (r.exit_code == kExitUsage) return kExitUsage;  // bad input, said by the processes that saw it
      p.stopped = r.exit_code;
      phase.findings.push_back(setup_error(plan.name, r.exit_code));
    }
    if (rank == 0 && r.document)
      phase.document = r.document(phase.findings, report::exit_code_for(phase.findings, p.cmd.verdict.fail_on_warn));
    if (rank == 0 && p.journal) p.journal->append_line({{"phase", report::to_json(phase)}});
  }
  return 0;
}

// The environment phase's status and findings, once the sweeps have run; true when nothing ran.
bool settle(Preflight& p) {
  std::lock_guard lock(p.mutex);
  report::PreflightPhase& env_phase = p.record.phases.front();
  env_phase.status = p.environment_read ? "ran" : "skipped";
  if (!p.environment_read)
    env_phase.reason = p.plan.front().runs ? "no sweep set up, so nothing read it" : p.plan.front().reason;
  env_phase.findings = std::move(p.environment);
  const bool nothing_ran = std::none_of(p.record.phases.begin() + 1, p.record.phases.end(),
                                        [](const auto& phase) { return phase.status == "ran"; });
  if (nothing_ran)
    env_phase.findings.push_back(
        {"PREFLIGHT_NOTHING_RAN", report::Tag::Warn, report::Priority::P1,
         "no phase measured anything (each was skipped, for the reason in the plan): this is no go-ahead; drop "
         "--skip, or run on the nodes the job will use",
         report::ref::kMultiNode, report::Subject::world()});
  p.record.wall_s = p.budget.elapsed_s();
  p.record.finished_at = now_utc();
  p.record.valid_until = utc_after(p.cmd.preflight.valid_for_s);
  return nothing_ran;
}

// Findings, document and the GO / NO-GO line. finish() is collective: no lock is held across it.
int end(Preflight& p, bool nothing_ran) {
  const std::vector<Finding> findings = report::all_findings(p.record);
  const auto hints = report::scheduler_hints(findings, std::getenv("KUBERNETES_SERVICE_HOST") != nullptr);
  Ending ending{findings, true, nullptr, p.stopped};
  if (p.journal)
    ending.save = [&](const std::vector<Finding>&, int code) {
      p.journal->finish(report::preflight_document(p.record, hints, code));
    };
  ending.document = [&](const std::vector<Finding>&, int code) { return report::preflight_document(p.record, hints, code); };
  const int code = finish(p.control, p.cmd.verdict, p.color, ending);
  if (p.control.rank() == 0) {
    std::printf("%s# preflight: %s in %.0f s (budget %.0f s); valid until %s\n", report::render_hints(hints).c_str(),
                nothing_ran                ? "NOTHING RAN"
                : code == kExitOk          ? "GO"
                : code == kExitCouldNotRun ? "COULD NOT RUN"
                                           : "NO-GO",
                p.record.wall_s, p.cmd.preflight.budget_s, p.record.valid_until.c_str());
    std::fflush(stdout);
  }
  return code;
}

}  // namespace

int preflight_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  Preflight p{control, cmd, argv, use_color(cmd.verdict.color), Budget(cmd.preflight.budget_s)};
  if (int code = set_up(p)) return code;
  const StopScope stop(rank_and_host(control.rank()), [&](const EarlyEnd& end, const nlohmann::json& inner) {
    return control.rank() == 0 ? stopped_early(p, end, inner) : StopSaved{};
  });
  if (run_phases(p) == kExitUsage) return kExitUsage;
  return end(p, settle(p));
}

}  // namespace collbench
