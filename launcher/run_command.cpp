#include "launcher/run_command.h"

#include <fmt/format.h>
#include <mpi.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <ctime>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/backend_factory.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/mpi_control.h"
#include "bench/sweep.h"
#include "launcher/agree.h"
#include "launcher/env_collect.h"
#include "launcher/groups.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
#include "launcher/result_input.h"
#include "launcher/run_json.h"
#include "reports/case_summary.h"
#include "reports/curve_verdicts.h"
#include "reports/judged.h"
#include "reports/references.h"
#include "reports/findings.h"
#include "reports/journal.h"
#include "reports/compare.h"
#include "reports/env_audit.h"
#include "reports/instance_types.h"
#include "reports/json_report.h"
#include "reports/result_verdicts.h"
#include "reports/summary.h"
#include "reports/table_stream.h"
#include "reports/text_table.h"

namespace collbench {
namespace {

using report::Finding;
using report::Priority;
using report::Tag;

// Rank 0's record of the run so far; the watchdog thread reads it when a case hangs.
struct Record {
  std::mutex mutex;
  report::RunHeader header;
  std::vector<report::CaseResult> cases;
  std::optional<report::Journal> journal;

  void save(const std::vector<Finding>& findings, const report::RunOutcome& outcome) {
    if (journal) journal->finish(report::run_document(header, cases, findings, outcome));
  }
};

// What every group's result of this case shares; samples, checks and busbw factor are per group.
report::RawCase raw_case(const CaseMeasurement& m) {
  const CaseRow& row = *m.row;
  const auto& info = collective_info(row.coll);
  report::RawCase raw;
  raw.op = std::string(info.name);
  raw.dtype = std::string(dtype_info(row.dtype).name);
  raw.redop = info.reduces ? std::string(redop_name(row.redop)) : "none";
  raw.placement = m.placement == Placement::InPlace ? "in_place" : "out_of_place";
  raw.root = row.root;
  raw.bytes = row.bytes;
  raw.count = row.counts.param;
  raw.requested_bytes = row.requested_bytes;
  raw.stop_reason = stop_reason_name(m.stop);
  raw.cpu_wait_share = m.cpu_wait_share;
  return raw;
}

// World cases are judged as a whole; each node group as one node; rail groups have no thresholds.
std::vector<Finding> scope_threshold_findings(const VerdictOptions& v, const std::string& instance_type,
                                              const std::optional<report::InstanceThresholds>& t,
                                              const std::vector<report::CaseResult>& cases,
                                              const report::WorldInfo& world, const GroupLayout& layout) {
  if (layout.scope == "rail")
    return {report::thresholds_skipped("rail groups are judged against each other, not against thresholds",
                                       /*chosen=*/true)};
  if (layout.scope == "world") {
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
    for (auto& c : mine) c.group.scope = "world";  // one node's collective is that node's whole world
    const report::RunSpan span{1, static_cast<int>(layout.groups[g].ranks.size()), {layout.labels[g]},
                               layout.groups[g].ranks};
    for (auto& f : threshold_findings(v, instance_type, t, mine, span)) out.push_back(std::move(f));
  }
  return out;
}

// Every finding of a finished run: environment, results, thresholds, and the baseline when one is
// given.
std::vector<Finding> run_findings(const Command& cmd, const Record& record, const std::string& instance_type,
                                  const std::vector<report::RankEnv>& envs, const GroupLayout& layout) {
  const auto& world = record.header.world;
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
    thresholds = thresholds_for(cmd.verdict, instance_type);
  } catch (const std::exception& e) {
    unusable("--thresholds " + cmd.verdict.thresholds, e);
  }
  report::AuditContext ctx;
  ctx.instance_type = instance_type;
  if (thresholds) ctx.profile = thresholds->hardware;
  ctx.efa_expected = report::efa_capable(instance_type);
  ctx.backend = world.backend;
  ctx.gpus_per_process = world.gpus_per_process;
  std::vector<Finding> findings = report::audit_environment(envs, ctx);
  for (auto& f : result_findings(record.cases, world.nodes)) findings.push_back(std::move(f));
  if (auto f = report::single_rank_finding(world.ranks)) findings.push_back(std::move(*f));
  if (report::curve_rule_applies(world.backend))
    for (auto& f : report::curve_dip_findings(record.cases)) findings.push_back(std::move(f));
  if (broken.empty())
    for (auto& f : scope_threshold_findings(cmd.verdict, instance_type, thresholds, record.cases, world, layout))
      findings.push_back(std::move(f));
  for (auto& f : group_comparison_findings(layout, record.cases, world.nodes)) findings.push_back(std::move(f));
  if (!cmd.baseline.empty()) {
    try {
      const nlohmann::json current = report::run_document(record.header, record.cases, {}, {});
      const auto comparison = report::compare_runs(load_results_document(cmd.baseline), current, cmd.tolerance);
      for (const auto& f : comparison.findings) findings.push_back(f);
    } catch (const std::exception& e) {
      unusable("--baseline " + cmd.baseline, e);
    }
  }
  findings.insert(findings.end(), broken.begin(), broken.end());
  return findings;
}

}  // namespace

