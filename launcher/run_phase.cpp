#include "launcher/run_phase.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "bench/backend_factory.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/sweep.h"
#include "launcher/agree.h"
#include "launcher/efa_counters_read.h"
#include "launcher/env_collect.h"
#include "launcher/groups.h"
#include "launcher/hang_report.h"
#include "launcher/result_input.h"
#include "launcher/run_json.h"
#include "launcher/run_record.h"
#include "launcher/run_verdicts.h"
#include "launcher/stop_signals.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
#include "reports/core/journal.h"
#include "reports/core/json_report.h"
#include "reports/core/references.h"
#include "reports/core/table_stream.h"
#include "reports/core/text_table.h"
#include "reports/counters/counter_verdicts.h"

namespace collbench {

using report::Finding;
using report::Priority;
using report::Tag;

PhaseResult run_phase(Control& control, const RunPhaseSpec& spec) {
  const RunOptions& opts = spec.opts;
  const int rank = control.rank();
  const auto t0 = std::chrono::steady_clock::now();
  const RankReduce how = opts.rank_reduce;

  // Environment facts come first: after NCCL starts, aws-ofi-nccl sets variables in-process.
  report::RankEnv env = collect_local_env(rank);
  // The capture itself was set up in main(), before MPI_Init (prepare_nccl_debug_capture).
  const bool may_use_nccl = built_with_nccl() && opts.backend != BackendKind::Mpi;

  auto record = std::make_shared<Record>();
  std::atomic<bool> measuring = false;
  // Armed from backend set-up on: an NCCL init or split that never returns is a hang like any other.
  Watchdog watchdog([&, record](const std::string& what, double limit) {
    // Each process names its own step on stderr; rank 0 asks the others where they are, names the
    // ones that are not where the rest wait, and writes the cases so far.
    const Finding hang = hang_finding(rank, what, limit, hang_suspects(rank, what));
    std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
    // Rank 0 saves through every open scope (preflight's too) and prints the ending.
    if (rank == 0) end_early_now({0, hang, kExitCouldNotRun});
    std::this_thread::sleep_for(std::chrono::duration<double>(kHangReportWait_s));
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(kExitCouldNotRun);
  });

  // Each set-up step gets --timeout of its own; leaving after a failed step, the teardown too.
  const auto step = [&](const char* what) { watchdog.arm(what, opts.timeout_s); };
  const auto leave = [&](int code) {
    step("teardown after a failed set-up");
    return failed_phase(code, "set-up failed");
  };
  BackendChoice choice;
  Plan plan;
  // A stop signal or a hang keeps the cases measured so far.
  const StopScope stop(rank_and_host(rank), [&, record](const EarlyEnd& end, const nlohmann::json&) -> StopSaved {
    if (rank != 0) return {};
    std::string progress;
    {
      std::lock_guard lock(record->mutex);
      progress = stopped_progress(record->cases.size(), "case result", record->journal.has_value());
    }
    const Finding why = early_end_finding(end, progress);
    return {record->end_early(why, end.exit_code), why, spec.color};
  });
  if (int code = agree(control, [&] { choice = make_backend(opts, control, report_at_once(rank), &watchdog); }))
    return leave(code);
  step("set-up: describing the world");
  record->header.world = describe_world(control, *choice.backend, choice.reason);
  // --scope node|rail: every group runs its own collective, all groups at once.
  GroupLayout layout;
  std::unique_ptr<Backend> group_backend;
  if (int code = agree(control, [&] {
        layout = make_layout(opts.scope, record->header.world);
        step("backend set-up: communicator split");
        if (opts.scope != Scope::World)
          group_backend = choice.backend->split(layout.group_of_rank[static_cast<std::size_t>(choice.backend->first_rank())]);
      }))
    return leave(code);
  Backend& backend = group_backend ? *group_backend : *choice.backend;
  step("set-up: plan, buffers, environment and results file");
  if (int code = agree(control, [&] {
        plan = make_plan(opts, backend.world_ranks());
        check_supported(plan, backend);
        backend.reserve(plan.max_send_bytes, plan.max_recv_bytes);
      }))
    return leave(code);

  // A baseline that cannot be read is bad input: refuse it before measuring anything.
  if (int code = agree(control, [&] {
        if (rank == 0 && !spec.baseline.empty()) load_results_document(spec.baseline);
      }))
    return leave(code);

  if (may_use_nccl) env.nccl_log = read_nccl_debug_capture();
  const std::vector<report::RankEnv> envs = gather_env(control, env);
  const std::string instance_type = resolve_instance_type(spec.verdict, env.instance_type);
  report::RunHeader& header = record->header;
  // What a regression hunt after an AMI update wants to see side by side.
  for (const auto& [k, v] : env.versions) header.world.versions.try_emplace(k, v);
  if (!env.ofi_plugin.empty()) header.world.versions.try_emplace("ofi_plugin", env.ofi_plugin);
  if (utsname u{}; uname(&u) == 0) header.world.versions.try_emplace("kernel", u.release);
  header.world.instance_type = instance_type;
  if (rank == 0) {
    header.tool_version = COLLBENCH_VERSION;
    header.started_at = now_utc();
    header.argv = spec.argv;
    header.sweep = {opts.min_bytes, opts.max_bytes, opts.factor, opts.step_bytes, opts.warmup,
                    opts.iters.adaptive ? "auto" : std::to_string(opts.iters.fixed), opts.check_iters, opts.graph_calls};
    header.rank_reduce = opts.rank_reduce;
    header.notes = plan.notes;
    for (std::string& note : backend.method_notes()) header.notes.push_back(std::move(note));
  }
  if (int code = agree(control, [&] {
        if (rank == 0 && !opts.json_path.empty()) {
          try {
            record->journal.emplace(opts.json_path, header);
          } catch (const std::runtime_error& e) {
            throw UsageError(fmt::format("--json: {}; choose a writable path", e.what()));
          }
        }
      }))
    return leave(code);

  if (rank == 0) {
    std::fputs(report::render_preamble(header).c_str(), stdout);
    std::fflush(stdout);
  }

  watchdog.disarm();
  measuring = true;

  // World tables stream as rows complete; group tables are printed per group at the end.
  std::vector<report::TableStream> tables(layout.groups.size(), report::TableStream(plan.placements.size()));
  std::vector<std::string> group_text(layout.groups.size());
  const bool progress = rank == 0 && opts.progress && is_terminal(2);
  std::vector<SkippedSizes> skipped;
  // Collectives, like a case: a peer that stops here is a hang like any other.
  watchdog.arm("reading the EFA counters", opts.timeout_s);
  const EfaCounterWatch efa_watch(control, CounterReadOptions::from_env());
  watchdog.disarm();
  try {
    skipped = run_sweep(plan, opts, backend, control, watchdog, [&](const CaseMeasurement& m) {
      auto results = results_by_group(m, raw_case(m), collective_info(m.row->coll).busbw_factor, layout,
                                      header.world, how);
      std::lock_guard lock(record->mutex);
      for (auto& c : results) {
        if (record->journal) record->journal->append(c);
        const auto g = static_cast<std::size_t>(c.group.id);
        const std::string text = tables[g].add(c);
        if (layout.scope == Scope::World) std::fputs(text.c_str(), stdout);
        else group_text[g] += text;
        record->cases.push_back(std::move(c));
      }
      if (progress)
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", m.index + 1, plan.case_count(),
                     describe_case(*m.row, m.placement).c_str());
      std::fflush(stdout);
    });
  } catch (const std::exception& e) {
    // A failure on some ranks mid-sweep leaves the others inside a collective: end them all.
    print_error(e.what(), rank);
    control.abort(kExitCouldNotRun);
  }
  if (progress) std::fputs("\r\033[K", stderr);
  watchdog.arm("reading the EFA counters", opts.timeout_s);
  const report::CounterReport efa = efa_watch.finish(control);
  // Communicator teardown waits on the peers (ncclCommFinalize): a step under the watchdog too.
  watchdog.arm("teardown: releasing the backend", opts.timeout_s);
  group_backend.reset();
  choice.backend.reset();
  watchdog.disarm();

