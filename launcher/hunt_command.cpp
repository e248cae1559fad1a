#include "launcher/hunt_command.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>

#include "bench/backend_factory.h"
#include "bench/mpi_check.h"
#include "bench/mpi_control.h"
#include "bench/schedules.h"
#include "bench/sweep.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
#include "reports/attribution.h"
#include "reports/references.h"
#include "reports/stats.h"
#include "reports/summary.h"
#include "reports/text_table.h"

namespace collbench {
namespace {

using report::Finding;

Schedule schedule_for(const std::string& pattern, int nodes) {
  if (pattern == "pairwise") return pairwise_schedule(nodes);
  if (pattern == "screen") return screen_schedule(nodes);
  return auto_schedule(nodes);
}

// This process's group in a round: its node's pair, or alone when its node sits the round out.
int color_in_round(const Round& round, int node, int nodes) {
  for (std::size_t p = 0; p < round.pairs.size(); ++p)
    if (round.pairs[p].first == node || round.pairs[p].second == node) return static_cast<int>(p);
  return static_cast<int>(round.pairs.size()) + node;
}

std::string schedule_text(const Schedule& s, const std::vector<report::NodeInfo>& nodes, const std::string& pattern) {
  std::string out = fmt::format("# Hunt: {} nodes, pattern {}: {} rounds, {} pairs, all pairs of a round at once\n",
                                nodes.size(), pattern, s.size(), schedule_pairs(s));
  for (std::size_t r = 0; r < s.size(); ++r) {
    std::string pairs;
    for (const auto& [a, b] : s[r].pairs)
      pairs += fmt::format("{}{}<->{}", pairs.empty() ? "" : "  ", nodes[a].name, nodes[b].name);
    out += fmt::format("#   round {}: {}\n", r, pairs);
  }
  return out;
}

// Per-iteration busbw of one pair: each iteration's time is the mean over the pair's ranks.
std::vector<double> pair_busbw(const CaseMeasurement& m, const std::vector<int>& ranks) {
  std::vector<std::vector<double>> mine;
  for (int r : ranks) mine.push_back(m.samples_s[static_cast<std::size_t>(r)]);
  const auto times = report::reduce_across_ranks(mine, report::RankReduce::Mean);
  const double factor = collective_info(m.row->coll).busbw_factor(static_cast<int>(ranks.size()));
  std::vector<double> out;
  for (double t : times) out.push_back(t > 0 ? static_cast<double>(m.row->bytes) / 1e9 / t * factor : 0.0);
  return out;
}

}  // namespace

int hunt_command(const Command& cmd) {
  RunOptions opts = cmd.run;
  opts.min_bytes = opts.max_bytes = cmd.hunt.bytes;
  opts.placements = {Placement::OutOfPlace};
  opts.ops = {opts.ops.front()};
  MpiControl control;
  const int rank = control.rank();

  BackendChoice choice;
  try {
    choice = make_backend(opts);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "collbench: error: %s\n", e.what());
    return dynamic_cast<const UsageError*>(&e) ? kExitUsage : kExitCouldNotRun;
  }
  const report::WorldInfo world = describe_world(*choice.backend, choice.reason);
  const int nodes = static_cast<int>(world.nodes.size());  // rank 0 only; shared below
  int n = nodes;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (n < 2) {
    if (rank == 0) std::fprintf(stderr, "collbench: error: hunt needs at least 2 nodes; this run has %d\n", n);
    return kExitUsage;
  }
  // Every process needs its node's index: rank 0 knows the layout, the others learn it.
  std::vector<int> node_of_rank(static_cast<std::size_t>(choice.backend->world_ranks()), 0);
  if (rank == 0)
    for (int i = 0; i < nodes; ++i)
      for (int r : world.nodes[i].ranks) node_of_rank[static_cast<std::size_t>(r)] = i;
  MPI_Bcast(node_of_rank.data(), static_cast<int>(node_of_rank.size()), MPI_INT, 0, MPI_COMM_WORLD);
  const int my_node = node_of_rank[static_cast<std::size_t>(choice.backend->first_rank())];

  const Schedule schedule = schedule_for(cmd.hunt.pattern, n);
  const bool color = use_color(cmd.verdict.color);
  if (rank == 0) {
    std::fputs(schedule_text(schedule, world.nodes, cmd.hunt.pattern).c_str(), stdout);
    std::fflush(stdout);
  }

  Watchdog watchdog([&](const std::string& what, double limit) {
    const Finding hang{"COLLECTIVE_HANG", report::Tag::Fail, report::Priority::P0,
                       fmt::format("rank {} (host {}): hunt {} did not finish within --timeout {:g} s", rank,
                                   this_host(), what, limit),
                       report::ref::kTimeoutHang};
    std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
    _exit(kExitCouldNotRun);
  });

  std::vector<report::PairSample> samples;
  for (std::size_t r = 0; r < schedule.size(); ++r) {
    std::unique_ptr<Backend> pair = choice.backend->split(color_in_round(schedule[r], my_node, n));
    Plan plan;
    try {
      plan = make_plan(opts, pair->world_ranks());
      check_supported(plan, *pair);
      pair->reserve(plan.max_send_bytes, plan.max_recv_bytes);
    } catch (const std::exception& e) {
      if (rank == 0) std::fprintf(stderr, "collbench: error: %s\n", e.what());
      MPI_Abort(MPI_COMM_WORLD, dynamic_cast<const UsageError*>(&e) ? kExitUsage : kExitCouldNotRun);
    }
    run_sweep(plan, opts, *pair, control, watchdog, [&](const CaseMeasurement& m) {
      for (const auto& [a, b] : schedule[r].pairs) {
        std::vector<int> ranks = world.nodes[a].ranks;
        ranks.insert(ranks.end(), world.nodes[b].ranks.begin(), world.nodes[b].ranks.end());
        std::sort(ranks.begin(), ranks.end());
        samples.push_back({a, b, static_cast<int>(r), pair_busbw(m, ranks)});
      }
    });
  }

  int exit_code = 0;
  if (rank == 0) {
    std::vector<std::string> names;
    for (const auto& node : world.nodes) names.push_back(node.name);
    const auto attribution = report::attribute(samples, n);
    const auto findings = report::attribution_findings(
        attribution, names,
        fmt::format("pair {} busbw at {}", collective_info(opts.ops.front()).name, report::size_text(cmd.hunt.bytes)));
    std::printf("#\n# Pair busbw (GB/s), median of %d iterations per pair\n%s", opts.iters.fixed,
                report::render_matrix(attribution, names).c_str());
    std::fputs(report::render_findings(findings, color).c_str(), stdout);
    std::fputs(report::render_summary(findings, color).c_str(), stdout);
    exit_code = report::exit_code_for(findings, cmd.verdict.fail_on_warn);
    std::fflush(stdout);
  }
  MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return exit_code;
}

}  // namespace collbench
