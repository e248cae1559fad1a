// The MPI world as the reports see it: ranks, nodes with their hostnames, devices, versions.
#pragma once

#include <string>

#include "bench/backend.h"
#include "bench/control.h"
#include "reports/core/result.h"

namespace collbench {

// Collective over `control`; the full description on rank 0, this process's part elsewhere.
report::WorldInfo describe_world(Control& control, const Backend& backend, const std::string& reason);

// Groups ranks by host name, nodes in order of their lowest rank.
std::vector<report::NodeInfo> group_nodes(const std::vector<report::RankInfo>& ranks);

}  // namespace collbench
