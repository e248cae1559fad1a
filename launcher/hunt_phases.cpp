#include "launcher/hunt_phases.h"

#include <mpi.h>

#include <algorithm>

#include "bench/plan.h"
#include "bench/sweep.h"
#include "reports/outliers.h"
#include "reports/stats.h"

namespace collbench {
namespace {

// Per-iteration busbw of one group: each iteration's time is the mean over the group's ranks.
std::vector<double> group_busbw(const CaseMeasurement& m, const std::vector<int>& ranks) {
  std::vector<std::vector<double>> mine;
  for (int r : ranks) mine.push_back(m.samples_s[static_cast<std::size_t>(r)]);
  const auto times = report::reduce_across_ranks(mine, report::RankReduce::Mean);
  const double factor = collective_info(m.row->coll).busbw_factor(static_cast<int>(ranks.size()));
  std::vector<double> out;
  for (double t : times) out.push_back(t > 0 ? static_cast<double>(m.row->bytes) / 1e9 / t * factor : 0.0);
  return out;
}

// Runs the hunt's one case on `group` (this process's share of a split, or the world itself).
void measure(const HuntContext& ctx, const RunOptions& opts, Backend& group, const CaseSink& sink) {
  Plan plan;
  try {
    plan = make_plan(opts, group.world_ranks());
    check_supported(plan, group);
    group.reserve(plan.max_send_bytes, plan.max_recv_bytes);
  } catch (const std::exception& e) {
    // Every process meets the same plan, so rank 0 speaks for all; a memory error may be local.
    std::fprintf(stderr, "collbench: error on rank %d: %s\n", ctx.control.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, dynamic_cast<const UsageError*>(&e) ? kExitUsage : kExitCouldNotRun);
  }
  run_sweep(plan, opts, group, ctx.control, ctx.watchdog, sink);
}

std::vector<int> ranks_of(const report::WorldInfo& info, int a, int b) {
  std::vector<int> ranks = info.nodes[a].ranks;
  ranks.insert(ranks.end(), info.nodes[b].ranks.begin(), info.nodes[b].ranks.end());
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

// A split and a teardown wait on every peer like a case does, so they are bounded the same way.
std::unique_ptr<Backend> watched_split(const HuntContext& ctx, int color) {
  ctx.watchdog.arm("communicator split", ctx.opts.timeout_s);
  std::unique_ptr<Backend> group = ctx.world.split(color);
  ctx.watchdog.disarm();
  return group;
}

void watched_release(const HuntContext& ctx, std::unique_ptr<Backend>& group) {
  ctx.watchdog.arm("communicator teardown", ctx.opts.timeout_s);
  group.reset();
  ctx.watchdog.disarm();
}

}  // namespace

double probe_iteration_s(const HuntContext& ctx) {
  RunOptions probe = ctx.opts;
  probe.warmup = 1;
  probe.iters = IterPolicy{};
  probe.iters.fixed = 3;
  probe.check_iters = 0;
  double slowest = 0;
  measure(ctx, probe, ctx.world, [&](const CaseMeasurement& m) {
    for (const auto& s : m.samples_s)
      if (!s.empty()) slowest = std::max(slowest, report::median(s));
  });
  return slowest;
}

std::vector<report::GroupScore> run_node_phase(const HuntContext& ctx) {
  std::unique_ptr<Backend> node = watched_split(ctx, ctx.my_node);
  std::vector<report::GroupScore> out;
  measure(ctx, ctx.opts, *node, [&](const CaseMeasurement& m) {
    for (const auto& n : ctx.info.nodes) {
      const auto bw = group_busbw(m, n.ranks);
      out.push_back({n.name, report::median(bw), bw.size(), report::scaled_mad(bw)});
    }
  });
  watched_release(ctx, node);
  return out;
}

std::vector<report::PairSample> run_pair_round(const HuntContext& ctx, const Round& round, int index) {
  // A node in no pair of this round gets a group of its own, measured but not reported.
  int color = static_cast<int>(round.pairs.size()) + ctx.my_node;
  for (std::size_t p = 0; p < round.pairs.size(); ++p)
    if (round.pairs[p].first == ctx.my_node || round.pairs[p].second == ctx.my_node) color = static_cast<int>(p);
  std::unique_ptr<Backend> pair = watched_split(ctx, color);
  std::vector<report::PairSample> out;
  measure(ctx, ctx.opts, *pair, [&](const CaseMeasurement& m) {
    for (const auto& [a, b] : round.pairs) out.push_back({a, b, index, group_busbw(m, ranks_of(ctx.info, a, b))});
  });
  watched_release(ctx, pair);
  return out;
}

}  // namespace collbench