int run_command(const Command& cmd, const std::vector<std::string>& argv) {
  const RunOptions& opts = cmd.run;
  MpiControl control;
  const int rank = control.rank();
  report::RankReduce how = report::RankReduce::Mean;
  report::parse_rank_reduce(opts.rank_reduce, &how);

  // Environment facts come first: after NCCL starts, aws-ofi-nccl sets variables in-process.
  report::RankEnv env = collect_local_env(rank);
  const bool may_use_nccl = built_with_nccl() && opts.backend != BackendKind::Mpi;
  if (may_use_nccl) prepare_nccl_debug_capture((std::filesystem::temp_directory_path() / "collbench-nccl").string());

  Record record;
  const bool color = use_color(cmd.verdict.color);
  std::atomic<bool> measuring = false;
  // Armed from backend set-up on: an NCCL init or split that never returns is a hang like any other.
  Watchdog watchdog([&](const std::string& what, double limit) {
    if (!measuring) {
      std::fprintf(stderr, "collbench: error on rank %d (host %s): %s did not finish within --timeout %g s; a peer "
                   "rank may have died or be unreachable\n", rank, this_host().c_str(), what.c_str(), limit);
      std::fflush(stderr);
      _exit(kExitCouldNotRun);
    }
    // Rank 0 writes this one whether it stalled or waited for a rank that did; each rank names its
    // own phase on stderr, so the document blames no rank.
    Finding hang{"COLLECTIVE_HANG", Tag::Fail, Priority::P0,
                 fmt::format("rank {} (host {}): {} did not finish within --timeout {:g} s", rank, this_host(), what,
                             limit),
                 report::ref::kTimeoutHang, report::Subject::world()};
    std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
    if (rank == 0) {
      std::lock_guard lock(record.mutex);
      std::printf("%s\n%s", report::render_finding(hang, color).c_str(), report::render_summary({hang}, color).c_str());
      try {
        record.save({hang}, {false, hang.message, 0, kExitCouldNotRun});
      } catch (const std::exception& e) {
        std::fprintf(stderr, "collbench: %s\n", e.what());
      }
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(2));  // let rank 0 save first
    }
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(kExitCouldNotRun);
  });

  // Each set-up step gets --timeout of its own; leaving after a failed step, the teardown too.
  const auto step = [&](const char* what) { watchdog.arm(what, opts.timeout_s); };
  const auto leave = [&](int code) {
    step("teardown after a failed set-up");
    return code;
  };
  BackendChoice choice;
  Plan plan;
  if (int code = agree(control, [&] { choice = make_backend(opts, control, report_at_once(rank), &watchdog); }))
    return leave(code);
  step("set-up: describing the world");
  record.header.world = describe_world(control, *choice.backend, choice.reason);
  // --scope node|rail: every group runs its own collective, all groups at once.
  GroupLayout layout;
  std::unique_ptr<Backend> group_backend;
  if (int code = agree(control, [&] {
        layout = make_layout(opts.scope, record.header.world);
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
        if (rank == 0 && !cmd.baseline.empty()) read_run_json(cmd.baseline);
      }))
    return leave(code);

  if (may_use_nccl) env.nccl_log = read_nccl_debug_capture();
  const std::vector<report::RankEnv> envs = gather_env(control, env);
  const std::string instance_type = resolve_instance_type(cmd.verdict, env.instance_type);
  // What a regression hunt after an AMI update wants to see side by side.
  for (const auto& [k, v] : env.versions) record.header.world.versions.try_emplace(k, v);
  if (!env.ofi_plugin.empty()) record.header.world.versions.try_emplace("ofi_plugin", env.ofi_plugin);
  if (utsname u{}; uname(&u) == 0) record.header.world.versions.try_emplace("kernel", u.release);
  record.header.world.instance_type = instance_type;
  if (rank == 0) {
    auto& h = record.header;
    h.tool_version = COLLBENCH_VERSION;
    h.started_at = now_utc();
    h.argv = argv;
    h.sweep = {opts.min_bytes, opts.max_bytes, opts.factor, opts.step_bytes, opts.warmup,
               opts.iters.adaptive ? "auto" : std::to_string(opts.iters.fixed), opts.check_iters};
    h.rank_reduce = opts.rank_reduce;
    h.notes = plan.notes;
  }
  if (int code = agree(control, [&] {
        if (rank == 0 && !opts.json_path.empty()) {
          try {
            record.journal.emplace(opts.json_path, record.header);
          } catch (const std::runtime_error& e) {
            throw UsageError(fmt::format("--json: {}; choose a writable path", e.what()));
          }
        }
      }))
    return leave(code);

  if (rank == 0) {
    std::fputs(report::render_preamble(record.header).c_str(), stdout);
    std::fflush(stdout);
  }

  watchdog.disarm();
  measuring = true;

  // World tables stream as rows complete; group tables are printed per group at the end.
  std::vector<report::TableStream> tables(layout.groups.size(), report::TableStream(plan.placements.size()));
  std::vector<std::string> group_text(layout.groups.size());
  const bool progress = rank == 0 && opts.progress && is_terminal(2);
  try {
    run_sweep(plan, opts, backend, control, watchdog, [&](const CaseMeasurement& m) {
      auto results = results_by_group(m, raw_case(m),
                                      collective_info(m.row->coll).busbw_factor, layout, record.header.world, how);
      std::lock_guard lock(record.mutex);
      for (auto& c : results) {
        if (record.journal) record.journal->append(c);
        const auto g = static_cast<std::size_t>(c.group.id);
        const std::string text = tables[g].add(c);
        if (layout.scope == "world") std::fputs(text.c_str(), stdout);
        else group_text[g] += text;
        record.cases.push_back(std::move(c));
      }
      if (progress)
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", m.index + 1, plan.case_count(),
                     describe_case(*m.row, m.placement).c_str());
      std::fflush(stdout);
    });
  } catch (const std::exception& e) {
    // A failure on some ranks mid-sweep leaves the others inside a collective: end them all.
    print_error(e.what(), rank);
    MPI_Abort(MPI_COMM_WORLD, kExitCouldNotRun);
  }
  if (progress) std::fputs("\r\033[K", stderr);

  int exit_code = kExitOk;
  if (rank == 0) {
    std::lock_guard lock(record.mutex);
    for (std::size_t g = 0; g < tables.size(); ++g) {
      if (layout.scope != "world")
        std::printf("#\n# Group: %s %d, %s (ranks %s)\n%s", layout.scope.c_str(), static_cast<int>(g),
                    layout.labels[g].c_str(), report::format_ranks(layout.groups[g].ranks).c_str(),
                    group_text[g].c_str());
      std::fputs(tables[g].finish().c_str(), stdout);
    }
    const std::vector<Finding> findings = run_findings(cmd, record, instance_type, envs, layout);
    std::fputs(report::render_findings(findings, color).c_str(), stdout);
    std::fputs(report::render_summary(findings, color).c_str(), stdout);
    exit_code = report::exit_code_for(findings, cmd.verdict.fail_on_warn);
    try {
      record.save(findings, {true, "", 0, exit_code});
    } catch (const std::exception& e) {
      print_error(e.what(), rank);
      exit_code = kExitCouldNotRun;
    }
    std::fflush(stdout);
  }
  return static_cast<int>(-control.min(-exit_code));
}

}  // namespace collbench
