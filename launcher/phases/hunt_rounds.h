// The hunt's measurements: a probe that sizes the message, every node's own collective at
// once, and rounds of node pairs. Collective over all processes; results on rank 0.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/backend.h"
#include "bench/control.h"
#include "bench/options.h"
#include "bench/schedules.h"
#include "bench/watchdog.h"
#include "reports/pairs/attribution.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/core/result.h"

namespace collbench {

struct HuntContext {
  const RunOptions& opts;  // one op, out of place; iters.fixed is the most iterations a group runs
  Backend& world;
  Control& control;
  Watchdog& watchdog;
  const report::WorldInfo& info;  // complete on rank 0 only
  int my_node = 0;
};

// The message size at which a healthy pair's iteration takes about `target_s`: the first pair
// round timed for a few iterations, from 1 MiB, scaling by the median pair's time, a power of two
// within [min_bytes, max_bytes] (every rank). The median pair, not the world: the world runs at its
// slowest node's pace, which would shrink the message until healthy pairs measure only latency.
struct SizeChoice {
  std::uint64_t bytes = 0;
  double iteration_s = 0;  // the median pair's iteration at `bytes`
  int probes = 0;
};
SizeChoice choose_size(const HuntContext& ctx, const Round& probe_round, double target_s, std::uint64_t min_bytes,
                       std::uint64_t max_bytes);

// Every node's ranks run the op together, all nodes at once, each node timing for up to `slice_s`;
// one score per node, and per node the busiest its CPUs were (runnable tasks per core, sampled by
// each of its processes before and after) (rank 0).
struct NodePhase {
  std::vector<report::GroupScore> scores;
  std::vector<double> runnable_per_core;
};
NodePhase run_node_phase(const HuntContext& ctx, std::uint64_t bytes, double slice_s);

// One round: each pair's two nodes run the op together, all pairs at once, each pair timing until
// it has iters.fixed samples or `slice_s` is spent (a slow pair stops with few, a fast one with
// many); nodes in no pair run alone and are not reported. Samples tagged with `index`, and per node
// the busiest its CPUs were (rank 0).
struct PairRound {
  std::vector<report::PairSample> samples;
  std::vector<double> runnable_per_core;
};
PairRound run_pair_round(const HuntContext& ctx, const Round& round, int index, std::uint64_t bytes, double slice_s,
                         bool confirmation);

}  // namespace collbench
