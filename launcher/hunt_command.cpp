#include "launcher/hunt_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "bench/backend_factory.h"
#include "bench/mpi_check.h"
#include "bench/mpi_control.h"
#include "bench/schedules.h"
#include "launcher/agree.h"
#include "launcher/confirmation.h"
#include "launcher/budget.h"
#include "launcher/hunt_phases.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
#include "reports/attribution.h"
#include "reports/group_verdicts.h"
#include "reports/hunt_json.h"
#include "reports/journal.h"
#include "reports/json_report.h"
#include "reports/stats.h"
#include "reports/references.h"
#include "reports/summary.h"
#include "reports/text_table.h"

namespace collbench {
namespace {

using report::Finding;

constexpr double kProbeTarget_s = 0.005;  // a healthy pair's iteration: milliseconds, well above launch overheads
// Below 1 MiB a pair measures latency more than bandwidth, and a bandwidth fault hides in it.
constexpr std::uint64_t kProbeMinBytes = 1ull << 20;
constexpr std::uint64_t kProbeMaxBytes = 64ull << 20;
constexpr double kLongRound_s = 2.0;

std::string pairs_text(const std::vector<std::pair<int, int>>& pairs, const std::vector<report::NodeInfo>& nodes) {
  std::string out;
  for (const auto& [a, b] : pairs) out += fmt::format("{}{}<->{}", out.empty() ? "" : "  ", nodes[a].name, nodes[b].name);
  return out;
}

std::string plan_text(const report::HuntPlan& p, const Schedule& s, bool node_phase, const report::WorldInfo& w) {
  std::string out = fmt::format("# Hunt: {} nodes, {} ranks, pattern {}: {} at {} ({}), up to {} iterations per pair "
                                "and round\n",
                                w.nodes.size(), w.ranks, p.pattern, p.op, report::size_text(p.bytes),
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

// HOSTS_BUSY when any node's CPUs were oversubscribed during the hunt; empty message otherwise.
Finding busy_hosts(const report::HuntRecord& r, const std::vector<std::string>& names) {
  std::vector<std::string> hosts;
  std::string list;
  for (std::size_t i = 0; i < r.runnable_per_core.size() && i < names.size(); ++i)
    if (r.runnable_per_core[i] > 1.0) {
      hosts.push_back(names[i]);
      if (hosts.size() <= 5) list += fmt::format("{}{} {:.1f}", list.empty() ? "" : ", ", names[i], r.runnable_per_core[i]);
    }
  if (hosts.empty()) return {};
  return {"HOSTS_BUSY", report::Tag::Info, report::Priority::None,
          fmt::format("{} of {} nodes had more runnable tasks than cores during the hunt ({}{} per core): CPU "
                      "contention slows pairs and a node's own collective by itself, so only a pair at a quarter of "
                      "the others or below is called slow, and a node slow on its own path is left in doubt",
                      hosts.size(), names.size(), list, hosts.size() > 5 ? ", ..." : ""),
          report::ref::kStraggler, report::Subject::nodes(hosts)};
}

// What the budget did not reach; the verdicts stand on the rest.
Finding budget_finding(const report::HuntRecord& r, const std::vector<std::string>& names) {
  std::string pairs;
  for (std::size_t i = 0; i < r.not_measured.size() && i < 8; ++i)
    pairs += fmt::format("{}{}<->{}", pairs.empty() ? "" : ", ", names[r.not_measured[i].first],
                         names[r.not_measured[i].second]);
  if (r.not_measured.size() > 8) pairs += fmt::format(" and {} more", r.not_measured.size() - 8);
  return {"HUNT_BUDGET_SPENT", report::Tag::Warn, report::Priority::P2,
          fmt::format("the budget of {:.0f} s ran out before {}{}{}; the verdicts use what was measured; rerun with a "
                      "larger --budget, or a smaller -b or -n",
                      r.plan.budget_s, r.node_phase_skipped ? "the node phase" : "",
                      r.node_phase_skipped && !pairs.empty() ? " and " : "",
                      pairs.empty() ? "" : "these pairs were measured: " + pairs),
          report::ref::kStraggler};
}

}  // namespace

int hunt_command(const Command& cmd, const std::vector<std::string>& argv) {
  RunOptions opts = cmd.run;
  // The largest size the probe may choose, for any check made at set-up.
  opts.min_bytes = opts.max_bytes = cmd.hunt.bytes > 0 ? cmd.hunt.bytes : kProbeMaxBytes;
  opts.placements = {Placement::OutOfPlace};
  opts.ops = {opts.ops.front()};
  MpiControl control;
  const int rank = control.rank();

  Watchdog watchdog([&](const std::string& what, double limit) {
    const Finding hang{"COLLECTIVE_HANG", report::Tag::Fail, report::Priority::P0,
                       fmt::format("rank {} (host {}): hunt {} did not finish within --timeout {:g} s", rank,
                                   this_host(), what, limit),
                       report::ref::kTimeoutHang};
    std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
    _exit(kExitCouldNotRun);
  });
  BackendChoice choice;
  if (int code = agree(control, [&] { choice = make_backend(opts, control, report_at_once(rank), &watchdog); })) {
    watchdog.arm("teardown after a failed set-up", opts.timeout_s);
    return code;
  }
  watchdog.disarm();
  report::HuntRecord record;
  record.header.world = describe_world(control, *choice.backend, choice.reason);
  const report::WorldInfo& world = record.header.world;
  // Rank 0 knows the layout; every process needs its node's index, and whether nodes are alike.
  int n = static_cast<int>(world.nodes.size());
  control.broadcast(std::span<int>(&n, 1));
  if (n < 2) {
    if (rank == 0) std::fprintf(stderr, "collbench: error: hunt needs at least 2 nodes; this run has %d\n", n);
    return kExitUsage;
  }
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
  const bool is_auto = cmd.hunt.pattern == "auto";
  const bool node_phase = is_auto && alike;

  record.header.tool_version = COLLBENCH_VERSION;
  record.header.started_at = now_utc();
  record.header.argv = argv;
  record.header.rank_reduce = "mean";
  record.plan.pattern = cmd.hunt.pattern;
  record.plan.op = collective_info(opts.ops.front()).name;
  std::optional<report::Journal> journal;
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
    return code;

  const HuntContext ctx{opts, *choice.backend, control, watchdog, world, my_node};
  const bool color = use_color(cmd.verdict.color);
  const std::vector<std::string> names = [&] {
    std::vector<std::string> out;
    for (const auto& node : world.nodes) out.push_back(node.name);
    return out;
  }();

  const Schedule schedule = schedule_for_pattern(cmd.hunt.pattern, n);
  record.plan.planned_rounds = static_cast<int>(schedule.size()) + (node_phase ? 1 : 0);
  record.plan.budget_s = cmd.hunt.budget_s > 0 ? cmd.hunt.budget_s : default_budget_s(record.plan.planned_rounds);
  // Rank 0's clock and decisions rule; every rank follows them.
  const Budget budget(record.plan.budget_s);
  record.plan.max_iters = opts.iters.fixed;
  {
    // With -b the probe only times the given size.
    const std::uint64_t lo = cmd.hunt.bytes > 0 ? cmd.hunt.bytes : kProbeMinBytes;
    const std::uint64_t hi = cmd.hunt.bytes > 0 ? cmd.hunt.bytes : kProbeMaxBytes;
    const SizeChoice c = choose_size(ctx, schedule.front(), kProbeTarget_s, lo, hi);
    record.plan.bytes = c.bytes;
    record.plan.bytes_probed = cmd.hunt.bytes == 0;
    record.plan.probe_iteration_s = c.iteration_s;
  }
  const std::uint64_t bytes = record.plan.bytes;
  record.header.sweep = {bytes, bytes, 2, 0, opts.warmup, std::to_string(opts.iters.fixed), opts.check_iters};
  const int per_round = opts.warmup + opts.iters.fixed;
  record.plan.estimate_s = record.plan.planned_rounds * per_round * record.plan.probe_iteration_s;
  // A round this long holds all the samples a verdict needs, however slow its slowest pair.
  const double long_round_s = std::max(kLongRound_s, 100 * record.plan.probe_iteration_s);
  if (rank == 0) {
    std::fputs(plan_text(record.plan, schedule, node_phase, world).c_str(), stdout);
    std::fflush(stdout);
  }

  // Times one round on rank 0, then prints and journals it.
  auto timed = [&](const std::string& phase, const std::vector<std::pair<int, int>>& pairs, const auto& body) {
    report::HuntRound round{phase, static_cast<int>(record.rounds.size()), 0, pairs};
    const double start = budget.elapsed_s();
    body(round.index);
    round.wall_s = budget.elapsed_s() - start;
    if (rank != 0) return;
    record.rounds.push_back(round);
    std::string line = fmt::format("# round {} ({}): {:.2f} s", round.index, phase, round.wall_s);
    for (const auto& s : record.samples)
      if (s.round == round.index)
        line += fmt::format("  {}<->{} {:.3g} GB/s ({})", names[s.a], names[s.b], report::median(s.busbw_gbs),
                            s.busbw_gbs.size());
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
        for (std::size_t j = i; j < s.size(); ++j)
          record.not_measured.insert(record.not_measured.end(), s[j].pairs.begin(), s[j].pairs.end());
        return;
      }
      timed(phase, r.pairs, [&](int index) {
        PairRound pr = run_pair_round(ctx, r, index, bytes, slice, phase == "confirm");
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
        record.node_phase = std::move(r.scores);
        note_load(r.runnable_per_core);
      });
    };
    const double slice = next_slice(ahead);
    if (slice <= 0) record.node_phase_skipped = true;
    else node_run(slice);
    int again = 0;
    if (rank == 0 && !record.node_phase.empty()) {
      record.node_judgement = report::judge_groups(record.node_phase);
      for (const auto& g : record.node_judgement.groups) again |= g.kind != report::GroupVerdict::Kind::Healthy;
    }
    control.broadcast(std::span<int>(&again, 1));
    const double again_slice = again ? next_slice(ahead) : 0;
    if (again_slice > 0) {
      node_run(again_slice);
      if (rank == 0)
        record.node_judgement =
            report::combine_runs(record.node_judgement, report::judge_groups(record.node_phase));
    }
    if (rank == 0) report::excuse_busy_hosts(record.node_judgement, record.runnable_per_core);
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

  int exit_code = 0;
  if (rank == 0) {
    const std::string what = fmt::format("{} busbw at {}", record.plan.op, report::size_text(bytes));
    std::vector<Finding> findings;
    if (!record.node_phase.empty()) {
      std::printf("#\n# Node phase: each node's own %s\n", what.c_str());
      findings = report::group_findings(record.node_phase, record.node_judgement, report::GroupKind::Node, what);
    }
    report::AttributionOptions rule;
    rule.require_confirmation = true;
    if (const auto busy = busy_hosts(record, names); !busy.message.empty()) {
      // CPU contention slows pairs by up to a few times on its own: only far larger gaps accuse.
      rule.min_drop = std::max(rule.min_drop, rule.max_excused);
      findings.push_back(busy);
    }
    const auto attribution = report::attribute(record.samples, n, rule);
    if (!record.not_measured.empty() || record.node_phase_skipped)
      findings.push_back(budget_finding(record, names));
    std::vector<std::vector<int>> ranks;
    for (const auto& node : world.nodes) ranks.push_back(node.ranks);
    for (auto& f : report::attribution_findings(attribution, names, "pair " + what, ranks))
      findings.push_back(std::move(f));
    std::printf("#\n# Pair busbw (GB/s), median of the iterations of each pair\n%s",
                report::render_matrix(attribution, names).c_str());
    std::fputs(report::render_findings(findings, color).c_str(), stdout);
    std::fputs(report::render_summary(findings, color).c_str(), stdout);
    exit_code = report::exit_code_for(findings, cmd.verdict.fail_on_warn);
    if (journal) {
      try {
        journal->finish(report::hunt_document(record, attribution, findings, exit_code));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "collbench: error: %s\n", e.what());
        exit_code = kExitCouldNotRun;
      }
    }
    std::fflush(stdout);
  }
  control.broadcast(std::span<int>(&exit_code, 1));
  return exit_code;
}

}  // namespace collbench
