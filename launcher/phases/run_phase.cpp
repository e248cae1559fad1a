#include "launcher/phases/run_phase.h"

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
#include "bench/nccl_presence.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/sweep.h"
#include "launcher/job/agree.h"
#include "launcher/probes/env_collect.h"
#include "launcher/verdicts/groups.h"
#include "launcher/inputs/result_input.h"
#include "launcher/inputs/run_json.h"
#include "launcher/phases/phase_frame.h"
#include "launcher/phases/run_record.h"
#include "launcher/verdicts/run_verdicts.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/job/world.h"
#include "reports/core/journal.h"
#include "reports/core/json_report.h"
#include "reports/core/references.h"
#include "reports/core/table_stream.h"
#include "reports/core/text_table.h"
#include "reports/counters/counter_verdicts.h"

namespace collbench {
namespace {

using report::Finding;

// The backend, its groups and the plan: everything set up before the first case.
struct Sweep {
  BackendChoice choice;
  GroupLayout layout;
  std::unique_ptr<Backend> group_backend;  // --scope node|rail: every group runs its own collective
  Plan plan;
  Backend& backend() { return group_backend ? *group_backend : *choice.backend; }
};

// Each set-up step under the watchdog and agreed by every process; 0 or the agreed exit code.
int set_up_sweep(PhaseFrame& frame, const RunOptions& opts, Record& record, Sweep& s) {
  Control& control = frame.control();
  const int rank = frame.rank();
  if (int code = agree(control, [&] { s.choice = make_backend(opts, control, report_at_once(rank), &frame.watchdog()); }))
    return code;
  frame.step("set-up: describing the world");
  record.header.world = describe_world(control, *s.choice.backend, s.choice.reason);
  if (int code = agree(control, [&] {
        s.layout = make_layout(opts.scope, record.header.world);
        frame.step("backend set-up: communicator split");
        if (opts.scope != Scope::World)
          s.group_backend =
              s.choice.backend->split(s.layout.group_of_rank[static_cast<std::size_t>(s.choice.backend->first_rank())]);
      }))
    return code;
  frame.step("set-up: plan, buffers, environment and results file");
  return agree(control, [&] {
    s.plan = make_plan(opts, s.backend().world_ranks());
    check_supported(s.plan, s.backend());
    s.backend().reserve(s.plan.max_send_bytes, s.plan.max_recv_bytes);
  });
}

// What a regression hunt after an AMI update wants to see side by side, and rank 0's sweep record.
void fill_header(report::RunHeader& header, const RunPhaseSpec& spec, const report::RankEnv& env, Sweep& s,
                 const std::string& instance_type, int rank) {
  const RunOptions& opts = spec.opts;
  for (const auto& [k, v] : env.versions) header.world.versions.try_emplace(k, v);
  if (!env.ofi_plugin.empty()) header.world.versions.try_emplace("ofi_plugin", env.ofi_plugin);
  if (utsname u{}; uname(&u) == 0) header.world.versions.try_emplace("kernel", u.release);
  header.world.instance_type = instance_type;
  if (rank != 0) return;
  header.tool_version = COLLBENCH_VERSION;
  header.started_at = now_utc();
  header.argv = spec.argv;
  header.sweep = {opts.min_bytes, opts.max_bytes, opts.factor, opts.step_bytes, opts.warmup,
                  opts.iters.adaptive ? "auto" : std::to_string(opts.iters.fixed), opts.check_iters, opts.graph_calls};
  header.rank_reduce = opts.rank_reduce;
  header.notes = s.plan.notes;
  for (std::string& note : s.backend().method_notes()) header.notes.push_back(std::move(note));
}

// Rank 0's tables: world tables stream as rows complete; group tables are printed per group at the end.
struct Tables {
  std::vector<report::TableStream> streams;
  std::vector<std::string> group_text;
  Tables(const GroupLayout& layout, const Plan& plan)
      : streams(layout.groups.size(), report::TableStream(plan.placements.size())), group_text(layout.groups.size()) {}
  void print(const GroupLayout& layout) {
    for (std::size_t g = 0; g < streams.size(); ++g) {
      if (layout.scope != Scope::World)
        std::printf("#\n# Group: %s %d, %s (ranks %s)\n%s", scope_name(layout.scope), static_cast<int>(g),
                    layout.labels[g].c_str(), report::format_ranks(layout.groups[g].ranks).c_str(),
                    group_text[g].c_str());
      std::fputs(streams[g].finish().c_str(), stdout);
    }
    std::fflush(stdout);
  }
};

// Every case, each result journaled and printed as it finishes.
std::vector<SkippedSizes> measure(PhaseFrame& frame, const RunOptions& opts, Sweep& s, Record& record, Tables& tables) {
  const int rank = frame.rank();
  const bool progress = rank == 0 && opts.progress && is_terminal(2);
  std::vector<SkippedSizes> skipped;
  try {
    skipped = run_sweep(s.plan, opts, s.backend(), frame.control(), frame.watchdog(), [&](const CaseMeasurement& m) {
      auto results = results_by_group(m, raw_case(m), collective_info(m.row->coll).busbw_factor, s.layout,
                                      record.header.world, opts.rank_reduce);
      std::lock_guard lock(record.mutex);
      for (auto& c : results) {
        if (record.journal) record.journal->append(c);
        const auto g = static_cast<std::size_t>(c.group.id);
        const std::string text = tables.streams[g].add(c);
        if (s.layout.scope == Scope::World) std::fputs(text.c_str(), stdout);
        else tables.group_text[g] += text;
        record.cases.push_back(std::move(c));
      }
      if (progress)
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", m.index + 1, s.plan.case_count(),
                     describe_case(*m.row, m.placement).c_str());
      std::fflush(stdout);
    });
  } catch (const std::exception& e) {
    // A failure on some ranks mid-sweep leaves the others inside a collective: end them all.
    print_error(e.what(), rank);
    frame.control().abort(kExitCouldNotRun);
  }
  if (progress) std::fputs("\r\033[K", stderr);
  return skipped;
}

// Rank 0: the sweep's verdicts, and its document for the command's ending.
PhaseResult judged(const RunPhaseSpec& spec, const std::string& instance_type, const std::shared_ptr<Record>& record,
                   const std::vector<report::RankEnv>& envs, const GroupLayout& layout,
                   const std::vector<SkippedSizes>& skipped, const report::CounterReport& efa) {
  PhaseResult out;
  std::lock_guard lock(record->mutex);
  RunFindings f =
      run_findings({spec.verdict, instance_type, spec.baseline, spec.tolerance}, record->header, record->cases, envs, layout);
  if (spec.environment) *spec.environment = std::move(f.environment);
  else out.findings = std::move(f.environment);
  out.findings.insert(out.findings.end(), f.results.begin(), f.results.end());
  if (!skipped.empty()) out.findings.push_back(sweep_budget_finding(skipped, spec.opts.op_budget_s));
  report::add_counter_findings(out.findings, efa, fmt::format("the {} sweep", scope_name(spec.opts.scope)));
  record->counters = report::counters_json(efa);
  out.document = [record](const std::vector<Finding>& findings, int code) {
    return record->document(findings, {true, "", 0, code});
  };
  out.save = [record](const std::vector<Finding>& findings, int code) { record->save(findings, {true, "", 0, code}); };
  return out;
}

}  // namespace

