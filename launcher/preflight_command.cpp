#include "launcher/commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/mpi_control.h"
#include "bench/ofi/lanes.h"
#include "launcher/agree.h"
#include "launcher/budget.h"
#include "launcher/fabric_phase.h"
#include "launcher/finish.h"
#include "launcher/hunt_phase.h"
#include "launcher/preflight_plan.h"
#include "launcher/stop_signals.h"
#include "launcher/run_phase.h"
#include "launcher/verdicts.h"
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

}  // namespace

int preflight_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  const int rank = control.rank();
  const PreflightOptions& o = cmd.preflight;
  const bool color = use_color(cmd.verdict.color);
  const Budget budget(o.budget_s);  // rank 0's clock rules

  report::PreflightRecord record;
  record.tool_version = COLLBENCH_VERSION;
  record.started_at = now_utc();
  record.argv = argv;
  record.budget_s = o.budget_s;
  for (const auto& node : ofi::nodes_of(control.all_gather_strings(this_host()))) record.hosts.push_back(node.name);
  record.ranks = control.size() * cmd.run.gpus;
  const int nodes = static_cast<int>(record.hosts.size());

  // Bad input first: the thresholds (for the sizes they judge) and the output file.
  std::optional<report::InstanceThresholds> thresholds;
  std::optional<report::Journal> journal;
  if (int code = agree(control, [&] {
        if (rank != 0) return;
        thresholds =
            thresholds_for(cmd.verdict, local_instance_type(cmd.verdict));
        if (!o.json.empty()) {
          try {
            journal.emplace(o.json, nlohmann::json{{"schema", report::kPreflightPartialSchema},
                                                   {"started_at", record.started_at}, {"argv", argv}});
          } catch (const std::runtime_error& e) {
            throw UsageError(fmt::format("--json: {}; choose a writable path", e.what()));
          }
        }
      }))
    return code;
  std::uint64_t max_bytes = preflight_max_bytes(o, thresholds, nodes, RunOptions{}.max_bytes);
  max_bytes = static_cast<std::uint64_t>(control.broadcast(static_cast<double>(max_bytes)));

  const std::vector<PhasePlan> plan = preflight_plan(nodes, record.ranks, fabric_available(), o.skip);
  if (rank == 0) {
    std::fputs(render_preflight_plan(plan, o.budget_s, nodes, record.ranks).c_str(), stdout);
    std::fflush(stdout);
  }

  // A stop signal or a hang: the phases so far, the one it stopped with what it measured,
  // "complete": false. The loop changes the record under record_mutex.
  std::mutex record_mutex;
  const StopScope stop(rank_and_host(rank), [&](const EarlyEnd& end, const nlohmann::json& inner) -> StopSaved {
    if (rank != 0) return {};
    std::lock_guard lock(record_mutex);
    report::PreflightRecord now = record;
    // The phase running is the last one begun, until it has a status (the environment phase, first,
    // gets its status after the loop).
    report::PreflightPhase* running =
        now.phases.size() > 1 && now.phases.back().status.empty() ? &now.phases.back() : nullptr;
    const std::string where = running ? fmt::format("in phase {} of {} ({})", now.phases.size(), plan.size(),
                                                    running->name)
                                      : "between phases";
    const Finding why = early_end_finding(
        end, where + (journal ? "; the phases so far are saved with \"complete\": false" : ""));
    if (running) {
      running->status = end.signo != 0 ? "stopped" : "failed";
      running->document = inner;
    }
    if (report::PreflightPhase* holder = running ? running : now.phases.empty() ? nullptr : &now.phases.front())
      holder->findings.push_back(why);
    now.wall_s = budget.elapsed_s();
    now.finished_at = now_utc();
    nlohmann::json doc = report::preflight_document(now, {}, end.exit_code);
    doc["complete"] = false;
    doc["error"] = why.message;
    if (journal) journal->finish(doc, false);
    return {std::move(doc), why, color};
  });

  std::vector<Finding> environment, discarded;
  bool environment_read = false;
  std::optional<int> stopped;  // the exit code of a phase that could not set up
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PhasePlan& p = plan[i];
    std::unique_lock lock(record_mutex);
    report::PreflightPhase& phase = record.phases.emplace_back();
    phase.name = p.name;
    if (p.name == "environment") continue;  // read by the first sweep; settled after the loop
    if (!p.runs || stopped) {
      phase.status = "skipped";
      phase.reason = !p.runs ? p.reason : "an earlier phase could not set up";
      continue;
    }
    lock.unlock();
    const double share = control.broadcast(rank == 0 ? phase_share_s(plan, i, o.budget_s - budget.elapsed_s()) : 0.0);
    phase.budget_s = share;
    if (rank == 0) {
      std::printf("#\n# ---- phase %zu of %zu: %s, up to %.0f s\n", i + 1, plan.size(), p.name.c_str(), share);
      std::fflush(stdout);
    }
    PhaseResult r;
    if (p.name == "node" || p.name == "world") {
      const RunOptions sweep =
          preflight_sweep(cmd.run, p.name == "node" ? Scope::Node : Scope::World, record.ranks, max_bytes, share);
      RunPhaseSpec spec{sweep, cmd.verdict, argv, color, "", std::nullopt, environment_read ? &discarded : &environment};
      r = run_phase(control, spec);
      environment_read |= r.status == PhaseResult::Status::Ran;
    } else if (p.name == "pairs") {
      RunOptions run = cmd.run;
      HuntOptions hunt;
      hunt.budget_s = share;
      run.ops = {Coll::AllReduce};
      run.iters.adaptive = false;
      run.iters.fixed = hunt.iters;
      run.progress = false;
      r = hunt_phase(control, {run, hunt, argv, color});
    } else {
      FabricOptions fabric;
      fabric.provider = o.provider;
      fabric.budget_s = share;
      fabric.timeout_s = cmd.run.timeout_s;
      r = fabric_phase(control, {fabric, cmd.verdict, argv, color});
    }
    lock.lock();
    phase.status = status_name(r.status);
    phase.reason = r.reason;
    phase.wall_s = r.wall_s;
    phase.findings = std::move(r.findings);
    if (r.status == PhaseResult::Status::Failed) {
      if (r.exit_code == kExitUsage) return kExitUsage;  // bad input, said by the processes that saw it
      stopped = r.exit_code;
      phase.findings.push_back(setup_error(p.name, r.exit_code));
    }
    if (rank == 0 && r.document)
      phase.document = r.document(phase.findings, report::exit_code_for(phase.findings, cmd.verdict.fail_on_warn));
    if (rank == 0 && journal) journal->append_line({{"phase", report::to_json(phase)}});
  }
  std::unique_lock lock(record_mutex);
  report::PreflightPhase& env_phase = record.phases.front();
  env_phase.status = environment_read ? "ran" : "skipped";
  if (!environment_read) env_phase.reason = plan.front().runs ? "no sweep set up, so nothing read it" : plan.front().reason;
  env_phase.findings = std::move(environment);
  const bool nothing_ran =
      std::none_of(record.phases.begin() + 1, record.phases.end(), [](const auto& p) { return p.status == "ran"; });
  if (nothing_ran)
    env_phase.findings.push_back(
        {"PREFLIGHT_NOTHING_RAN", report::Tag::Warn, report::Priority::P1,
         "no phase measured anything (each was skipped, for the reason in the plan): this is no go-ahead; drop "
         "--skip, or run on the nodes the job will use",
         report::ref::kMultiNode, report::Subject::world()});
  record.wall_s = budget.elapsed_s();
  record.finished_at = now_utc();
  record.valid_until = utc_after(o.valid_for_s);
  lock.unlock();  // finish() is collective: a stop signal during it must not wait for it
  const std::vector<Finding> findings = report::all_findings(record);
  const auto hints = report::scheduler_hints(findings, std::getenv("KUBERNETES_SERVICE_HOST") != nullptr);
  Ending ending{findings, true, nullptr, stopped};
  if (journal)
    ending.save = [&](const std::vector<Finding>&, int code) {
      journal->finish(report::preflight_document(record, hints, code));
    };
  ending.document = [&](const std::vector<Finding>&, int code) { return report::preflight_document(record, hints, code); };
  const int code = finish(control, cmd.verdict, color, ending);
  if (rank == 0) {
    std::printf("%s# preflight: %s in %.0f s (budget %.0f s); valid until %s\n", report::render_hints(hints).c_str(),
                nothing_ran                 ? "NOTHING RAN"
                : code == kExitOk           ? "GO"
                : code == kExitCouldNotRun  ? "COULD NOT RUN"
                                            : "NO-GO",
                record.wall_s,
                o.budget_s, record.valid_until.c_str());
    std::fflush(stdout);
  }
  return code;
}

}  // namespace collbench
