#include "launcher/hunt_phase.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/backend_factory.h"
#include "bench/mpi_check.h"
#include "bench/schedules.h"
#include "launcher/agree.h"
#include "launcher/confirmation.h"
#include "launcher/efa_counters_read.h"
#include "launcher/budget.h"
#include "launcher/hunt_rounds.h"
#include "launcher/hang_report.h"
#include "launcher/hunt_verdicts.h"
#include "launcher/stop_signals.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
#include "reports/pairs/attribution.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/hunt/hunt_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_report.h"
#include "reports/core/stats.h"
#include "reports/core/references.h"
#include "reports/core/summary.h"
#include "reports/core/text_table.h"
#include "reports/counters/counter_verdicts.h"

namespace collbench {
namespace {

using report::Finding;

constexpr double kProbeTarget_s = 0.005;  // a healthy pair's iteration: milliseconds, well above launch overheads
// Below 1 MiB a pair measures latency more than bandwidth, and a bandwidth fault hides in it.
constexpr std::uint64_t kProbeMinBytes = 1ull << 20;
constexpr std::uint64_t kProbeMaxBytes = 64ull << 20;
constexpr double kLongRound_s = 2.0;

// Rank 0's results, kept for the document written when the command ends.
struct HuntState {
  std::mutex mutex;  // the measuring thread adds to the record under it; a stop signal reads it
  report::HuntRecord record;
  report::Attribution attribution;
  std::optional<report::Journal> journal;
  nlohmann::json counters;  // the EFA counters' deltas (efa_counters.h), once read after the rounds

  nlohmann::json document(const std::vector<Finding>& findings, int exit_code) const {
    nlohmann::json doc = report::hunt_document(record, attribution, findings, exit_code);
    if (!counters.is_null()) doc["counters"] = counters;
    return doc;
  }

