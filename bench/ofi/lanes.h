// Who measures with whom in `collbench fabric`: the units a schedule (bench/schedules.h) pairs, and
// the rank pairs ("lanes") that carry each unit pair's traffic. Pure functions, no libfabric.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/schedules.h"

namespace collbench::ofi {

// A node (its name and global ranks, in local-rank order), or a single rank on a one-node run.
struct Unit {
  std::string name;
  std::vector<int> ranks;
};

// Nodes when the run spans two or more; on one node each rank is a unit of its own (named
// "host/rN"), so a single machine still yields pairs: loopback checks of the provider path.
std::vector<Unit> fabric_units(const std::vector<Unit>& nodes);

// Ranks grouped by host name (`host_by_rank`), nodes in order of their lowest rank.
std::vector<Unit> nodes_of(const std::vector<std::string>& host_by_rank);
// `rank`'s index among its node's ranks.
int local_index(const std::vector<Unit>& nodes, int rank);

// Local rank i of unit a with local rank i of unit b, for every i both units have: all lanes of a
// pair run at once, one endpoint each, like NCCL's rails. rank_a is the initiator.
struct Lane {
  int round = 0;
  int a = 0, b = 0;  // unit indices, a < b
  int lane = 0;      // local rank index within both units
  int rank_a = 0, rank_b = 0;
};

std::vector<Lane> round_lanes(const Schedule& s, int round, const std::vector<Unit>& units);

// This rank's lane in `round`, or nullopt when it sits the round out.
std::optional<Lane> lane_of(int rank, const Schedule& s, int round, const std::vector<Unit>& units);

}  // namespace collbench::ofi
