// The hunt as one phase: a probe sizes the message, every node's own collective runs at once, then
// rounds of node pairs and their confirmation; stragglers and slow links are attributed (hunt, and
// preflight's pair screen).
#pragma once

#include <string>
#include <vector>

#include "bench/control.h"
#include "launcher/cli/command.h"
#include "launcher/phases/phase.h"

namespace collbench {

struct HuntPhaseSpec {
  const RunOptions& run;  // the backend, the op (the first of --ops), -w, -n, --timeout, --json
  const HuntOptions& hunt;
  std::vector<std::string> argv;
  bool color = false;  // for what a stop signal prints
};

// Collective over `control`. Skipped with the reason on fewer than 2 nodes.
PhaseResult hunt_phase(Control& control, const HuntPhaseSpec& spec);

}  // namespace collbench