PhaseResult run_phase(Control& control, const RunPhaseSpec& spec) {
  const RunOptions& opts = spec.opts;
  const int rank = control.rank();
  // Environment facts come first: after NCCL starts, aws-ofi-nccl sets variables in-process.
  report::RankEnv env = collect_local_env(rank);
  auto record = std::make_shared<Record>();
  // The hang watchdog is armed from backend set-up on: an NCCL init or split that never returns is
  // a hang like any other. A stop signal or a hang keeps the cases measured so far.
  PhaseFrame frame(control, opts.timeout_s, spec.color);
  frame.keep(record);
  Sweep s;
  if (int code = set_up_sweep(frame, opts, *record, s)) return frame.failed_setup(code);
  // A baseline that cannot be read is bad input: refuse it before measuring anything.
  if (int code = agree(control, [&] {
        if (rank == 0 && !spec.baseline.empty()) load_results_document(spec.baseline);
      }))
    return frame.failed_setup(code);
  // The capture itself was set up in main(), before MPI_Init (prepare_nccl_debug_capture).
  if (built_with_nccl() && opts.backend != BackendKind::Mpi) env.nccl_log = read_nccl_debug_capture();
  const std::vector<report::RankEnv> envs = gather_env(control, env);
  const std::string instance_type = resolve_instance_type(spec.verdict, env.instance_type);
  fill_header(record->header, spec, env, s, instance_type, rank);
  if (int code = agree(control, [&] {
        if (rank == 0 && !opts.json_path.empty()) open_journal(record->journal, opts.json_path, record->header);
      }))
    return frame.failed_setup(code);
  if (rank == 0) {
    std::fputs(report::render_preamble(record->header).c_str(), stdout);
    std::fflush(stdout);
  }
  frame.quiet();
  Tables tables(s.layout, s.plan);
  frame.start_counters();
  const std::vector<SkippedSizes> skipped = measure(frame, opts, s, *record, tables);
  const report::CounterReport efa = frame.finish_counters();
  // Communicator teardown waits on the peers (ncclCommFinalize): a step under the watchdog too.
  frame.step("teardown: releasing the backend");
  s.group_backend.reset();
  s.choice.backend.reset();
  frame.quiet();
  if (rank != 0) return frame.ended({});
  tables.print(s.layout);
  return frame.ended(judged(spec, instance_type, record, envs, s.layout, skipped, efa));
}

}  // namespace collbench