  PhaseResult out;
  if (rank == 0) {
    std::lock_guard lock(record->mutex);
    for (std::size_t g = 0; g < tables.size(); ++g) {
      if (layout.scope != Scope::World)
        std::printf("#\n# Group: %s %d, %s (ranks %s)\n%s", scope_name(layout.scope), static_cast<int>(g),
                    layout.labels[g].c_str(), report::format_ranks(layout.groups[g].ranks).c_str(),
                    group_text[g].c_str());
      std::fputs(tables[g].finish().c_str(), stdout);
    }
    std::fflush(stdout);
    RunFindings f = run_findings({spec.verdict, instance_type, spec.baseline, spec.tolerance}, header,
                                 record->cases, envs, layout);
    if (spec.environment) *spec.environment = std::move(f.environment);
    else out.findings = std::move(f.environment);
    out.findings.insert(out.findings.end(), f.results.begin(), f.results.end());
    if (!skipped.empty()) out.findings.push_back(sweep_budget_finding(skipped, opts.op_budget_s));
    report::add_counter_findings(out.findings, efa, fmt::format("the {} sweep", scope_name(opts.scope)));
    record->counters = report::counters_json(efa);
    out.document = [record](const std::vector<Finding>& findings, int code) {
      return record->document(findings, {true, "", 0, code});
    };
    out.save = [record](const std::vector<Finding>& findings, int code) {
      record->save(findings, {true, "", 0, code});
    };
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace collbench
