// The fabric measurement as one phase: libfabric RDM endpoints on every rank, ping-pong latency and
// streaming bandwidth between scheduled pairs, confirmation, attribution (fabric, and preflight's
// fabric pairs).
#pragma once

#include <string>
#include <vector>

#include "bench/control.h"
#include "launcher/cli/command.h"
#include "launcher/phases/phase.h"

namespace collbench {

struct FabricPhaseSpec {
  const FabricOptions& fabric;
  const VerdictOptions& verdict;  // which thresholds give the instance's EFA profile
  std::vector<std::string> argv;
  bool color = false;  // for what a stop signal prints
};

// Whether this collbench was built with libfabric.
bool fabric_available();

// Collective over `control`. Skipped with the reason when there are not two endpoints to pair;
// built without libfabric, it fails with exit 1 and says so.
PhaseResult fabric_phase(Control& control, const FabricPhaseSpec& spec);

}  // namespace collbench
