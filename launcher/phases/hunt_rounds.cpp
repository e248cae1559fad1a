#include "launcher/phases/hunt_rounds.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "bench/host_load.h"
#include "bench/plan.h"
#include "bench/sweep.h"
#include "launcher/job/agree.h"
#include "reports/core/outliers.h"
#include "reports/core/stats.h"

namespace collbench {
namespace {

// Per-iteration busbw of the group's ranks 0..n-1: each iteration's time is their mean.
std::vector<double> group_busbw(const CaseMeasurement& m) {
  const auto times = report::reduce_across_ranks(m.samples_s, report::RankReduce::Mean);
  const double factor = collective_info(m.row->coll).busbw_factor(static_cast<int>(m.samples_s.size()));
  std::vector<double> out;
  for (double t : times) out.push_back(t > 0 ? static_cast<double>(m.row->bytes) / 1e9 / t * factor : 0.0);
  return out;
}

RunOptions at_size(const RunOptions& base, std::uint64_t bytes) {
  RunOptions o = base;
  o.min_bytes = o.max_bytes = bytes;
  return o;
}

// Timed until `slice_s` is spent or iters.fixed samples are in, whichever comes first; at least
// three, so even a very slow group leaves a spread to judge.
RunOptions sliced(const RunOptions& base, std::uint64_t bytes, double slice_s) {
  RunOptions o = at_size(base, bytes);
  o.iters.adaptive = true;
  o.iters.max_samples = std::max(3, base.iters.fixed);
  o.iters.min_samples = std::min(3, o.iters.max_samples);
  o.iters.min_time_s = 0;
  o.iters.max_noise = 0;  // never "converged": the count or the slice ends it
  o.iters.max_time_s = std::max(slice_s, 1e-3);
  return o;
}

// Runs the hunt's one case on `group` with `control` (the group's own channel, or the world's).
void measure(const HuntContext& ctx, const RunOptions& opts, Backend& group, Control& control, const CaseSink& sink) {
  Plan plan;
  try {
    plan = make_plan(opts, group.world_ranks());
    check_supported(plan, group);
    group.reserve(plan.max_send_bytes, plan.max_recv_bytes);
  } catch (const std::exception& e) {
    // Every process meets the same plan, so rank 0 speaks for all; a memory error may be local.
    print_error(e.what(), ctx.control.rank());
    ctx.control.abort(dynamic_cast<const UsageError*>(&e) ? kExitUsage : kExitCouldNotRun);
  }
  run_sweep(plan, opts, group, control, ctx.watchdog, sink);
}

// A split and a teardown wait on every peer like a case does, so they are bounded the same way.
struct Group {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Control> control;
};

Group watched_split(const HuntContext& ctx, int color) {
  ctx.watchdog.arm("communicator split", ctx.opts.timeout_s);
  Group g{ctx.world.split(color), ctx.control.split(color)};
  ctx.watchdog.disarm();
  return g;
}

void watched_release(const HuntContext& ctx, Group& g) {
  ctx.watchdog.arm("communicator teardown", ctx.opts.timeout_s);
  g.backend.reset();
  g.control.reset();
  ctx.watchdog.disarm();
}

// Each group measures with its own channel, so each stops on its own; the group's first process
// then holds its per-iteration busbw, and world rank 0 collects them by color. Groups have
// different sample counts, so every process sends a block of the longest length.
std::vector<std::vector<double>> measure_groups(const HuntContext& ctx, int color, int colors, const RunOptions& opts) {
  Group g = watched_split(ctx, color);
  std::vector<double> mine;
  bool reports = false;
  measure(ctx, opts, *g.backend, *g.control, [&](const CaseMeasurement& m) {
    mine = group_busbw(m);
    reports = true;
  });
  watched_release(ctx, g);
  const std::int64_t longest = -ctx.control.min(-static_cast<std::int64_t>(mine.size()));
  std::vector<double> block(static_cast<std::size_t>(longest) + 2, 0.0);
  block[0] = reports ? color : -1;
  block[1] = static_cast<double>(mine.size());
  std::copy(mine.begin(), mine.end(), block.begin() + 2);
  const std::vector<double> all = ctx.control.gather_to_root(block);
  std::vector<std::vector<double>> out(static_cast<std::size_t>(colors));
  for (std::size_t at = 0; at + block.size() <= all.size(); at += block.size()) {
    const int c = static_cast<int>(all[at]);
    if (c < 0 || c >= colors) continue;
    const auto n = static_cast<std::ptrdiff_t>(all[at + 1]);
    out[static_cast<std::size_t>(c)].assign(all.begin() + static_cast<std::ptrdiff_t>(at) + 2,
                                            all.begin() + static_cast<std::ptrdiff_t>(at) + 2 + n);
  }
  return out;
}

// Per node, the busiest any of its processes saw its CPUs, before or after `body` (rank 0).
template <class Body>
std::vector<double> with_node_load(const HuntContext& ctx, int nodes, Body body) {
  const double before = runnable_per_core();
  body();
  const double mine[2] = {static_cast<double>(ctx.my_node), std::max(before, runnable_per_core())};
  const std::vector<double> all = ctx.control.gather_to_root(mine);
  std::vector<double> out(ctx.control.rank() == 0 ? static_cast<std::size_t>(nodes) : 0, 0.0);
  for (std::size_t at = 0; at + 1 < all.size(); at += 2) {
    const auto node = static_cast<std::size_t>(all[at]);
    if (node < out.size()) out[node] = std::max(out[node], all[at + 1]);
  }
  return out;
}

int node_count(const HuntContext& ctx) {
  return static_cast<int>(ctx.control.min(ctx.control.rank() == 0 ? ctx.info.nodes.size() : INT64_MAX));
}

}  // namespace

SizeChoice choose_size(const HuntContext& ctx, const Round& probe_round, double target_s, std::uint64_t min_bytes,
                       std::uint64_t max_bytes) {
  RunOptions few = ctx.opts;
  few.warmup = 1;
  few.iters.fixed = 3;
  few.check_iters = 0;
  const HuntContext probe{few, ctx.world, ctx.control, ctx.watchdog, ctx.info, ctx.my_node};
  // Ranks in a pair, for the busbw factor: two nodes' worth (nodes alike, or near enough to size by).
  const int pair_ranks = ctx.control.rank() == 0 && !ctx.info.nodes.empty()
                             ? 2 * std::max<int>(1, static_cast<int>(ctx.info.ranks / ctx.info.nodes.size()))
                             : 2;
  const double factor = collective_info(ctx.opts.ops.front()).busbw_factor(pair_ranks);
  SizeChoice c;
  c.bytes = std::clamp<std::uint64_t>(1ull << 20, min_bytes, max_bytes);
  for (;;) {
    double t = 0;
    if (ctx.control.rank() == 0) {
      std::vector<double> times;
      for (const auto& s : run_pair_round(probe, probe_round, -1, c.bytes, 10.0, false).samples)
        if (!s.rates.empty() && report::median(s.rates) > 0)
          times.push_back(static_cast<double>(c.bytes) * factor / (report::median(s.rates) * 1e9));
      t = times.empty() ? 0 : report::median(times);
    } else {
      run_pair_round(probe, probe_round, -1, c.bytes, 10.0, false);
    }
    const std::int64_t us = ctx.control.min(ctx.control.rank() == 0 ? static_cast<std::int64_t>(std::ceil(t * 1e6)) : INT64_MAX);
    c.iteration_s = static_cast<double>(us) * 1e-6;
    ++c.probes;
    // Time grows about linearly with size above the latency floor; aim at the target, in powers of two.
    const double want = c.iteration_s > 0 ? static_cast<double>(c.bytes) * target_s / c.iteration_s : 1e18;
    std::uint64_t next = min_bytes;
    while (next < max_bytes && static_cast<double>(next) * 2 <= want) next *= 2;
    next = std::clamp(next, min_bytes, max_bytes);
    // Within a factor of 2 of the target, or no further to go, or probed enough: keep what was measured.
    const bool close = c.iteration_s >= target_s / 2 && c.iteration_s <= target_s * 2;
    if (next == c.bytes || close || c.probes >= 3) return c;
    c.bytes = next;
  }
}

NodePhase run_node_phase(const HuntContext& ctx, std::uint64_t bytes, double slice_s) {
  const int nodes = node_count(ctx);
  std::vector<std::vector<double>> bw;
  NodePhase out;
  out.runnable_per_core =
      with_node_load(ctx, nodes, [&] { bw = measure_groups(ctx, ctx.my_node, nodes, sliced(ctx.opts, bytes, slice_s)); });
  if (ctx.control.rank() != 0) return out;
  for (std::size_t i = 0; i < ctx.info.nodes.size(); ++i)
    out.scores.push_back({ctx.info.nodes[i].name, report::median(bw[i]), bw[i].size(), report::scaled_mad(bw[i]),
                          ctx.info.nodes[i].ranks});
  return out;
}

PairRound run_pair_round(const HuntContext& ctx, const Round& round, int index, std::uint64_t bytes, double slice_s,
                         bool confirmation) {
  // A node in no pair of this round gets a group of its own, measured but not reported.
  const int pairs = static_cast<int>(round.pairs.size());
  int color = pairs + ctx.my_node;
  for (int p = 0; p < pairs; ++p)
    if (round.pairs[p].first == ctx.my_node || round.pairs[p].second == ctx.my_node) color = p;
  std::vector<std::vector<double>> bw;
  PairRound out;
  out.runnable_per_core = with_node_load(ctx, node_count(ctx),
                                         [&] { bw = measure_groups(ctx, color, pairs, sliced(ctx.opts, bytes, slice_s)); });
  if (ctx.control.rank() != 0) return out;
  for (int p = 0; p < pairs; ++p)
    out.samples.push_back(
        {round.pairs[p].first, round.pairs[p].second, index, bw[static_cast<std::size_t>(p)], confirmation});
  return out;
}

}  // namespace collbench