  // Ending early (a hang, a stop signal): the rounds so far, attributed as far as they go, saved
  // with "complete": false; the document is returned.
  nlohmann::json end_early(const Finding& why, int exit_code) {
    std::lock_guard lock(mutex);
    const auto n = static_cast<int>(record.header.world.nodes.size());
    nlohmann::json doc = report::hunt_document(record, report::attribute(record.samples, n), {why}, exit_code);
    doc["complete"] = false;
    doc["error"] = why.message;
    if (journal) journal->finish(doc, false);
    return doc;
  }
  std::string progress() {
    std::lock_guard lock(mutex);
    return stopped_progress(record.rounds.size(), "round", journal.has_value());
  }
};

}  // namespace

PhaseResult hunt_phase(Control& control, const HuntPhaseSpec& spec) {
  const HuntOptions& hunt = spec.hunt;
  RunOptions opts = spec.run;
  // The largest size the probe may choose, for any check made at set-up.
  opts.min_bytes = opts.max_bytes = hunt.bytes > 0 ? hunt.bytes : kProbeMaxBytes;
  opts.placements = {Placement::OutOfPlace};
  opts.ops = {opts.ops.front()};
  const int rank = control.rank();
  const Budget wall(0);

  auto shared = std::make_shared<HuntState>();
  std::atomic<bool> measuring = false;  // rank 0 has a record to save
  Watchdog watchdog([&](const std::string& what, double limit) {
    const Finding hang = hang_finding(rank, "hunt " + what, limit, hang_suspects(rank, what));
    std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
    // Rank 0 saves through every open scope (preflight's too) and prints the ending.
    if (rank == 0) end_early_now({0, hang, kExitCouldNotRun});
    std::this_thread::sleep_for(std::chrono::duration<double>(kHangReportWait_s));
    std::fflush(stderr);
    _exit(kExitCouldNotRun);
  });
  const StopScope stop(rank_and_host(rank), [&, shared](const EarlyEnd& end, const nlohmann::json&) {
    if (rank != 0) return StopSaved{};
    if (!measuring) return StopSaved{nullptr, early_end_finding(end, "during set-up"), spec.color};
    const Finding why = early_end_finding(end, shared->progress());
    return StopSaved{shared->end_early(why, end.exit_code), why, spec.color};
  });
  BackendChoice choice;
  if (int code = agree(control, [&] { choice = make_backend(opts, control, report_at_once(rank), &watchdog); })) {
    watchdog.arm("teardown after a failed set-up", opts.timeout_s);
    return failed_phase(code, "set-up failed");
  }
  watchdog.disarm();
  report::HuntRecord& record = shared->record;
  record.header.world = describe_world(control, *choice.backend, choice.reason);
  const report::WorldInfo& world = record.header.world;
  // Rank 0 knows the layout; every process needs its node's index, and whether nodes are alike.
  int n = static_cast<int>(world.nodes.size());
  control.broadcast(std::span<int>(&n, 1));
  if (n < 2) return skipped_phase(fmt::format("hunt needs at least 2 nodes; this run has {}", n));
  std::vector<int> node_of_rank(static_cast<std::size_t>(choice.backend->world_ranks()), 0);
  int alike = 1;  // every node has the same number of ranks, at least two: the node phase can run
  if (rank == 0) {
    for (int i = 0; i < n; ++i) {
      for (int r : world.nodes[i].ranks) node_of_rank[static_cast<std::size_t>(r)] = i;
      alike &= world.nodes[i].ranks.size() == world.nodes[0].ranks.size() && world.nodes[i].ranks.size() >= 2;
    }
  }
  control.broadcast(std::span<int>(node_of_rank));
  control.broadcast(std::span<int>(&alike, 1));
  const int my_node = node_of_rank[static_cast<std::size_t>(choice.backend->first_rank())];
  const bool is_auto = hunt.pattern == "auto";
  const bool node_phase = is_auto && alike;

  record.header.tool_version = COLLBENCH_VERSION;
  record.header.started_at = now_utc();
  record.header.argv = spec.argv;
  record.header.rank_reduce = RankReduce::Mean;
  record.plan.pattern = hunt.pattern;
  record.plan.op = collective_info(opts.ops.front()).name;
  std::optional<report::Journal>& journal = shared->journal;
  if (int code = agree(control, [&] {
        if (rank == 0 && !opts.json_path.empty()) {
          nlohmann::json first = {{"schema", report::kHuntPartialSchema}};
          first.update(report::to_json(record.header));
          try {
            journal.emplace(opts.json_path, first);
          } catch (const std::runtime_error& e) {
            throw UsageError(fmt::format("--json: {}; choose a writable path", e.what()));
          }
        }
      }))
    return failed_phase(code, "set-up failed");
  measuring = true;
  // Collectives, like a round: a peer that stops here is a hang like any other.
  watchdog.arm("reading the EFA counters", opts.timeout_s);
  const EfaCounterWatch efa_watch(control, CounterReadOptions::from_env());
  watchdog.disarm();

  const HuntContext ctx{opts, *choice.backend, control, watchdog, world, my_node};
  const std::vector<std::string> names = [&] {
    std::vector<std::string> out;
    for (const auto& node : world.nodes) out.push_back(node.name);
    return out;
  }();

  const Schedule schedule = schedule_for_pattern(hunt.pattern, n);
  record.plan.planned_rounds = static_cast<int>(schedule.size()) + (node_phase ? 1 : 0);
  record.plan.budget_s = hunt.budget_s > 0 ? hunt.budget_s : default_budget_s(record.plan.planned_rounds);
  // Rank 0's clock and decisions rule; every rank follows them.
  const Budget budget(record.plan.budget_s);
  record.plan.max_iters = opts.iters.fixed;
  {
    // With -b the probe only times the given size.
    const std::uint64_t lo = hunt.bytes > 0 ? hunt.bytes : kProbeMinBytes;
    const std::uint64_t hi = hunt.bytes > 0 ? hunt.bytes : kProbeMaxBytes;
    const SizeChoice c = choose_size(ctx, schedule.front(), kProbeTarget_s, lo, hi);
    record.plan.bytes = c.bytes;
    record.plan.bytes_probed = hunt.bytes == 0;
    record.plan.probe_iteration_s = c.iteration_s;
  }
  const std::uint64_t bytes = record.plan.bytes;
  record.header.sweep = {bytes, bytes, 2, 0, opts.warmup, std::to_string(opts.iters.fixed), opts.check_iters};
  const int per_round = opts.warmup + opts.iters.fixed;
  record.plan.estimate_s = record.plan.planned_rounds * per_round * record.plan.probe_iteration_s;
  // A round this long holds all the samples a verdict needs, however slow its slowest pair.
  const double long_round_s = std::max(kLongRound_s, 100 * record.plan.probe_iteration_s);
  if (rank == 0) {
    std::fputs(hunt_plan_text(record.plan, schedule, node_phase, world).c_str(), stdout);
    std::fflush(stdout);
  }

  // Times one round on rank 0, then prints and journals it.
  auto timed = [&](const std::string& phase, const std::vector<std::pair<int, int>>& pairs, const auto& body) {
    report::HuntRound round{phase, static_cast<int>(record.rounds.size()), 0, pairs};
    const double start = budget.elapsed_s();
    body(round.index);
    round.wall_s = budget.elapsed_s() - start;
    if (rank != 0) return;
    std::lock_guard lock(shared->mutex);
    record.rounds.push_back(round);
    std::string line = fmt::format("# round {} ({}): {:.2f} s", round.index, phase, round.wall_s);
    for (const auto& s : record.samples)
      if (s.round == round.index)
        line += fmt::format("  {}<->{} {:.3g} GB/s ({})", names[s.a], names[s.b], report::median(s.rates),
                            s.rates.size());
    if (phase == "node")
      for (const auto& g : record.node_phase) line += fmt::format("  {} {:.3g} GB/s ({})", g.label, g.busbw_gbs, g.samples);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (journal) journal->append_line({{"round", report::to_json(round, record.samples, names)}});
  };
  // Per node, the busiest its CPUs were over the whole hunt.
  auto note_load = [&](const std::vector<double>& load) {
    record.runnable_per_core.resize(std::max(record.runnable_per_core.size(), load.size()), 0.0);
    for (std::size_t i = 0; i < load.size(); ++i)
      record.runnable_per_core[i] = std::max(record.runnable_per_core[i], load[i]);
  };
  // The slice for the next of `rounds_left` rounds, agreed; 0 when the budget cannot fit it.
  auto next_slice = [&](int rounds_left) { return budget.next_slice(control, rounds_left, long_round_s); };
  auto pair_rounds = [&](const std::string& phase, const Schedule& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Round& r = s[i];
      const double slice = next_slice(static_cast<int>(s.size() - i));
      if (slice <= 0) {
        std::lock_guard lock(shared->mutex);
        for (std::size_t j = i; j < s.size(); ++j)
          record.not_measured.insert(record.not_measured.end(), s[j].pairs.begin(), s[j].pairs.end());
        return;
      }
      timed(phase, r.pairs, [&](int index) {
        PairRound pr = run_pair_round(ctx, r, index, bytes, slice, phase == "confirm");
        std::lock_guard lock(shared->mutex);
        for (auto& sample : pr.samples) record.samples.push_back(std::move(sample));
        note_load(pr.runnable_per_core);
      });
    }
  };

