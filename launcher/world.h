// The MPI world as the reports see it: ranks, nodes with their hostnames, devices, versions.
#pragma once

#include <string>

#include "bench/backend.h"
#include "reports/result.h"

namespace collbench {

// Collective over MPI_COMM_WORLD; the full description on rank 0, this process's part elsewhere.
report::WorldInfo describe_world(const Backend& backend, const std::string& reason);

// Every process's string, in rank order, on rank 0 (empty elsewhere). Collective over
// MPI_COMM_WORLD, on a private duplicate of it.
std::vector<std::string> gather_strings(const std::string& mine);

// Groups ranks by host name, nodes in order of their lowest rank.
std::vector<report::NodeInfo> group_nodes(const std::vector<report::RankInfo>& ranks);

}  // namespace collbench