  // Rounds still ahead, for the share of each: node phase, pair rounds, two for confirmation.
  const int ahead = record.plan.planned_rounds + 2;
  if (node_phase) {
    // A node's own path is judged on one short measurement: anything not healthy is measured again
    // and must be slow both times, on CPUs that were not oversubscribed, to be named.
    auto node_run = [&](double slice) {
      timed("node", {}, [&](int) {
        NodePhase r = run_node_phase(ctx, bytes, slice);
        std::lock_guard lock(shared->mutex);
        record.node_phase = std::move(r.scores);
        note_load(r.runnable_per_core);
      });
    };
    const double slice = next_slice(ahead);
    if (slice <= 0) {
      std::lock_guard lock(shared->mutex);
      record.node_phase_skipped = true;
    }
    else node_run(slice);
    int again = 0;
    if (rank == 0 && !record.node_phase.empty()) {
      std::lock_guard lock(shared->mutex);
      record.node_judgement = report::judge_groups(record.node_phase);
      for (const auto& g : record.node_judgement.groups) again |= g.kind != report::GroupVerdict::Kind::Healthy;
    }
    control.broadcast(std::span<int>(&again, 1));
    const double again_slice = again ? next_slice(ahead) : 0;
    if (again_slice > 0) {
      node_run(again_slice);
      if (rank == 0) {
        std::lock_guard lock(shared->mutex);
        record.node_judgement =
            report::combine_runs(record.node_judgement, report::judge_groups(record.node_phase));
      }
    }
    if (rank == 0) {
      std::lock_guard lock(shared->mutex);
      report::excuse_busy_hosts(record.node_judgement, record.runnable_per_core);
    }
  }
  pair_rounds("pairs", schedule);
  {
    Schedule confirm;
    if (rank == 0) {
      const report::Attribution first = report::attribute(record.samples, n);
      confirm = confirmation_schedule({&first});
    }
    confirm = broadcast_schedule(confirm, control);
    if (rank == 0 && !confirm.empty()) {
      std::printf("# confirmation: %d round(s): ", static_cast<int>(confirm.size()));
      for (const auto& r : confirm) std::printf("%s  ", pairs_text(r.pairs, world.nodes).c_str());
      std::printf("\n");
    }
    pair_rounds("confirm", confirm);
  }
  watchdog.arm("reading the EFA counters", opts.timeout_s);
  const report::CounterReport efa = efa_watch.finish(control);
  // Communicator teardown waits on the peers (ncclCommFinalize): a step under the watchdog too.
  watchdog.arm("teardown: releasing the backend", opts.timeout_s);
  choice.backend.reset();
  watchdog.disarm();

  PhaseResult out;
  if (rank == 0) {
    HuntVerdict v = judge_hunt(record, world, names);
    out.findings = std::move(v.findings);
    report::add_counter_findings(out.findings, efa, "the hunt");
    shared->attribution = std::move(v.attribution);
    shared->counters = report::counters_json(efa);
    std::fflush(stdout);
    out.document = [shared](const std::vector<Finding>& f, int code) { return shared->document(f, code); };
    out.save = [shared](const std::vector<Finding>& f, int code) {
      if (shared->journal) shared->journal->finish(shared->document(f, code));
    };
  }
  out.wall_s = wall.elapsed_s();
  return out;
}

}  // namespace collbench
